// A lost Vulkan device (VK_ERROR_DEVICE_LOST), real or injected by the test
// facility: from then on waits count as done and nothing more is submitted,
// but everything is still destroyed (the spec's Lost Device rules allow
// destroying the objects of a lost device). The two teardown waits below are
// defined in app/interop/teardown.cpp, beside the teardown that calls them.
#pragma once
#include <volk.h>

#include "renderer/vulkan_context.h"

namespace vksim {

// Whether the Vulkan device is lost. From `lost` on, waits count as done and
// nothing more is submitted, but everything is still destroyed.
struct DeviceLoss {
  bool lost = false;
  // Test seam (the fault `device-lost`): teardown's device waits (the
  // drain's fences, vkDeviceWaitIdle) report VK_ERROR_DEVICE_LOST after they
  // really waited, so that a test on a driver that never loses its device
  // still walks the lost-device teardown.
  bool injectInTeardown = false;
};

// A drain or teardown fence wait, at most kWaitTimeoutNs: VK_ERROR_DEVICE_LOST
// (real, or reported by the test seam once the device really is idle, so
// that what follows may destroy anything) sets loss.lost and counts as
// signalled. False only on a timeout.
bool waitForFenceInTeardown(const Device& device, VkFence fence, DeviceLoss& loss);

// vkDeviceWaitIdle for teardown; a lost device (or the seam's injected loss,
// reported after the real wait) sets loss.lost and counts as idle. Nothing
// when the device is already lost or was never created. Throws
// RuntimeFailure on any other failure.
void waitForDeviceIdleInTeardown(const Device& device, DeviceLoss& loss);

}  // namespace vksim
