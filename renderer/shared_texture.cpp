#include "renderer/shared_texture.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "renderer/debug_names.h"
#include "renderer/frame_sync.h"
#include "renderer/gpu_buffer.h"
#include "renderer/vk_check.h"
#include "shared_layout.h"

namespace vksim {
namespace {

constexpr VkExternalMemoryHandleTypeFlagBits kTextureMemoryHandleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

VkImageMemoryBarrier imageBarrier(const SharedTexture& texture, VkImageLayout oldLayout, VkImageLayout newLayout) {
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.oldLayout = oldLayout;
  barrier.newLayout = newLayout;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = texture.image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, texture.levels, 0, 1};
  return barrier;
}

// The one-time preparation of createSharedTexture (see the header).
void prepareTexture(const Device& device, const SharedTexture& texture) {
  runOneTimeCommands(device, [&](VkCommandBuffer commandBuffer) {
    if (texture.writer == TextureWriter::external) {
      // UNDEFINED -> GENERAL before the other API writes anything: a layout
      // transition may rewrite the memory, so it must not happen after
      // CUDA's first write. Then the release to VK_QUEUE_FAMILY_EXTERNAL in
      // the same layout: the image is the other API's from the start, as the
      // vertex buffer is once the simulation writes its initial state.
      VkImageMemoryBarrier toGeneral = imageBarrier(texture, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL);
      vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                           0, 0, nullptr, 0, nullptr, 1, &toGeneral);
      // The classic release (rule M21; no maintenance8 flag, rule M22) on every device: this
      // one-time submission is fenced before anyone imports the image, so
      // narrow stages would gain nothing, and its first scope must cover the
      // transition above (ALL_COMMANDS).
      recordTextureRelease(commandBuffer, texture, device.queueFamily,
                           externalReleaseStages(false, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT));
      return;
    }
    // Cleared so that a render before the first upload (or the placeholder,
    // never uploaded) samples defined zeros.
    VkImageMemoryBarrier toTransfer =
        imageBarrier(texture, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    toTransfer.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &toTransfer);
    const VkClearColorValue zero{};
    const VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, texture.levels, 0, 1};
    vkCmdClearColorImage(commandBuffer, texture.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &range);
    VkImageMemoryBarrier toSampled = imageBarrier(texture, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                                  VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    toSampled.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toSampled.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0,
                         0, nullptr, 0, nullptr, 1, &toSampled);
  });
}

// External-memory image support for exactly the image createSharedTexture
// makes: the answer depends on format, type, tiling, usage and handle type.
VkExternalMemoryProperties externalImageProperties(const Device& device) {
  VkPhysicalDeviceExternalImageFormatInfo externalInfo{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO};
  externalInfo.handleType = kTextureMemoryHandleType;
  VkPhysicalDeviceImageFormatInfo2 formatInfo{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2};
  formatInfo.pNext = &externalInfo;
  formatInfo.format = kSurfaceTextureFormat;
  formatInfo.type = VK_IMAGE_TYPE_2D;
  formatInfo.tiling = VK_IMAGE_TILING_OPTIMAL;
  formatInfo.usage = kSurfaceTextureUsage;
  VkExternalImageFormatProperties externalProperties{VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
  VkImageFormatProperties2 properties{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2};
  properties.pNext = &externalProperties;
  if (vkGetPhysicalDeviceImageFormatProperties2(device.physical, &formatInfo, &properties) != VK_SUCCESS)
    return {};
  return externalProperties.externalMemoryProperties;
}

// As for the vertex buffer: memory exported as opaque fd may only be bound
// to an image created with that handle type (VUID-vkBindImageMemory-memory-02728),
// and the declaration may change the image's memory requirements. Optimal
// tiling: the importer maps it as a CUDA array, whose layout the driver
// knows, never as linear memory (rules M20, M2).
void createTextureImage(const Device& device, SharedTexture& texture, bool external) {
  VkExternalMemoryImageCreateInfo externalInfo{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
  externalInfo.handleTypes = kTextureMemoryHandleType;
  VkImageCreateInfo imageInfo{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  imageInfo.pNext = external ? &externalInfo : nullptr;
  // The render-queue backends' shaders store packed texels through R32_UINT
  // views of this RGBA8 image (a size-compatible format, which only a
  // mutable-format image may be viewed as): bit for bit, where a float store
  // through the UNORM format would round as the implementation chooses.
  if (texture.writer == TextureWriter::queueCompute) imageInfo.flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
  imageInfo.imageType = VK_IMAGE_TYPE_2D;
  imageInfo.format = kSurfaceTextureFormat;
  imageInfo.extent = {texture.width, texture.height, 1};
  imageInfo.mipLevels = texture.levels;
  imageInfo.arrayLayers = 1;
  imageInfo.samples = VK_SAMPLE_COUNT_1_BIT;
  imageInfo.tiling = VK_IMAGE_TILING_OPTIMAL;
  imageInfo.usage = kSurfaceTextureUsage;  // what textureExportable asked about
  imageInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  imageInfo.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VK_CHECK(vkCreateImage(device.device, &imageInfo, nullptr, &texture.image));
}

// Allocates the image's memory (exportable when external) and binds it; on
// failure destroys what the texture holds so far.
void allocateTextureMemory(const Device& device, SharedTexture& texture, bool external) {
  VkMemoryRequirements requirements{};
  vkGetImageMemoryRequirements(device.device, texture.image, &requirements);
  texture.allocationSize = requirements.size;
  const uint32_t memoryType =
      findMemoryType(device, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (memoryType == UINT32_MAX) {
    destroySharedTexture(device, texture);
    throw EnvironmentError("The Vulkan device '" + device.info.name +
                           "' has no device-local memory type for the surface texture.");
  }
  // Exported: a dedicated allocation, always (required where the driver
  // reports DEDICATED_ONLY, VUID-VkMemoryAllocateInfo-pNext-00639, allowed
  // everywhere), and the importer is told so (cudaExternalMemoryDedicated; rule M5).
  VkMemoryDedicatedAllocateInfo dedicatedInfo{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicatedInfo.image = texture.image;
  VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};  // rule M20
  exportInfo.pNext = &dedicatedInfo;
  exportInfo.handleTypes = kTextureMemoryHandleType;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.pNext = external ? &exportInfo : nullptr;
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex = memoryType;
  if (const VkResult allocated = vkAllocateMemory(device.device, &allocateInfo, nullptr, &texture.memory);
      allocated != VK_SUCCESS) {
    texture.memory = VK_NULL_HANDLE;
    destroySharedTexture(device, texture);
    failVulkanCall("vkAllocateMemory", allocated, __FILE__, __LINE__);
  }
  texture.dedicated = external;
  VK_CHECK(vkBindImageMemory(device.device, texture.image, texture.memory, 0));
}

void createTextureView(const Device& device, SharedTexture& texture) {
  VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  viewInfo.image = texture.image;
  viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  viewInfo.format = kSurfaceTextureFormat;
  viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, texture.levels, 0, 1};
  VK_CHECK(vkCreateImageView(device.device, &viewInfo, nullptr, &texture.view));
}

// Trilinear: linear within a level and between the two nearest levels, so
// every level the simulation writes shows where the surface shrinks on
// screen. No anisotropy (an optional feature), which also makes the lower
// levels show sooner at grazing angles.
void createTextureSampler(const Device& device, SharedTexture& texture) {
  VkSamplerCreateInfo samplerInfo{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  samplerInfo.magFilter = VK_FILTER_LINEAR;
  samplerInfo.minFilter = VK_FILTER_LINEAR;
  samplerInfo.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
  samplerInfo.addressModeU = samplerInfo.addressModeV = samplerInfo.addressModeW =
      VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  samplerInfo.minLod = 0.0f;
  samplerInfo.maxLod = static_cast<float>(texture.levels);
  VK_CHECK(vkCreateSampler(device.device, &samplerInfo, nullptr, &texture.sampler));
}

// The set layout, a pool of one set, and the set pointing at the view and sampler.
void createTextureDescriptorSet(const Device& device, SharedTexture& texture) {
  texture.setLayout = createSurfaceTextureSetLayout(device);
  const VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VK_CHECK(vkCreateDescriptorPool(device.device, &poolInfo, nullptr, &texture.pool));
  VkDescriptorSetAllocateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  setInfo.descriptorPool = texture.pool;
  setInfo.descriptorSetCount = 1;
  setInfo.pSetLayouts = &texture.setLayout;
  VK_CHECK(vkAllocateDescriptorSets(device.device, &setInfo, &texture.set));
  // The layout named here must be the image's layout whenever the mesh
  // samples it: GENERAL for an external texture, SHADER_READ_ONLY otherwise.
  const VkDescriptorImageInfo imageDescriptor{texture.sampler, texture.view, texture.sampledLayout};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = texture.set;
  write.dstBinding = static_cast<uint32_t>(kSurfaceTextureBinding);
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  write.pImageInfo = &imageDescriptor;
  vkUpdateDescriptorSets(device.device, 1, &write, 0, nullptr);
}

}  // namespace

VkDescriptorSetLayout createSurfaceTextureSetLayout(const Device& device) {
  VkDescriptorSetLayoutBinding binding{};
  binding.binding = static_cast<uint32_t>(kSurfaceTextureBinding);
  binding.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  binding.descriptorCount = 1;
  binding.stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  VkDescriptorSetLayoutCreateInfo createInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  createInfo.bindingCount = 1;
  createInfo.pBindings = &binding;
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorSetLayout(device.device, &createInfo, nullptr, &layout));
  return layout;
}

bool textureExportable(const Device& device) {
  if (!device.exportMemory) return false;
  return (externalImageProperties(device).externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;
}

SharedTexture createSharedTexture(const Device& device, uint32_t width, uint32_t height, uint32_t levels,
                                  TextureWriter writer) {
  const bool external = writer == TextureWriter::external;
  if (external && !textureExportable(device))
    throw EnvironmentError("The Vulkan device '" + device.info.name +
                           "' cannot export an RGBA8 storage image's memory as an opaque fd.");
  if (writer == TextureWriter::placeholder) width = height = levels = 1;
  if (width == 0 || height == 0 || levels == 0)
    throw RuntimeFailure("createSharedTexture: a texture needs a size and at least one level");

  SharedTexture texture;
  texture.writer = writer;
  texture.width = width;
  texture.height = height;
  texture.levels = levels;
  texture.sampledLayout = external ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
  createTextureImage(device, texture, external);
  allocateTextureMemory(device, texture, external);
  createTextureView(device, texture);
  createTextureSampler(device, texture);
  createTextureDescriptorSet(device, texture);
  prepareTexture(device, texture);
  nameObject(device.device, texture.image,
             external ? "surface texture (exported, sim writes)"
             : writer == TextureWriter::placeholder  ? "surface texture (placeholder)"
             : writer == TextureWriter::queueCompute ? "surface texture (render-queue compute writes)"
             : writer == TextureWriter::externalBufferCopy ? "surface texture (copied from the exported texel buffer)"
                                                     : "surface texture");
  nameObject(device.device, texture.memory, external ? "surface texture memory (exported as opaque fd)"
                                                     : "surface texture memory");
  return texture;
}

void destroySharedTexture(const Device& device, SharedTexture& texture) {
  // The pool frees its set. An importer must have released the memory first
  // (CUDA: the mipmapped array, then the external memory).
  if (texture.pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device.device, texture.pool, nullptr);
  if (texture.setLayout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device.device, texture.setLayout, nullptr);
  if (texture.sampler != VK_NULL_HANDLE) vkDestroySampler(device.device, texture.sampler, nullptr);
  if (texture.view != VK_NULL_HANDLE) vkDestroyImageView(device.device, texture.view, nullptr);
  if (texture.image != VK_NULL_HANDLE) vkDestroyImage(device.device, texture.image, nullptr);
  if (texture.memory != VK_NULL_HANDLE) vkFreeMemory(device.device, texture.memory, nullptr);
  texture = SharedTexture{};
}

int exportTextureMemoryFd(const Device& device, const SharedTexture& texture) {
  if (texture.writer != TextureWriter::external)
    throw RuntimeFailure("exportTextureMemoryFd: the texture was not created for export");
  VkMemoryGetFdInfoKHR getInfo{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  getInfo.memory = texture.memory;
  getInfo.handleType = kTextureMemoryHandleType;  // named at allocation (VUID-VkMemoryGetFdInfoKHR-handleType-00671)
  int fd = -1;
  VK_CHECK(vkGetMemoryFdKHR(device.device, &getInfo, &fd));  // a new fd each call (rule M9)
  return fd;
}

// Write after read, then read after write. The old layout is
// SHADER_READ_ONLY (where the previous frame, or the clear, left it), not
// UNDEFINED: every level is rewritten, but keeping it makes the contents
// defined at every point, read-backs included.
void recordTextureUpload(VkCommandBuffer commandBuffer, const SharedTexture& texture, VkBuffer staging,
                         std::span<const TextureLevelCopy> levels) {
  VkImageMemoryBarrier toTransfer = imageBarrier(texture, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
  toTransfer.srcAccessMask = 0;  // the previous frame only read it: an execution dependency suffices
  toTransfer.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                       0, nullptr, 0, nullptr, 1, &toTransfer);
  std::vector<VkBufferImageCopy> regions;
  regions.reserve(levels.size());
  for (const TextureLevelCopy& level : levels) {
    VkBufferImageCopy region{};
    region.bufferOffset = level.offset;
    region.bufferRowLength = 0;  // tightly packed
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level.level, 0, 1};
    region.imageExtent = {std::max(texture.width >> level.level, 1u), std::max(texture.height >> level.level, 1u),
                          1};
    regions.push_back(region);
  }
  vkCmdCopyBufferToImage(commandBuffer, staging, texture.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         static_cast<uint32_t>(regions.size()), regions.data());
  VkImageMemoryBarrier toSampled = imageBarrier(texture, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  toSampled.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  toSampled.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0,
                       0, nullptr, 0, nullptr, 1, &toSampled);
}

// As the vertex buffer's acquire (rules M21, M22; app/interop/grid_resources.cpp): the
// stages and flags come from externalAcquireStages (without maintenance8 the
// source stage is ALL_COMMANDS, to chain with the semaphore wait at
// ALL_COMMANDS), srcAccessMask is 0 because the other API's signal made its
// writes available. oldLayout == newLayout == GENERAL: no transition.
void recordTextureAcquire(VkCommandBuffer commandBuffer, const SharedTexture& texture, uint32_t queueFamily,
                          const ExternalTransferStages& stages, VkAccessFlags dstAccess) {
  VkImageMemoryBarrier barrier = imageBarrier(texture, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL);
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  barrier.dstQueueFamilyIndex = queueFamily;
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(commandBuffer, stages.srcStageMask, stages.dstStageMask, stages.dependencyFlags, 0, nullptr,
                       0, nullptr, 1, &barrier);
}

// The first scope is what `stages` names (the frame's sampling, or at
// creation the layout transition before it); reads need no availability
// operation. The semaphore signal later in the batch orders the other API's
// writes after it (rules M21, M22).
void recordTextureRelease(VkCommandBuffer commandBuffer, const SharedTexture& texture, uint32_t queueFamily,
                          const ExternalTransferStages& stages) {
  VkImageMemoryBarrier barrier = imageBarrier(texture, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL);
  barrier.srcQueueFamilyIndex = queueFamily;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  vkCmdPipelineBarrier(commandBuffer, stages.srcStageMask, stages.dstStageMask, stages.dependencyFlags, 0, nullptr,
                       0, nullptr, 1, &barrier);
}

std::vector<uint8_t> readTextureLevel(const Device& device, const SharedTexture& texture, uint32_t level) {
  if (level >= texture.levels) throw RuntimeFailure("readTextureLevel: no level " + std::to_string(level));
  const uint32_t width = std::max(texture.width >> level, 1u);
  const uint32_t height = std::max(texture.height >> level, 1u);
  const VkDeviceSize bytes = VkDeviceSize{width} * height * 4;
  GpuBuffer staging = createGpuBuffer(device, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                      VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  runOneTimeCommands(device, [&](VkCommandBuffer commandBuffer) {
    // After whatever wrote it earlier in submission order (an upload, or the
    // acquire that made the other API's writes visible).
    VkImageMemoryBarrier toTransfer =
        imageBarrier(texture, texture.sampledLayout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    toTransfer.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    toTransfer.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &toTransfer);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
    region.imageExtent = {width, height, 1};
    vkCmdCopyImageToBuffer(commandBuffer, texture.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer, 1,
                           &region);
    VkImageMemoryBarrier back =
        imageBarrier(texture, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, texture.sampledLayout);
    back.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;  // the transition's writes
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0,
                         nullptr, 0, nullptr, 1, &back);
    barrierTransferToHost(commandBuffer, staging.buffer);
  });
  std::vector<uint8_t> texels(bytes);
  std::memcpy(texels.data(), staging.mapped, bytes);
  destroyGpuBuffer(device, staging);
  return texels;
}

}  // namespace vksim
