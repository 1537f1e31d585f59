#include "renderer/frame_sync.h"

#include <mutex>
#include <vector>

#include "base/config.h"
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
  std::vector<VkSemaphore> waitSemaphores, signalSemaphores;
  std::vector<uint64_t> waitValues, signalValues;
  std::vector<VkPipelineStageFlags> waitStages;
  for (const SemaphoreWait& wait : waits) {
    waitSemaphores.push_back(wait.semaphore);
    waitValues.push_back(wait.value);
    waitStages.push_back(wait.stage);
  }
  for (const SemaphoreSignal& signal : signals) {
    signalSemaphores.push_back(signal.semaphore);
    signalValues.push_back(signal.value);
  }

  // VkTimelineSemaphoreSubmitInfo carries one value per semaphore of the
  // batch, binary ones included (their values are ignored): when present,
  // its counts must equal the batch's semaphore counts
  // (VUID-VkSubmitInfo-pNext-03240 / -03241). Binary-only batches ignore it.
  VkTimelineSemaphoreSubmitInfo timelineInfo{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  timelineInfo.waitSemaphoreValueCount = static_cast<uint32_t>(waitValues.size());
  timelineInfo.pWaitSemaphoreValues = waitValues.data();
  timelineInfo.signalSemaphoreValueCount = static_cast<uint32_t>(signalValues.size());
  timelineInfo.pSignalSemaphoreValues = signalValues.data();

  VkSubmitInfo submitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submitInfo.pNext = &timelineInfo;
  submitInfo.waitSemaphoreCount = static_cast<uint32_t>(waitSemaphores.size());
  submitInfo.pWaitSemaphores = waitSemaphores.data();
  submitInfo.pWaitDstStageMask = waitStages.data();
  submitInfo.commandBufferCount = commandBuffer != VK_NULL_HANDLE ? 1u : 0u;
  submitInfo.pCommandBuffers = commandBuffer != VK_NULL_HANDLE ? &commandBuffer : nullptr;
  submitInfo.signalSemaphoreCount = static_cast<uint32_t>(signalSemaphores.size());
  submitInfo.pSignalSemaphores = signalSemaphores.data();
  // The queue is externally synchronised (vkQueueSubmit's queue parameter):
  // with --frame-tags a simulation worker thread submits too.
  static std::mutex queueMutex;
  const std::lock_guard lock(queueMutex);
  VK_CHECK(vkQueueSubmit(device.queue, 1, &submitInfo, fence));
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
