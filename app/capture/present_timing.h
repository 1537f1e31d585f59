// When a window's frames reach the display, for a capture's
// MsBetweenDisplayChange, MsUntilDisplayed and Dropped columns: each present
// is tagged with an id (VK_KHR_present_id) and the frame loop asks, without
// blocking, whether the presents still outstanding have been shown
// (VK_KHR_present_wait, renderer/render_targets.h). Only FIFO presents are
// tagged: FIFO shows every present, in order, so "id n or a later one is on
// the display" is "frame n is on the display". Headless, without the
// extensions, or in another present mode nothing is tagged and the columns
// stay NA; describeDisplayTiming says why, for the capture's summary.
// docs/captures.md defines the columns on this program's clocks.
#pragma once
#include <cstdint>
#include <string>

#include "app/capture/frame_timing.h"
#include "renderer/render_targets.h"
#include "renderer/vulkan_context.h"

namespace vksim {

// Whether this run's presents can be timed on the display: in a window, with
// device.presentWait, in FIFO mode.
bool displayTimingAvailable(bool headless, const Device& device, VkPresentModeKHR presentMode);

// One line for the summary's environment.displayTiming: how display times
// were taken, or why the display columns are NA.
std::string describeDisplayTiming(bool headless, const Device& device, VkPresentModeKHR presentMode);

// The id to tag the next present with (ids increase by one over the run, as
// VkPresentIdKHR requires per swapchain), or 0 for an untagged present when
// display timing is not available. The caller passes it to
// presentSwapchainImage and keeps it in the frame's FrameTiming::presentId.
uint64_t nextPresentId(FrameTimingQueue& queue, bool headless, const Device& device,
                       const SwapchainTarget& swapchain);

// For the queued frames whose present is still to be seen (oldest first),
// polls pollPresentDisplayed on `swapchain` and stamps the host time of the
// first poll that reports it (an upper bound on when it was shown: late by at
// most the time since the poll before). Stops at the first present not yet
// shown: a later one cannot have been shown before it. Frames presented to
// another (recreated) swapchain, or to one that is lost, stay NA. Never
// blocks. Call from the thread that presents.
void collectDisplayTimes(FrameTimingQueue& queue, const Device& device, const SwapchainTarget& swapchain);

// Stamps `timing` as shown at displayedNs, after the frame before it: the
// bookkeeping of collectDisplayTimes, apart so that tests can drive it.
void noteDisplayed(FrameTimingQueue& queue, FrameTiming& timing, int64_t displayedNs);

}  // namespace vksim
