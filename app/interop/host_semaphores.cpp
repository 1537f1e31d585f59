#include "app/interop/host_semaphores.h"

#include <vulkan/vk_enum_string_helper.h>

#include <cstdio>

#include "base/config.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {
// How long the destructor waits for a waitRenderDone submission that timed
// out: the program's bound on any wait (base/config.h), not the
// VKSIM_WAIT_TIMEOUT_MS override, which may be shorter than the submission.
constexpr uint64_t kDestructorTimeoutNs = kDefaultWaitTimeoutNs;
}  // namespace

VulkanHostSemaphores::VulkanHostSemaphores(const Device& device, const SyncSemaphores& semaphores)
    : device_(device), semaphores_(semaphores) {
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};  // unsignalled
  VK_CHECK(vkCreateFence(device_.device, &fenceInfo, nullptr, &fence_));
}

VulkanHostSemaphores::~VulkanHostSemaphores() {
  // A fence may only be destroyed once its submission has completed
  // (VUID-vkDestroyFence-fence-01120); after a timed-out waitRenderDone it is
  // still pending. If it stays pending, it is left to vkDestroyDevice.
  if (renderDoneWaitPending_) {
    const VkResult result = vkWaitForFences(device_.device, 1, &fence_, VK_TRUE, kDestructorTimeoutNs);
    // A lost device's work counts as complete (the spec's Lost Device
    // section), so its fence may be destroyed; the loss itself is reported
    // once, by whoever saw it first.
    if (result != VK_SUCCESS && result != VK_ERROR_DEVICE_LOST) {
      std::fprintf(stderr, "VulkanHostSemaphores: the renderDone wait never completed (%s); fence leaked\n",
                   string_VkResult(result));
      return;
    }
  }
  vkDestroyFence(device_.device, fence_, nullptr);
}

bool VulkanHostSemaphores::waitTimeline(uint64_t value, uint64_t timeoutNs) {
  VkSemaphoreWaitInfo waitInfo{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  waitInfo.semaphoreCount = 1;
  waitInfo.pSemaphores = &semaphores_.timeline;
  waitInfo.pValues = &value;
  // vkWaitSemaphores returns once the counter is >= value: the render's
  // signal of 2k+1 happens after all its vertex reads (the signal's first
  // synchronisation scope is every command before it), so host writes after
  // this return cannot race them.
  const VkResult result = vkWaitSemaphores(device_.device, &waitInfo, timeoutNs);
  if (result == VK_SUCCESS) return true;
  if (result == VK_TIMEOUT) return false;
  failVulkanCall("vkWaitSemaphores", result, __FILE__, __LINE__);
}

void VulkanHostSemaphores::signalTimeline(uint64_t value) {
  // Valid only when value exceeds the current counter and is below every
  // pending signal (VUID-VkSemaphoreSignalInfo-value-03258 / -03259): in the
  // value schedule the host signals 2k+2 after the render of frame k has
  // signalled 2k+1 and before frame k+1's render (which signals 2k+3) is
  // submitted. Host writes are made visible by that later vkQueueSubmit (host
  // write ordering guarantee); a render submitted before the writes would
  // need a HOST / HOST_WRITE barrier in its own command buffer instead.
  VkSemaphoreSignalInfo signalInfo{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  signalInfo.semaphore = semaphores_.timeline;
  signalInfo.value = value;
  VK_CHECK(vkSignalSemaphore(device_.device, &signalInfo));
}

bool VulkanHostSemaphores::waitRenderDone(uint64_t timeoutNs) {
  // The host cannot wait on a binary semaphore directly, so a batch with no
  // command buffers waits on it and a fence reports when that wait (and so
  // the render before its signal) has completed. The wait also consumes the
  // signal, leaving renderDone unsignalled for the next frame. The signal was
  // submitted before this wait, as binary semaphores require
  // (VUID-vkQueueSubmit-pWaitSemaphores-03238).
  // A wait with no commands behind it still needs a non-zero stage mask
  // (VUID-VkSubmitInfo-pWaitDstStageMask-03937, without synchronization2);
  // the fence signal of the batch follows the wait whichever stage is named.
  if (!renderDoneWaitPending_) {
    const SemaphoreWait wait{semaphores_.renderDone, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
    submitToQueue(device_, VK_NULL_HANDLE, {&wait, 1}, {}, fence_);
    renderDoneWaitPending_ = true;
  }
  // After a timeout the submission stays in flight; the next call waits for
  // the same fence instead of consuming a second signal.
  if (!waitForFence(device_, fence_, timeoutNs)) return false;
  renderDoneWaitPending_ = false;
  VK_CHECK(vkResetFences(device_.device, 1, &fence_));
  return true;
}

void VulkanHostSemaphores::signalSimDone() {
  // vkQueueSubmit makes every host write made before it available to the
  // device (the host write ordering guarantee of queue submission), and the
  // renderer's wait on simDone orders its vertex reads after this signal.
  const SemaphoreSignal signal{semaphores_.simDone, 0};
  submitToQueue(device_, VK_NULL_HANDLE, {}, {&signal, 1}, VK_NULL_HANDLE);
}

}  // namespace vksim
