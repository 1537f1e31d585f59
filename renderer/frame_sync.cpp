#include "renderer/frame_sync.h"

#include <mutex>
#include <vector>

#include "base/config.h"
#include "renderer/debug_names.h"
#include "renderer/vk_check.h"

namespace vksim {

FrameResources createFrameResources(const Device& device) {
  FrameResources frame;
  VkCommandBufferAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocateInfo.commandPool = device.commandPool;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  VK_CHECK(vkAllocateCommandBuffers(device.device, &allocateInfo, &frame.commandBuffer));

  // Signalled, so that the first frame's wait on it returns at once.
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  fenceInfo.flags = VK_FENCE_CREATE_SIGNALED_BIT;
  VK_CHECK(vkCreateFence(device.device, &fenceInfo, nullptr, &frame.inFlight));

  VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VK_CHECK(vkCreateSemaphore(device.device, &semaphoreInfo, nullptr, &frame.imageAvailable));
  nameObject(device.device, frame.commandBuffer, "frame commands");
  nameObject(device.device, frame.inFlight, "frame in flight");
  nameObject(device.device, frame.imageAvailable, "swapchain image available");
  return frame;
}

void destroyFrameResources(const Device& device, FrameResources& frame) {
  if (frame.imageAvailable != VK_NULL_HANDLE)
    vkDestroySemaphore(device.device, frame.imageAvailable, nullptr);
  if (frame.inFlight != VK_NULL_HANDLE) vkDestroyFence(device.device, frame.inFlight, nullptr);
  if (frame.commandBuffer != VK_NULL_HANDLE)
    vkFreeCommandBuffers(device.device, device.commandPool, 1, &frame.commandBuffer);
  frame = FrameResources{};
}

void submitToQueue(const Device& device, VkCommandBuffer commandBuffer, std::span<const SemaphoreWait> waits,
                   std::span<const SemaphoreSignal> signals, VkFence fence) {
  const SubmitBatch batch{commandBuffer, waits, signals};
  submitBatchesToQueue(device, std::span(&batch, 1), fence);
}

void submitBatchesToQueue(const Device& device, std::span<const SubmitBatch> batches, VkFence fence) {
  struct BatchArrays {
    std::vector<VkSemaphore> waitSemaphores, signalSemaphores;
    std::vector<uint64_t> waitValues, signalValues;
    std::vector<VkPipelineStageFlags> waitStages;
    VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
    VkTimelineSemaphoreSubmitInfo timelineInfo{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  };
  std::vector<BatchArrays> arrays(batches.size());  // sized once: the submit infos point into it
  std::vector<VkSubmitInfo> submitInfos(batches.size(), VkSubmitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO});
  for (size_t b = 0; b < batches.size(); ++b) {
    BatchArrays& a = arrays[b];
    for (const SemaphoreWait& wait : batches[b].waits) {
      a.waitSemaphores.push_back(wait.semaphore);
      a.waitValues.push_back(wait.value);
      a.waitStages.push_back(wait.stage);
    }
    for (const SemaphoreSignal& signal : batches[b].signals) {
      a.signalSemaphores.push_back(signal.semaphore);
      a.signalValues.push_back(signal.value);
    }
    a.commandBuffer = batches[b].commandBuffer;
    // VkTimelineSemaphoreSubmitInfo carries one value per semaphore of the
    // batch, binary ones included (their values are ignored): when present,
    // its counts must equal the batch's semaphore counts
    // (VUID-VkSubmitInfo-pNext-03240 / -03241). Binary-only batches ignore it.
    a.timelineInfo.waitSemaphoreValueCount = static_cast<uint32_t>(a.waitValues.size());
    a.timelineInfo.pWaitSemaphoreValues = a.waitValues.data();
    a.timelineInfo.signalSemaphoreValueCount = static_cast<uint32_t>(a.signalValues.size());
    a.timelineInfo.pSignalSemaphoreValues = a.signalValues.data();
    VkSubmitInfo& submitInfo = submitInfos[b];
    submitInfo.pNext = &a.timelineInfo;
    submitInfo.waitSemaphoreCount = static_cast<uint32_t>(a.waitSemaphores.size());
    submitInfo.pWaitSemaphores = a.waitSemaphores.data();
    submitInfo.pWaitDstStageMask = a.waitStages.data();
    submitInfo.commandBufferCount = a.commandBuffer != VK_NULL_HANDLE ? 1u : 0u;
    submitInfo.pCommandBuffers = a.commandBuffer != VK_NULL_HANDLE ? &a.commandBuffer : nullptr;
    submitInfo.signalSemaphoreCount = static_cast<uint32_t>(a.signalSemaphores.size());
    submitInfo.pSignalSemaphores = a.signalSemaphores.data();
  }
  // The queue is externally synchronised (vkQueueSubmit's queue parameter):
  // with --frame-tags a simulation worker thread submits too.
  static std::mutex queueMutex;
  const std::lock_guard lock(queueMutex);
  VK_CHECK(vkQueueSubmit(device.queue, static_cast<uint32_t>(submitInfos.size()), submitInfos.data(), fence));
}

VkResult waitForFenceOrLoss(const Device& device, VkFence fence, uint64_t timeoutNs) {
  const VkResult result = vkWaitForFences(device.device, 1, &fence, VK_TRUE, timeoutNs);
  if (result == VK_SUCCESS || result == VK_TIMEOUT || result == VK_ERROR_DEVICE_LOST) return result;
  failVulkanCall("vkWaitForFences", result, __FILE__, __LINE__);
}

bool waitForFence(const Device& device, VkFence fence, uint64_t timeoutNs) {
  const VkResult result = vkWaitForFences(device.device, 1, &fence, VK_TRUE, timeoutNs);
  if (result == VK_SUCCESS) return true;
  if (result == VK_TIMEOUT) return false;
  failVulkanCall("vkWaitForFences", result, __FILE__, __LINE__);
}

bool isFenceSignalled(const Device& device, VkFence fence) {
  const VkResult result = vkGetFenceStatus(device.device, fence);
  if (result == VK_SUCCESS) return true;
  if (result == VK_NOT_READY) return false;
  failVulkanCall("vkGetFenceStatus", result, __FILE__, __LINE__);
}

namespace {

void beginForOneSubmission(VkCommandBuffer commandBuffer) {
  VkCommandBufferBeginInfo beginInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  beginInfo.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(commandBuffer, &beginInfo));
}

}  // namespace

VkCommandBuffer beginOneTimeCommands(const Device& device) {
  VkCommandBufferAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocateInfo.commandPool = device.commandPool;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(device.device, &allocateInfo, &commandBuffer));
  beginForOneSubmission(commandBuffer);
  return commandBuffer;
}

void restartCommandBuffer(VkCommandBuffer commandBuffer) {
  VK_CHECK(vkResetCommandBuffer(commandBuffer, 0));
  beginForOneSubmission(commandBuffer);
}

void endOneTimeCommands(const Device& device, VkCommandBuffer commandBuffer) {
  VK_CHECK(vkEndCommandBuffer(commandBuffer));
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFence(device.device, &fenceInfo, nullptr, &fence));
  submitToQueue(device, commandBuffer, {}, {}, fence);
  // A fence rather than vkQueueWaitIdle: the wait is bounded, and work that
  // other code has queued meanwhile is not waited for.
  if (!waitForFence(device, fence, kDefaultWaitTimeoutNs)) {
    // The command buffer and fence are still pending, so neither may be freed
    // (VUID-vkFreeCommandBuffers-pCommandBuffers-00047, VUID-vkDestroyFence-fence-01120):
    // they are left to vkDestroyDevice.
    throw RuntimeFailure("One-time GPU commands (upload or read-back) timed out after 5 s.");
  }
  vkDestroyFence(device.device, fence, nullptr);
  vkFreeCommandBuffers(device.device, device.commandPool, 1, &commandBuffer);
}

}  // namespace vksim
