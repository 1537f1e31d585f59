#include "renderer/render_targets.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

#include "renderer/attachments.h"
#include "renderer/vk_check.h"

namespace vksim {

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

// A 2D image in its own device-local allocation, with a view of the
// description's aspect.
void createImage(const Device& device, const ImageDescription& description, VkImage& image,
                 VkDeviceMemory& memory, VkImageView& view) {
  const VkExtent2D extent = description.extent;
  VkImageCreateInfo imageInfo{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  imageInfo.imageType = VK_IMAGE_TYPE_2D;
  imageInfo.format = description.format;
  imageInfo.extent = {extent.width, extent.height, 1};
  imageInfo.mipLevels = 1;
  imageInfo.arrayLayers = 1;
  imageInfo.samples = VK_SAMPLE_COUNT_1_BIT;
  imageInfo.tiling = VK_IMAGE_TILING_OPTIMAL;
  imageInfo.usage = description.usage;
  imageInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  imageInfo.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VK_CHECK(vkCreateImage(device.device, &imageInfo, nullptr, &image));

  VkMemoryRequirements requirements{};
  vkGetImageMemoryRequirements(device.device, image, &requirements);
  const uint32_t memoryType =
      findMemoryType(device, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (memoryType == UINT32_MAX) {
    vkDestroyImage(device.device, image, nullptr);
    image = VK_NULL_HANDLE;
    throw EnvironmentError("The Vulkan device '" + device.info.name +
                           "' has no device-local memory for images.");
  }
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex = memoryType;
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, &memory));
  VK_CHECK(vkBindImageMemory(device.device, image, memory, 0));

  VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  viewInfo.image = image;
  viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  viewInfo.format = description.format;
  viewInfo.subresourceRange = {description.aspect, 0, 1, 0, 1};
  VK_CHECK(vkCreateImageView(device.device, &viewInfo, nullptr, &view));
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
  createImage(device,
              {extent, target.colorFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
               VK_IMAGE_ASPECT_COLOR_BIT},
              target.color, target.colorMemory, target.colorView);
  const VkImageAspectFlags depthAspect = depthAspects(target.depthFormat);
  createImage(device, {extent, target.depthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, depthAspect},
              target.depth, target.depthMemory, target.depthView);
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

}  // namespace vksim
