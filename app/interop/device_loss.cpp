#include "app/interop/device_loss.h"

#include "app/interop/value_schedule.h"
#include "renderer/frame_sync.h"
#include "renderer/vk_check.h"

namespace vksim {

bool waitForFenceInTeardown(const Device& device, VkFence fence, DeviceLoss& loss) {
  VkResult result = waitForFenceOrLoss(device, fence, kWaitTimeoutNs);
  if (result == VK_SUCCESS && loss.injectInTeardown) {
    VK_CHECK(vkDeviceWaitIdle(device.device));
    result = VK_ERROR_DEVICE_LOST;
  }
  // The spec's Lost Device section: a lost device's work is as good as
  // complete, and its objects may still be destroyed.
  if (result == VK_ERROR_DEVICE_LOST) {
    loss.lost = true;
    return true;
  }
  return result == VK_SUCCESS;
}

void waitForDeviceIdleInTeardown(const Device& device, DeviceLoss& loss) {
  if (!device.device || loss.lost) return;
  VkResult result = vkDeviceWaitIdle(device.device);
  // The seam's loss is reported after the real wait, so that nothing is
  // destroyed while it is in use.
  if (result == VK_SUCCESS && loss.injectInTeardown) result = VK_ERROR_DEVICE_LOST;
  if (result == VK_ERROR_DEVICE_LOST) {
    loss.lost = true;
    return;
  }
  if (result != VK_SUCCESS) failVulkanCall("vkDeviceWaitIdle", result, __FILE__, __LINE__);
}

}  // namespace vksim
