// Per-frame command buffer, fence and semaphores, and the submission that
// carries the value schedule's waits and signals (binary and timeline in one
// VkSubmitInfo through VkTimelineSemaphoreSubmitInfo).
#pragma once
#include <volk.h>

#include <cstdint>
#include <span>

#include "renderer/vulkan_context.h"

namespace vksim {

struct FrameResources {
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;  // from device.commandPool
  VkFence inFlight = VK_NULL_HANDLE;               // created signalled
  VkSemaphore imageAvailable = VK_NULL_HANDLE;     // swapchain acquire (window only)
};

// A primary command buffer, a fence created signalled (so the first frame's
// wait returns at once) and a binary semaphore for vkAcquireNextImageKHR.
FrameResources createFrameResources(const Device& device);
// After the fence has signalled (nothing of this frame still pending).
void destroyFrameResources(const Device& device, FrameResources& frame);

struct SemaphoreWait {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  uint64_t value = 0;  // timeline value; ignored for binary semaphores
  VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
};
struct SemaphoreSignal {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  uint64_t value = 0;  // timeline value; ignored for binary semaphores
};

// One vkQueueSubmit on device.queue (commandBuffer may be VK_NULL_HANDLE for a
// submission that only waits and signals). fence may be VK_NULL_HANDLE.
// The queue is externally synchronised: calls are serialised with a mutex
// (vkQueuePresentKHR and vkDeviceWaitIdle are not: only one thread may use
// the queue while they run).
// A failed submission throws RuntimeFailure.
void submitToQueue(const Device& device, VkCommandBuffer commandBuffer, std::span<const SemaphoreWait> waits,
                   std::span<const SemaphoreSignal> signals, VkFence fence);

// One batch (VkSubmitInfo) of a submission: a command buffer (or none) with
// its semaphore waits and signals.
struct SubmitBatch {
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
  std::span<const SemaphoreWait> waits;
  std::span<const SemaphoreSignal> signals;
};

// One vkQueueSubmit of several batches on device.queue, in order (a later
// batch may wait on a binary semaphore that an earlier one signals: the
// signal is submitted first). Serialised with submitToQueue; fence may be
// VK_NULL_HANDLE and signals once every batch has completed. A failed
// submission throws RuntimeFailure.
void submitBatchesToQueue(const Device& device, std::span<const SubmitBatch> batches, VkFence fence);

// Waits for a fence at most timeoutNs: true when signalled, false on
// VK_TIMEOUT; any other result (device lost) throws RuntimeFailure. Does not
// reset the fence.
bool waitForFence(const Device& device, VkFence fence, uint64_t timeoutNs);

// The same wait for teardown, where a lost device is an answer rather than a
// failure: VK_SUCCESS, VK_TIMEOUT or VK_ERROR_DEVICE_LOST (which the spec's
// Lost Device section lets the caller treat as complete); any other result
// throws RuntimeFailure.
VkResult waitForFenceOrLoss(const Device& device, VkFence fence, uint64_t timeoutNs);

// vkGetFenceStatus: true when signalled, false when not yet; never waits.
// Device loss throws RuntimeFailure.
bool isFenceSignalled(const Device& device, VkFence fence);

// A one-off command buffer, submitted and waited for (bounded) before
// returning. For uploads and read-backs outside the frame loop. The wait uses
// its own fence (not vkQueueWaitIdle) and gives up after 5 s with
// RuntimeFailure("... timed out ..."); the still-pending command buffer and
// fence are then left to vkDestroyDevice. Commands recorded by `record` must
// leave their results visible to whoever reads them next (a barrier to HOST
// for host reads): the fence wait alone does not do that.
template <typename Record>
void runOneTimeCommands(const Device& device, Record&& record);
VkCommandBuffer beginOneTimeCommands(const Device& device);
// Resets `commandBuffer` (its pool allows resetting, and it must not be
// pending: its fence has signalled) and begins it for one submission.
void restartCommandBuffer(VkCommandBuffer commandBuffer);
void endOneTimeCommands(const Device& device, VkCommandBuffer commandBuffer);  // submits, waits, frees

template <typename Record>
void runOneTimeCommands(const Device& device, Record&& record) {
  VkCommandBuffer commandBuffer = beginOneTimeCommands(device);
  record(commandBuffer);
  endOneTimeCommands(device, commandBuffer);
}

}  // namespace vksim
