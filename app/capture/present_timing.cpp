#include "app/capture/present_timing.h"

#include "base/host_clock.h"

namespace vksim {

bool displayTimingAvailable(bool headless, const Device& device, VkPresentModeKHR presentMode) {
  return !headless && device.presentWait && presentMode == VK_PRESENT_MODE_FIFO_KHR;
}

std::string describeDisplayTiming(bool headless, const Device& device, VkPresentModeKHR presentMode) {
  if (headless) return "none: headless, nothing is displayed";
  if (!device.presentWait)
    return "none: the driver (" + describeDriver(device.info) +
           ") does not offer VK_KHR_present_id and VK_KHR_present_wait";
  if (presentMode != VK_PRESENT_MODE_FIFO_KHR)
    return "none: present mode " + presentModeName(presentMode) +
           " may replace a present before it is shown, and present wait cannot tell which (vsync on gives FIFO)";
  return "VK_KHR_present_wait polled by the frame loop: the host time at which a present was first reported "
         "shown (an upper bound, late by at most one poll interval)";
}

uint64_t nextPresentId(FrameTimingQueue& queue, bool headless, const Device& device,
                       const SwapchainTarget& swapchain) {
  if (!displayTimingAvailable(headless, device, swapchain.presentMode)) return 0;
  return ++queue.lastPresentId;
}

void noteDisplayed(FrameTimingQueue& queue, FrameTiming& timing, int64_t displayedNs) {
  timing.displayedNs = displayedNs;
  if (queue.lastDisplayedNs != 0) timing.previousDisplayedNs = queue.lastDisplayedNs;
  queue.lastDisplayedNs = displayedNs;
  timing.displayPending = false;
}

void collectDisplayTimes(FrameTimingQueue& queue, const Device& device, const SwapchainTarget& swapchain) {
  if (!device.presentWait || swapchain.swapchain == VK_NULL_HANDLE) return;
  for (FrameTiming& timing : queue.pending) {
    if (!timing.displayPending) continue;
    // A recreated swapchain destroyed the one this frame went to: its
    // display time can no longer be asked for.
    if (timing.swapchainHandle != uint64_t(swapchain.swapchain)) {
      timing.displayPending = false;
      queue.lastDisplayedNs = 0;  // the next frame shown has no known predecessor
      continue;
    }
    const PresentWaitStatus status = pollPresentDisplayed(device, swapchain, timing.presentId);
    if (status == PresentWaitStatus::notYet) return;
    if (status == PresentWaitStatus::lost) {
      timing.displayPending = false;
      queue.lastDisplayedNs = 0;
      continue;
    }
    noteDisplayed(queue, timing, hostNowNs());
  }
}

}  // namespace vksim
