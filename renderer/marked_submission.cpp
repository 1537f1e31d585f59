#include "renderer/marked_submission.h"

#include "renderer/frame_sync.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

// The queries are reset when the command buffer is recorded (from the host
// with hostQueryReset, else by a command at its start): legal once the last
// submission's fence has signalled and its results were read.
void recordMarked(const Device& device, MarkedSubmission& marked) {
  restartCommandBuffer(marked.commandBuffer);
  beginGpuTimer(device, marked.timer, 0, marked.commandBuffer);
  endGpuTimer(marked.timer, 0, marked.commandBuffer);
  VK_CHECK(vkEndCommandBuffer(marked.commandBuffer));
}

}  // namespace

std::optional<MarkedSubmission> createMarkedSubmission(const Device& device) {
  MarkedSubmission marked;
  marked.timer = createGpuTimer(device, 1);
  if (!gpuTimerSupported(marked.timer)) {
    destroyGpuTimer(device, marked.timer);
    return std::nullopt;
  }
  VkCommandBufferAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocateInfo.commandPool = device.commandPool;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  VK_CHECK(vkAllocateCommandBuffers(device.device, &allocateInfo, &marked.commandBuffer));
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_CHECK(vkCreateFence(device.device, &fenceInfo, nullptr, &marked.fence));
  recordMarked(device, marked);
  return marked;
}

void destroyMarkedSubmission(const Device& device, MarkedSubmission& marked) {
  if (marked.fence != VK_NULL_HANDLE) vkDestroyFence(device.device, marked.fence, nullptr);
  if (marked.commandBuffer != VK_NULL_HANDLE)
    vkFreeCommandBuffers(device.device, device.commandPool, 1, &marked.commandBuffer);
  destroyGpuTimer(device, marked.timer);
  marked = MarkedSubmission{};
}

bool submitMarked(const Device& device, MarkedSubmission& marked) {
  if (marked.outstanding) return false;
  VK_CHECK(vkResetFences(device.device, 1, &marked.fence));
  submitToQueue(device, marked.commandBuffer, {}, {}, marked.fence);
  marked.outstanding = true;
  return true;
}

bool isMarkedSubmissionDone(const Device& device, MarkedSubmission& marked) {
  if (!marked.outstanding) return true;
  if (!isFenceSignalled(device, marked.fence)) return false;
  marked.outstanding = false;
  return true;
}

std::optional<GpuTicks> readMarkedSubmission(const Device& device, MarkedSubmission& marked) {
  if (marked.outstanding) return std::nullopt;
  std::optional<GpuTicks> ticks = readGpuTimer(device, marked.timer, 0);
  recordMarked(device, marked);
  return ticks;
}

}  // namespace vksim
