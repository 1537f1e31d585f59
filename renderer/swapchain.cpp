// The window's render target: the swapchain, rebuilt on resize, and its
// acquire, present and present-wait.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vk_enum_string_helper.h>

#include "renderer/attachments.h"
#include "renderer/render_targets.h"
#include "renderer/vk_check.h"

namespace vksim {

std::string presentModeName(VkPresentModeKHR mode) {
  std::string_view name = string_VkPresentModeKHR(mode);
  constexpr std::string_view kPrefix = "VK_PRESENT_MODE_", kSuffix = "_KHR";
  if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
  if (name.ends_with(kSuffix)) name.remove_suffix(kSuffix.size());
  return std::string(name);
}

namespace {

// `kept`: the format of the swapchain being rebuilt (VK_FORMAT_UNDEFINED at
// creation). The render pass, and so the mesh's and the overlay's pipelines,
// were built for that format; a rebuild keeps it, and a surface that no
// longer offers it ends the run with one line rather than draw with
// pipelines made for another render pass.
VkSurfaceFormatKHR chooseSurfaceFormat(const Device& device, VkSurfaceKHR surface, VkFormat kept) {
  const std::vector<VkSurfaceFormatKHR> formats = enumerate<VkSurfaceFormatKHR>(
      "vkGetPhysicalDeviceSurfaceFormatsKHR", [&](uint32_t* count, VkSurfaceFormatKHR* data) {
        return vkGetPhysicalDeviceSurfaceFormatsKHR(device.physical, surface, count, data);
      });
  if (formats.empty()) throw EnvironmentError("The window surface offers no image formats.");
  if (kept != VK_FORMAT_UNDEFINED) {
    for (const VkSurfaceFormatKHR& format : formats)
      if (format.format == kept) return format;
    throw EnvironmentError(std::string("The window's surface no longer offers ") + string_VkFormat(kept) +
                           ", the format the program's render pass and pipelines were built for: start it again.");
  }
  // UNORM first: the offscreen target is R8G8B8A8_UNORM, so a window and a
  // headless run of the same scene store the same bytes, and ImGui's colours
  // are authored for UNORM targets (an sRGB target washes them out).
  for (VkFormat preferred : {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB})
    for (const VkSurfaceFormatKHR& format : formats)
      if (format.format == preferred && format.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return format;
  return formats[0];
}

VkPresentModeKHR choosePresentMode(const Device& device, VkSurfaceKHR surface, bool vsync) {
  // FIFO is the one mode every surface supports (VK_KHR_surface).
  if (vsync) return VK_PRESENT_MODE_FIFO_KHR;
  const std::vector<VkPresentModeKHR> modes = enumerate<VkPresentModeKHR>(
      "vkGetPhysicalDeviceSurfacePresentModesKHR", [&](uint32_t* count, VkPresentModeKHR* data) {
        return vkGetPhysicalDeviceSurfacePresentModesKHR(device.physical, surface, count, data);
      });
  for (VkPresentModeKHR preferred : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR})
    if (std::find(modes.begin(), modes.end(), preferred) != modes.end()) return preferred;
  return VK_PRESENT_MODE_FIFO_KHR;
}

// Destroys what depends on the swapchain's images (not the swapchain, the
// render pass or the renderFinished semaphores).
void destroySwapchainImages(const Device& device, SwapchainTarget& target) {
  for (VkFramebuffer framebuffer : target.framebuffers)
    vkDestroyFramebuffer(device.device, framebuffer, nullptr);
  for (VkImageView view : target.views) vkDestroyImageView(device.device, view, nullptr);
  target.framebuffers.clear();
  target.views.clear();
  target.images.clear();
  destroyImage(device, target.depth, target.depthMemory, target.depthView);
}

// currentExtent is the window's size, or 0xFFFFFFFF when the surface lets
// the swapchain decide (then the framebuffer size, clamped, is used).
VkExtent2D chooseSwapchainExtent(const VkSurfaceCapabilitiesKHR& capabilities, VkExtent2D framebufferSize) {
  VkExtent2D extent = capabilities.currentExtent;
  if (extent.width == UINT32_MAX) {
    extent.width = std::clamp(framebufferSize.width, capabilities.minImageExtent.width,
                              capabilities.maxImageExtent.width);
    extent.height = std::clamp(framebufferSize.height, capabilities.minImageExtent.height,
                               capabilities.maxImageExtent.height);
  }
  if (extent.width == 0 || extent.height == 0)
    throw RuntimeFailure(
        "The window has a 0x0 framebuffer (minimised): wait for a non-zero size before creating the "
        "swapchain.");
  return extent;
}

// One image more than the minimum, so the application need not wait for
// the presentation engine to release one before acquiring the next.
uint32_t chooseImageCount(const VkSurfaceCapabilitiesKHR& capabilities) {
  uint32_t imageCount = capabilities.minImageCount + 1;
  if (capabilities.maxImageCount != 0) imageCount = std::min(imageCount, capabilities.maxImageCount);
  return imageCount;
}

VkImageUsageFlags swapchainUsage(const VkSurfaceCapabilitiesKHR& capabilities) {
  VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (capabilities.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT)
    usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  return usage;
}

VkCompositeAlphaFlagBitsKHR chooseCompositeAlpha(const VkSurfaceCapabilitiesKHR& capabilities) {
  VkCompositeAlphaFlagBitsKHR compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  if (!(capabilities.supportedCompositeAlpha & compositeAlpha))
    for (VkCompositeAlphaFlagBitsKHR candidate :
         {VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR, VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR,
          VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR})
      if (capabilities.supportedCompositeAlpha & candidate) {
        compositeAlpha = candidate;
        break;
      }
  return compositeAlpha;
}

// The render pass is made once: a rebuild keeps the format
// (chooseSurfaceFormat), so the pipelines made for it stay compatible.
void prepareSwapchainRenderPass(const Device& device, SwapchainTarget& target, VkFormat colorFormat) {
  target.colorFormat = colorFormat;
  if (target.depthFormat == VK_FORMAT_UNDEFINED) target.depthFormat = chooseDepthFormat(device);
  if (target.renderPass == VK_NULL_HANDLE)
    target.renderPass =
        createRenderPass(device, target.colorFormat, target.depthFormat, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
}

// The swapchain's images, one depth image, and a view and framebuffer per image.
void createSwapchainImages(const Device& device, SwapchainTarget& target) {
  target.images = enumerate<VkImage>("vkGetSwapchainImagesKHR", [&](uint32_t* count, VkImage* data) {
    return vkGetSwapchainImagesKHR(device.device, target.swapchain, count, data);
  });

  const VkImageAspectFlags depthAspect = depthAspects(target.depthFormat);
  createImage(device,
              {target.extent, target.depthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, depthAspect},
              target.depth, target.depthMemory, target.depthView);
  for (VkImage image : target.images) {
    target.views.push_back(createColorView(device, image, target.colorFormat));
    target.framebuffers.push_back(
        createFramebuffer(device, target.renderPass, target.views.back(), target.depthView, target.extent));
  }
}

// Semaphores are kept across recreation: a present may still hold one
// (vkDeviceWaitIdle does not cover the presentation engine's waits), so only
// the surplus is destroyed when the image count shrinks.
void matchRenderFinishedToImages(const Device& device, SwapchainTarget& target) {
  VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  while (target.renderFinished.size() < target.images.size()) {
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSemaphore(device.device, &semaphoreInfo, nullptr, &semaphore));
    target.renderFinished.push_back(semaphore);
  }
  while (target.renderFinished.size() > target.images.size()) {
    vkDestroySemaphore(device.device, target.renderFinished.back(), nullptr);
    target.renderFinished.pop_back();
  }
}

// (Re)builds swapchain, views, depth, framebuffers and semaphores; the
// previous swapchain, if any, is handed over as oldSwapchain and destroyed.
void buildSwapchain(const Device& device, SwapchainTarget& target, VkExtent2D framebufferSize, bool vsync) {
  VkSurfaceCapabilitiesKHR capabilities{};
  VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device.physical, target.surface, &capabilities));
  const VkExtent2D extent = chooseSwapchainExtent(capabilities, framebufferSize);
  const uint32_t imageCount = chooseImageCount(capabilities);
  const VkSurfaceFormatKHR surfaceFormat = chooseSurfaceFormat(device, target.surface, target.colorFormat);

  const VkSwapchainKHR oldSwapchain = target.swapchain;
  VkSwapchainCreateInfoKHR createInfo{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  createInfo.surface = target.surface;
  createInfo.minImageCount = imageCount;
  createInfo.imageFormat = surfaceFormat.format;
  createInfo.imageColorSpace = surfaceFormat.colorSpace;
  createInfo.imageExtent = extent;
  createInfo.imageArrayLayers = 1;
  createInfo.imageUsage = swapchainUsage(capabilities);
  createInfo.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;  // one queue family renders and presents
  createInfo.preTransform = capabilities.currentTransform;
  createInfo.compositeAlpha = chooseCompositeAlpha(capabilities);
  createInfo.presentMode = choosePresentMode(device, target.surface, vsync);
  createInfo.clipped = VK_TRUE;
  // The old swapchain lets the presentation engine hand its resources over;
  // it is retired by this call and destroyed below (its images were already
  // released by the caller's device-idle wait).
  createInfo.oldSwapchain = oldSwapchain;
  VK_CHECK(vkCreateSwapchainKHR(device.device, &createInfo, nullptr, &target.swapchain));
  if (oldSwapchain != VK_NULL_HANDLE) vkDestroySwapchainKHR(device.device, oldSwapchain, nullptr);

  target.extent = extent;
  target.presentMode = createInfo.presentMode;
  target.vsync = vsync;
  target.minImageCount = imageCount;
  prepareSwapchainRenderPass(device, target, surfaceFormat.format);
  createSwapchainImages(device, target);
  matchRenderFinishedToImages(device, target);
}

}  // namespace

SwapchainTarget createSwapchainTarget(const Device& device, VkSurfaceKHR surface, VkExtent2D framebufferSize,
                                      bool vsync) {
  SwapchainTarget target;
  target.surface = surface;
  buildSwapchain(device, target, framebufferSize, vsync);
  return target;
}

void recreateSwapchainTarget(const Device& device, SwapchainTarget& target, VkExtent2D framebufferSize,
                             bool vsync) {
  destroySwapchainImages(device, target);
  buildSwapchain(device, target, framebufferSize, vsync);
}

void destroySwapchainTarget(const Device& device, SwapchainTarget& target) {
  destroySwapchainImages(device, target);
  for (VkSemaphore semaphore : target.renderFinished) vkDestroySemaphore(device.device, semaphore, nullptr);
  if (target.swapchain != VK_NULL_HANDLE) vkDestroySwapchainKHR(device.device, target.swapchain, nullptr);
  if (target.renderPass != VK_NULL_HANDLE) vkDestroyRenderPass(device.device, target.renderPass, nullptr);
  target = SwapchainTarget{};
}

namespace {

// What acquire and present report alike. SUBOPTIMAL: the image was acquired
// (or queued), so the frame goes on and the swapchain is rebuilt afterwards.
// OUT_OF_DATE: acquire took nothing and left its semaphore untouched; present
// still executed its semaphore wait (VK_KHR_swapchain), so nothing is left
// signalled. Anything else is a failure.
SwapchainStatus swapchainStatus(const char* call, VkResult result) {
  switch (result) {
    case VK_SUCCESS:
      return SwapchainStatus::ok;
    case VK_SUBOPTIMAL_KHR:
      return SwapchainStatus::suboptimal;
    case VK_ERROR_OUT_OF_DATE_KHR:
      return SwapchainStatus::outOfDate;
    default:
      failVulkanCall(call, result, __FILE__, __LINE__);
  }
}

}  // namespace

SwapchainStatus acquireSwapchainImage(const Device& device, const SwapchainTarget& target,
                                      VkSemaphore imageAvailable, uint64_t timeoutNs, uint32_t* imageIndex) {
  const VkResult result = vkAcquireNextImageKHR(device.device, target.swapchain, timeoutNs, imageAvailable,
                                                VK_NULL_HANDLE, imageIndex);
  // Nothing acquired, imageAvailable untouched (VK_NOT_READY: timeoutNs == 0
  // and no image ready).
  if (result == VK_TIMEOUT || result == VK_NOT_READY) return SwapchainStatus::timeout;
  return swapchainStatus("vkAcquireNextImageKHR", result);
}

SwapchainStatus presentSwapchainImage(const Device& device, const SwapchainTarget& target,
                                      uint32_t imageIndex, uint64_t presentId) {
  VkPresentInfoKHR presentInfo{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  // VkPresentIdKHR: one id per swapchain in pSwapchains; chained only when
  // VK_KHR_present_id is enabled.
  VkPresentIdKHR presentIds{VK_STRUCTURE_TYPE_PRESENT_ID_KHR};
  if (presentId != 0 && device.presentWait) {
    presentIds.swapchainCount = 1;
    presentIds.pPresentIds = &presentId;
    presentInfo.pNext = &presentIds;
  }
  presentInfo.waitSemaphoreCount = 1;
  presentInfo.pWaitSemaphores = &target.renderFinished[imageIndex];
  presentInfo.swapchainCount = 1;
  presentInfo.pSwapchains = &target.swapchain;
  presentInfo.pImageIndices = &imageIndex;
  // Even when present reports OUT_OF_DATE the semaphore wait still executes
  // (VK_KHR_swapchain: the queue operations are still enqueued), so
  // renderFinished is never left signalled.
  return swapchainStatus("vkQueuePresentKHR", vkQueuePresentKHR(device.queue, &presentInfo));
}

PresentWaitStatus pollPresentDisplayed(const Device& device, const SwapchainTarget& target, uint64_t presentId) {
  // VK_KHR_present_wait: the wait ends once the swapchain's present id
  // reaches presentId, i.e. once that present or a later one is shown.
  const VkResult result = vkWaitForPresentKHR(device.device, target.swapchain, presentId, 0);
  if (result == VK_SUCCESS || result == VK_SUBOPTIMAL_KHR) return PresentWaitStatus::displayed;
  if (result == VK_TIMEOUT) return PresentWaitStatus::notYet;
  if (result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_ERROR_SURFACE_LOST_KHR ||
      result == VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT)
    return PresentWaitStatus::lost;
  VK_CHECK(result);  // device lost, out of memory: fails like every other call
  return PresentWaitStatus::lost;
}

}  // namespace vksim
