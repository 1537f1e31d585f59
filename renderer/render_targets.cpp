#include "renderer/render_targets.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vk_enum_string_helper.h>

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

// Depth-only formats first: the stencil aspect is never used.
VkFormat chooseDepthFormat(const Device& device) {
  for (VkFormat format : {VK_FORMAT_D32_SFLOAT, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D16_UNORM,
                          VK_FORMAT_D32_SFLOAT_S8_UINT, VK_FORMAT_D24_UNORM_S8_UINT}) {
    VkFormatProperties properties{};
    vkGetPhysicalDeviceFormatProperties(device.physical, format, &properties);
    if (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) return format;
  }
  throw EnvironmentError("The Vulkan device '" + device.info.name + "' supports no depth attachment format.");
}

// A depth/stencil attachment's view covers every aspect of its format.
VkImageAspectFlags depthAspects(VkFormat format) {
  const bool stencil = format == VK_FORMAT_D32_SFLOAT_S8_UINT || format == VK_FORMAT_D24_UNORM_S8_UINT;
  return stencil ? VkImageAspectFlags{VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT}
                 : VkImageAspectFlags{VK_IMAGE_ASPECT_DEPTH_BIT};
}

// One colour and one depth attachment, both cleared. finalColorLayout is
// TRANSFER_SRC_OPTIMAL (offscreen: read back next) or PRESENT_SRC_KHR.
VkRenderPass createRenderPass(const Device& device, VkFormat colorFormat, VkFormat depthFormat,
                              VkImageLayout finalColorLayout) {
  std::array<VkAttachmentDescription, 2> attachments{};
  VkAttachmentDescription& color = attachments[0];
  color.format = colorFormat;
  color.samples = VK_SAMPLE_COUNT_1_BIT;
  color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;  // cleared: the old contents do not matter
  color.finalLayout = finalColorLayout;
  VkAttachmentDescription& depth = attachments[1];
  depth.format = depthFormat;
  depth.samples = VK_SAMPLE_COUNT_1_BIT;
  depth.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  depth.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  depth.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  depth.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  depth.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  depth.finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;

  const VkAttachmentReference colorReference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference depthReference{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &colorReference;
  subpass.pDepthStencilAttachment = &depthReference;

  const bool offscreen = finalColorLayout == VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  std::array<VkSubpassDependency, 2> dependencies{};
  // Into the pass. Colour: the swapchain image's acquire semaphore is waited
  // at COLOR_ATTACHMENT_OUTPUT, so the UNDEFINED -> COLOR_ATTACHMENT layout
  // transition must also wait for that stage (otherwise it may run before the
  // presentation engine has released the image). Offscreen, the previous
  // frame's copy out of the image (TRANSFER) must finish before the
  // transition overwrites it, and so must its colour writes: with two frames
  // in flight (base/config.h) nothing on the host separates them. Depth: the
  // one depth image is shared by successive frames, so this frame's clear
  // (EARLY_FRAGMENT_TESTS) must come after the previous frame's depth writes
  // (LATE_FRAGMENT_TESTS): write after write.
  VkSubpassDependency& into = dependencies[0];
  into.srcSubpass = VK_SUBPASS_EXTERNAL;
  into.dstSubpass = 0;
  into.srcStageMask =
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
      VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
      (offscreen ? VkPipelineStageFlags{VK_PIPELINE_STAGE_TRANSFER_BIT} : VkPipelineStageFlags{0});
  into.srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  into.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                      VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  into.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                       VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  // Out of the pass. Offscreen, a copy of the colour image recorded after the
  // pass must see its writes (the implicit external dependency has an empty
  // destination access scope). Present is ordered by renderFinished instead,
  // whose signal covers every earlier write; the dependency only has to
  // order the transition to PRESENT_SRC after the writes.
  VkSubpassDependency& outOf = dependencies[1];
  outOf.srcSubpass = 0;
  outOf.dstSubpass = VK_SUBPASS_EXTERNAL;
  outOf.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  outOf.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  outOf.dstStageMask = offscreen ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
  outOf.dstAccessMask = offscreen ? VkAccessFlags{VK_ACCESS_TRANSFER_READ_BIT} : VkAccessFlags{0};

  VkRenderPassCreateInfo createInfo{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  createInfo.attachmentCount = static_cast<uint32_t>(attachments.size());
  createInfo.pAttachments = attachments.data();
  createInfo.subpassCount = 1;
  createInfo.pSubpasses = &subpass;
  createInfo.dependencyCount = static_cast<uint32_t>(dependencies.size());
  createInfo.pDependencies = dependencies.data();
  VkRenderPass renderPass = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRenderPass(device.device, &createInfo, nullptr, &renderPass));
  return renderPass;
}

// A 2D image in its own device-local allocation, with a view of `aspect`.
void createImage(const Device& device, VkExtent2D extent, VkFormat format, VkImageUsageFlags usage,
                 VkImageAspectFlags aspect, VkImage* image, VkDeviceMemory* memory, VkImageView* view) {
  VkImageCreateInfo imageInfo{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  imageInfo.imageType = VK_IMAGE_TYPE_2D;
  imageInfo.format = format;
  imageInfo.extent = {extent.width, extent.height, 1};
  imageInfo.mipLevels = 1;
  imageInfo.arrayLayers = 1;
  imageInfo.samples = VK_SAMPLE_COUNT_1_BIT;
  imageInfo.tiling = VK_IMAGE_TILING_OPTIMAL;
  imageInfo.usage = usage;
  imageInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  imageInfo.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VK_CHECK(vkCreateImage(device.device, &imageInfo, nullptr, image));

  VkMemoryRequirements requirements{};
  vkGetImageMemoryRequirements(device.device, *image, &requirements);
  const uint32_t memoryType =
      findMemoryType(device, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (memoryType == UINT32_MAX) {
    vkDestroyImage(device.device, *image, nullptr);
    *image = VK_NULL_HANDLE;
    throw EnvironmentError("The Vulkan device '" + device.info.name +
                           "' has no device-local memory for images.");
  }
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex = memoryType;
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, memory));
  VK_CHECK(vkBindImageMemory(device.device, *image, *memory, 0));

  VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  viewInfo.image = *image;
  viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  viewInfo.format = format;
  viewInfo.subresourceRange = {aspect, 0, 1, 0, 1};
  VK_CHECK(vkCreateImageView(device.device, &viewInfo, nullptr, view));
}

VkImageView createColorView(const Device& device, VkImage image, VkFormat format) {
  VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  viewInfo.image = image;
  viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  viewInfo.format = format;
  viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImageView(device.device, &viewInfo, nullptr, &view));
  return view;
}

VkFramebuffer createFramebuffer(const Device& device, VkRenderPass renderPass, VkImageView color,
                                VkImageView depth, VkExtent2D extent) {
  const std::array<VkImageView, 2> views{color, depth};
  VkFramebufferCreateInfo createInfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  createInfo.renderPass = renderPass;
  createInfo.attachmentCount = static_cast<uint32_t>(views.size());
  createInfo.pAttachments = views.data();
  createInfo.width = extent.width;
  createInfo.height = extent.height;
  createInfo.layers = 1;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFramebuffer(device.device, &createInfo, nullptr, &framebuffer));
  return framebuffer;
}

void destroyImage(const Device& device, VkImage& image, VkDeviceMemory& memory, VkImageView& view) {
  if (view != VK_NULL_HANDLE) vkDestroyImageView(device.device, view, nullptr);
  if (image != VK_NULL_HANDLE) vkDestroyImage(device.device, image, nullptr);
  if (memory != VK_NULL_HANDLE) vkFreeMemory(device.device, memory, nullptr);
  view = VK_NULL_HANDLE;
  image = VK_NULL_HANDLE;
  memory = VK_NULL_HANDLE;
}

VkSurfaceFormatKHR chooseSurfaceFormat(const Device& device, VkSurfaceKHR surface) {
  const std::vector<VkSurfaceFormatKHR> formats = enumerate<VkSurfaceFormatKHR>(
      "vkGetPhysicalDeviceSurfaceFormatsKHR", [&](uint32_t* count, VkSurfaceFormatKHR* data) {
        return vkGetPhysicalDeviceSurfaceFormatsKHR(device.physical, surface, count, data);
      });
  if (formats.empty()) throw EnvironmentError("The window surface offers no image formats.");
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

// (Re)builds swapchain, views, depth, framebuffers and semaphores; the
// previous swapchain, if any, is handed over as oldSwapchain and destroyed.
void buildSwapchain(const Device& device, SwapchainTarget& target, VkExtent2D framebufferSize, bool vsync) {
  VkSurfaceCapabilitiesKHR capabilities{};
  VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device.physical, target.surface, &capabilities));

  // currentExtent is the window's size, or 0xFFFFFFFF when the surface lets
  // the swapchain decide (then the framebuffer size, clamped, is used).
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

  // One image more than the minimum, so the application need not wait for
  // the presentation engine to release one before acquiring the next.
  uint32_t imageCount = capabilities.minImageCount + 1;
  if (capabilities.maxImageCount != 0) imageCount = std::min(imageCount, capabilities.maxImageCount);

  const VkSurfaceFormatKHR surfaceFormat = chooseSurfaceFormat(device, target.surface);
  VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (capabilities.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT)
    usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  VkCompositeAlphaFlagBitsKHR compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  if (!(capabilities.supportedCompositeAlpha & compositeAlpha))
    for (VkCompositeAlphaFlagBitsKHR candidate :
         {VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR, VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR,
          VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR})
      if (capabilities.supportedCompositeAlpha & candidate) {
        compositeAlpha = candidate;
        break;
      }

  const VkSwapchainKHR oldSwapchain = target.swapchain;
  VkSwapchainCreateInfoKHR createInfo{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  createInfo.surface = target.surface;
  createInfo.minImageCount = imageCount;
  createInfo.imageFormat = surfaceFormat.format;
  createInfo.imageColorSpace = surfaceFormat.colorSpace;
  createInfo.imageExtent = extent;
  createInfo.imageArrayLayers = 1;
  createInfo.imageUsage = usage;
  createInfo.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;  // one queue family renders and presents
  createInfo.preTransform = capabilities.currentTransform;
  createInfo.compositeAlpha = compositeAlpha;
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

  if (target.renderPass != VK_NULL_HANDLE && target.colorFormat != surfaceFormat.format) {
    vkDestroyRenderPass(device.device, target.renderPass, nullptr);
    target.renderPass = VK_NULL_HANDLE;
  }
  target.colorFormat = surfaceFormat.format;
  if (target.depthFormat == VK_FORMAT_UNDEFINED) target.depthFormat = chooseDepthFormat(device);
  if (target.renderPass == VK_NULL_HANDLE)
    target.renderPass =
        createRenderPass(device, target.colorFormat, target.depthFormat, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);

  target.images = enumerate<VkImage>("vkGetSwapchainImagesKHR", [&](uint32_t* count, VkImage* data) {
    return vkGetSwapchainImagesKHR(device.device, target.swapchain, count, data);
  });

  const VkImageAspectFlags depthAspect = depthAspects(target.depthFormat);
  createImage(device, extent, target.depthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, depthAspect,
              &target.depth, &target.depthMemory, &target.depthView);
  for (VkImage image : target.images) {
    target.views.push_back(createColorView(device, image, target.colorFormat));
    target.framebuffers.push_back(
        createFramebuffer(device, target.renderPass, target.views.back(), target.depthView, extent));
  }

  // Semaphores are kept across recreation: a present may still hold one
  // (vkDeviceWaitIdle does not cover the presentation engine's waits), so only
  // the surplus is destroyed when the image count shrinks.
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

}  // namespace

void beginRenderPass(VkCommandBuffer commandBuffer, VkRenderPass renderPass, VkFramebuffer framebuffer,
                     VkExtent2D extent) {
  // One clear value per attachment, in attachment order (colour, depth).
  std::array<VkClearValue, 2> clearValues{};
  std::copy(std::begin(kBackgroundColor), std::end(kBackgroundColor), clearValues[0].color.float32);
  clearValues[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo beginInfo{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  beginInfo.renderPass = renderPass;
  beginInfo.framebuffer = framebuffer;
  beginInfo.renderArea = {{0, 0}, extent};
  beginInfo.clearValueCount = static_cast<uint32_t>(clearValues.size());
  beginInfo.pClearValues = clearValues.data();
  vkCmdBeginRenderPass(commandBuffer, &beginInfo, VK_SUBPASS_CONTENTS_INLINE);
}

OffscreenTarget createOffscreenTarget(const Device& device, VkExtent2D extent) {
  OffscreenTarget target;
  target.extent = extent;
  target.colorFormat = VK_FORMAT_R8G8B8A8_UNORM;
  target.depthFormat = chooseDepthFormat(device);
  target.renderPass =
      createRenderPass(device, target.colorFormat, target.depthFormat, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  createImage(device, extent, target.colorFormat,
              VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
              VK_IMAGE_ASPECT_COLOR_BIT, &target.color, &target.colorMemory, &target.colorView);
  const VkImageAspectFlags depthAspect = depthAspects(target.depthFormat);
  createImage(device, extent, target.depthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, depthAspect,
              &target.depth, &target.depthMemory, &target.depthView);
  target.framebuffer =
      createFramebuffer(device, target.renderPass, target.colorView, target.depthView, extent);
  return target;
}

void destroyOffscreenTarget(const Device& device, OffscreenTarget& target) {
  if (target.framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device.device, target.framebuffer, nullptr);
  destroyImage(device, target.depth, target.depthMemory, target.depthView);
  destroyImage(device, target.color, target.colorMemory, target.colorView);
  if (target.renderPass != VK_NULL_HANDLE) vkDestroyRenderPass(device.device, target.renderPass, nullptr);
  target = OffscreenTarget{};
}

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
