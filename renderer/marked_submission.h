// A submission that only says when it ran: a command buffer of two
// timestamps (TOP_OF_PIPE, BOTTOM_OF_PIPE) and a fence, submitted on the
// device's queue with no semaphore. The context-switch probe
// (app/capture/switch_probe.h) plays it against the simulation's own marked
// work to see how long the GPU takes to turn from one API's context to the
// other's.
#pragma once
#include <volk.h>

#include <cstdint>
#include <optional>

#include "renderer/gpu_timer.h"
#include "renderer/vulkan_context.h"

namespace vksim {

struct MarkedSubmission {
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;  // from device.commandPool, recorded ahead of each submit
  VkFence fence = VK_NULL_HANDLE;
  GpuTimer timer;  // one slot
  bool outstanding = false;  // submitted, fence not yet seen signalled
};

// The command buffer (recorded, ready to submit), the fence and a one-slot
// timer. Nothing when the queue family has no timestamps
// (timestampValidBits = 0). Throws RuntimeFailure when a Vulkan call fails.
std::optional<MarkedSubmission> createMarkedSubmission(const Device& device);
// After the fence has signalled (or the device is idle).
void destroyMarkedSubmission(const Device& device, MarkedSubmission& marked);

// vkQueueSubmit of the recorded command buffer with the fence, no waits and
// no signals. False when one is still outstanding. Throws RuntimeFailure when
// the submission fails.
bool submitMarked(const Device& device, MarkedSubmission& marked);
// Whether the fence has signalled; never waits (vkGetFenceStatus).
bool isMarkedSubmissionDone(const Device& device, MarkedSubmission& marked);
// The two timestamps of the finished submission, in device ticks; then
// records the command buffer again for the next submit (off the critical
// path of the ping-pong). Nothing before the fence signalled.
std::optional<GpuTicks> readMarkedSubmission(const Device& device, MarkedSubmission& marked);

}  // namespace vksim
