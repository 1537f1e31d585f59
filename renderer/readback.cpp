#include "renderer/readback.h"

#include <cstring>
#include <utility>

#include "renderer/frame_sync.h"
#include "renderer/gpu_buffer.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

bool isBgra(VkFormat format) {
  return format == VK_FORMAT_B8G8R8A8_UNORM || format == VK_FORMAT_B8G8R8A8_SRGB;
}
bool isRgba(VkFormat format) {
  return format == VK_FORMAT_R8G8B8A8_UNORM || format == VK_FORMAT_R8G8B8A8_SRGB;
}

// Where a read-back lands: host-visible and coherent, cached when the device
// offers it (the host reads every byte once, and uncached reads are slow).
GpuBuffer createReadbackStaging(const Device& device, VkDeviceSize bytes) {
  return createGpuBuffer(device, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
}

}  // namespace

RgbaImage readColorImage(const Device& device, VkImage image, VkImageLayout layout, VkFormat format,
                         VkExtent2D extent) {
  if (!isBgra(format) && !isRgba(format))
    throw RuntimeFailure("readColorImage: only 8-bit RGBA and BGRA images can be read back");
  // UNDEFINED cannot be restored afterwards (an image barrier's newLayout may
  // not be UNDEFINED) and would discard the contents anyway.
  if (layout == VK_IMAGE_LAYOUT_UNDEFINED)
    throw RuntimeFailure(
        "readColorImage: the image is in VK_IMAGE_LAYOUT_UNDEFINED and has no defined contents");

  RgbaImage result;
  result.width = extent.width;
  result.height = extent.height;
  const VkDeviceSize bytes = VkDeviceSize{extent.width} * extent.height * 4;
  GpuBuffer staging = createReadbackStaging(device, bytes);

  runOneTimeCommands(device, [&](VkCommandBuffer commandBuffer) {
    // Into TRANSFER_SRC after whatever wrote the image earlier in submission
    // order (a render pass, a present, another copy): the caller's work is
    // not known here, so the first scope is every stage's writes.
    VkImageMemoryBarrier toTransfer{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    toTransfer.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    toTransfer.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    toTransfer.oldLayout = layout;
    toTransfer.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    toTransfer.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    toTransfer.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    toTransfer.image = image;
    toTransfer.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         0, nullptr, 0, nullptr, 1, &toTransfer);

    VkBufferImageCopy region{};
    region.bufferOffset = 0;
    region.bufferRowLength = 0;  // tightly packed
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {extent.width, extent.height, 1};
    vkCmdCopyImageToBuffer(commandBuffer, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer, 1,
                           &region);

    // Back to the caller's layout once the copy has read it (write after
    // read: an execution dependency; the transition itself is ordered by it).
    VkImageMemoryBarrier back = toTransfer;
    back.srcAccessMask = 0;
    back.dstAccessMask = 0;
    back.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    back.newLayout = layout;
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                         0, nullptr, 0, nullptr, 1, &back);
    barrierTransferToHost(commandBuffer, staging.buffer);
  });

  // Bytes as stored: an sRGB image is read back encoded, like a UNORM one.
  result.pixels.resize(bytes);
  std::memcpy(result.pixels.data(), staging.mapped, bytes);
  destroyGpuBuffer(device, staging);
  if (isBgra(format))
    for (size_t i = 0; i < result.pixels.size(); i += 4) std::swap(result.pixels[i], result.pixels[i + 2]);
  return result;
}

std::vector<uint8_t> readBuffer(const Device& device, VkBuffer buffer, VkDeviceSize size) {
  GpuBuffer staging = createReadbackStaging(device, size);
  runOneTimeCommands(device, [&](VkCommandBuffer commandBuffer) {
    // After any earlier device write to the buffer in submission order.
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         1, &before, 0, nullptr, 0, nullptr);
    const VkBufferCopy region{0, 0, size};
    vkCmdCopyBuffer(commandBuffer, buffer, staging.buffer, 1, &region);
    barrierTransferToHost(commandBuffer, staging.buffer);
  });
  std::vector<uint8_t> bytes(size);
  std::memcpy(bytes.data(), staging.mapped, size);
  destroyGpuBuffer(device, staging);
  return bytes;
}

}  // namespace vksim
