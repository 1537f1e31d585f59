// The pieces that both render targets build from (render_targets.cpp for the
// offscreen target, swapchain.cpp for the window's): a depth format, the
// render pass, images in their own memory, views and framebuffers. Internal
// to renderer/.
#pragma once
#include <volk.h>

#include "renderer/vulkan_context.h"

namespace vksim {

VkFormat chooseDepthFormat(const Device& device);
VkImageAspectFlags depthAspects(VkFormat format);
VkRenderPass createRenderPass(const Device& device, VkFormat colorFormat, VkFormat depthFormat,
                              VkImageLayout finalColorLayout);

// What createImage makes: a 2D image of one mip level and one layer.
struct ImageDescription {
  VkExtent2D extent;
  VkFormat format;
  VkImageUsageFlags usage;
  VkImageAspectFlags aspect;  // of its view
};

void createImage(const Device& device, const ImageDescription& description, VkImage& image,
                 VkDeviceMemory& memory, VkImageView& view);
void destroyImage(const Device& device, VkImage& image, VkDeviceMemory& memory, VkImageView& view);
VkImageView createColorView(const Device& device, VkImage image, VkFormat format);
VkFramebuffer createFramebuffer(const Device& device, VkRenderPass renderPass, VkImageView color,
                                VkImageView depth, VkExtent2D extent);

}  // namespace vksim
