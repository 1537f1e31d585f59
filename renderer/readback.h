// Blocking copies from the GPU to the host, for screenshots and vertex dumps.
// Outside the frame loop only: each waits (bounded) for its own submission.
#pragma once
#include <volk.h>

#include <cstdint>
#include <vector>

#include "renderer/vulkan_context.h"

namespace vksim {

struct RgbaImage {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> pixels;  // width*height*4, RGBA, top row first
};

// Copies a colour image (currently in `layout`, left in it afterwards) into
// tightly packed RGBA8, swizzling B8G8R8A8 formats; sRGB and UNORM formats
// alike come back as the bytes stored. The image needs TRANSFER_SRC usage,
// one mip level and layer, a defined layout (not UNDEFINED), and must be owned
// by the application (a swapchain image between acquire and present). It is
// read after every device write submitted earlier on device.queue. Other
// formats throw RuntimeFailure.
RgbaImage readColorImage(const Device& device, VkImage image, VkImageLayout layout, VkFormat format,
                         VkExtent2D extent);

// Copies `size` bytes from the start of a buffer with TRANSFER_SRC usage,
// after every device write submitted earlier on device.queue.
std::vector<uint8_t> readBuffer(const Device& device, VkBuffer buffer, VkDeviceSize size);

}  // namespace vksim
