#include "sim/vulkan/surface_texture_writer.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>

#include "sim/vulkan/compute_pipeline.h"
#include "sim/vulkan/compute_shaders.h"
#include "sim/vulkan/texture_layout.h"

namespace vksim {
namespace {

uint32_t levelExtent(const QueueTextureTarget& target, uint32_t level) { return std::max(target.grid >> level, 1u); }

// R32_UINT over one RGBA8 level: the same 32 bits a texel (R8G8B8A8 and
// R32 are size-compatible, which MUTABLE_FORMAT allows), so the shaders'
// packed words land as the CPU reference's bytes. Storage usage only
// (VkImageViewUsageCreateInfo): the mesh samples the image's own RGBA8 view.
VkResult createLevelView(VkDevice device, VkImage image, uint32_t level, VkImageView* view) {
  VkImageViewUsageCreateInfo usageInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO};
  usageInfo.usage = VK_IMAGE_USAGE_STORAGE_BIT;
  VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  viewInfo.pNext = &usageInfo;
  viewInfo.image = image;
  viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  viewInfo.format = VK_FORMAT_R32_UINT;
  viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, level, 1, 0, 1};
  return vkCreateImageView(device, &viewInfo, nullptr, view);
}

VkResult createSetLayout(VkDevice device, SurfaceTextureWriter& writer) {
  std::array<VkDescriptorSetLayoutBinding, 3> bindings{};
  bindings[0] = {kTextureVertexBinding, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  bindings[1] = {kTextureSourceBinding, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  bindings[2] = {kTextureTargetBinding, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kTextureLevelsADispatch,
                 VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  if (VkResult made = createComputeSetLayout(device, bindings, &writer.setLayout); made != VK_SUCCESS) return made;
  // One push constant, the downsample's level count; the shaders take each
  // level's extent from its view (imageSize).
  return createComputeLayout(device, std::span<const VkDescriptorSetLayout>(&writer.setLayout, 1), sizeof(uint32_t),
                             &writer.layout);
}

// One set a level: set L writes levels L .. L+4 from level L-1 (level 0
// from the vertices; its source slot names level 0 itself, never read).
// Every slot is filled, so each set is complete whichever shader binds it:
// the target slots past the last level repeat it, and the shaders write
// only the levels they are told to.
VkResult createSets(VkDevice device, VkBuffer vertexBuffer, VkDeviceSize vertexBytes, SurfaceTextureWriter& writer) {
  const uint32_t levels = writer.target.levels;
  const std::array<VkDescriptorPoolSize, 2> poolSizes{
      VkDescriptorPoolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, levels},
      VkDescriptorPoolSize{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, (1 + kTextureLevelsADispatch) * levels}};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = levels;
  poolInfo.poolSizeCount = uint32_t(poolSizes.size());
  poolInfo.pPoolSizes = poolSizes.data();
  if (VkResult made = vkCreateDescriptorPool(device, &poolInfo, nullptr, &writer.pool); made != VK_SUCCESS)
    return made;
  const std::vector<VkDescriptorSetLayout> layouts(levels, writer.setLayout);
  writer.sets.resize(levels);
  VkDescriptorSetAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  allocateInfo.descriptorPool = writer.pool;
  allocateInfo.descriptorSetCount = levels;
  allocateInfo.pSetLayouts = layouts.data();
  if (VkResult made = vkAllocateDescriptorSets(device, &allocateInfo, writer.sets.data()); made != VK_SUCCESS)
    return made;
  const VkDescriptorBufferInfo vertices{vertexBuffer, 0, vertexBytes};
  for (uint32_t level = 0; level < levels; ++level) {
    const VkDescriptorImageInfo source{VK_NULL_HANDLE, writer.levelViews[level == 0 ? 0 : level - 1],
                                       VK_IMAGE_LAYOUT_GENERAL};
    std::array<VkDescriptorImageInfo, kTextureLevelsADispatch> targets{};
    for (uint32_t k = 0; k < kTextureLevelsADispatch; ++k)
      targets[k] = {VK_NULL_HANDLE, writer.levelViews[std::min(level + k, levels - 1)], VK_IMAGE_LAYOUT_GENERAL};
    std::array<VkWriteDescriptorSet, 3> writes{};
    for (VkWriteDescriptorSet& write : writes) {
      write = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      write.dstSet = writer.sets[level];
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    }
    writes[0].dstBinding = kTextureVertexBinding;
    writes[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[0].pBufferInfo = &vertices;
    writes[1].dstBinding = kTextureSourceBinding;
    writes[1].pImageInfo = &source;
    writes[2].dstBinding = kTextureTargetBinding;
    writes[2].descriptorCount = kTextureLevelsADispatch;
    writes[2].pImageInfo = targets.data();
    vkUpdateDescriptorSets(device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  }
  return VK_SUCCESS;
}

VkImageMemoryBarrier layoutBarrier(const QueueTextureTarget& target, VkImageLayout oldLayout,
                                   VkImageLayout newLayout) {
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.oldLayout = oldLayout;
  barrier.newLayout = newLayout;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = target.image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, target.levels, 0, 1};
  return barrier;
}

}  // namespace

Result<SurfaceTextureWriter> createSurfaceTextureWriter(VkDevice device, VkBuffer vertexBuffer,
                                                        VkDeviceSize vertexBytes, const QueueTextureTarget& target) {
  SurfaceTextureWriter writer;
  writer.target = target;
  writer.levelViews.assign(target.levels, VK_NULL_HANDLE);
  VkResult made = VK_SUCCESS;
  for (uint32_t level = 0; level < target.levels && made == VK_SUCCESS; ++level)
    made = createLevelView(device, target.image, level, &writer.levelViews[level]);
  if (made == VK_SUCCESS) made = createSetLayout(device, writer);
  if (made == VK_SUCCESS) made = createSets(device, vertexBuffer, vertexBytes, writer);
  if (made == VK_SUCCESS) made = createComputePipeline(device, writer.layout, kSurfaceTexelsCompSpirv, &writer.texelsPipeline);
  if (made == VK_SUCCESS)
    made = createComputePipeline(device, writer.layout, kDownsampleTexelsCompSpirv, &writer.downsamplePipeline);
  if (made == VK_SUCCESS)
    made = createComputePipeline(device, writer.layout, kDownsampleLevelsCompSpirv, &writer.levelsPipeline);
  if (made != VK_SUCCESS) {
    destroySurfaceTextureWriter(device, writer);
    return fail("could not create the surface texture's compute shaders (VkResult " + std::to_string(made) + ")",
                kExitEnvironment);
  }
  return writer;
}

void destroySurfaceTextureWriter(VkDevice device, SurfaceTextureWriter& writer) {
  if (writer.texelsPipeline) vkDestroyPipeline(device, writer.texelsPipeline, nullptr);
  if (writer.downsamplePipeline) vkDestroyPipeline(device, writer.downsamplePipeline, nullptr);
  if (writer.levelsPipeline) vkDestroyPipeline(device, writer.levelsPipeline, nullptr);
  if (writer.pool) vkDestroyDescriptorPool(device, writer.pool, nullptr);  // frees the sets
  if (writer.layout) vkDestroyPipelineLayout(device, writer.layout, nullptr);
  if (writer.setLayout) vkDestroyDescriptorSetLayout(device, writer.setLayout, nullptr);
  for (VkImageView view : writer.levelViews)
    if (view) vkDestroyImageView(device, view, nullptr);
  writer = SurfaceTextureWriter{};
}

void recordSurfaceTextureWrite(VkCommandBuffer commandBuffer, const SurfaceTextureWriter& writer) {
  recordSurfaceTextureBegin(commandBuffer, writer);
  recordSurfaceTextureLevels(commandBuffer, writer, 0);
  recordSurfaceTextureEnd(commandBuffer, writer);
}

void recordSurfaceTextureBegin(VkCommandBuffer commandBuffer, const SurfaceTextureWriter& writer) {
  const QueueTextureTarget& target = writer.target;
  // Read after write: level 0 reads the vertices the step's shaders or
  // kernels just wrote. Write after read: the image may change layout and be
  // written only once the earlier renders' fragment shaders have sampled it
  // (an execution dependency suffices; the move from SHADER_READ_ONLY keeps
  // the contents defined for a paused step's render, which writes nothing).
  VkMemoryBarrier vertices{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  vertices.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  vertices.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  VkImageMemoryBarrier toGeneral =
      layoutBarrier(target, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
  toGeneral.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &vertices, 0, nullptr, 1, &toGeneral);
}

void recordSurfaceTextureLevels(VkCommandBuffer commandBuffer, const SurfaceTextureWriter& writer,
                                uint32_t firstLevel) {
  const QueueTextureTarget& target = writer.target;
  // Level 0 (from the vertices) and each level wider than
  // kTextureLevelsFusedExtent, one texel an invocation; then the levels
  // below, up to kTextureLevelsADispatch a dispatch.
  for (uint32_t level = firstLevel; level < target.levels;) {
    const bool fused = level > 0 && levelExtent(target, level) <= kTextureLevelsFusedExtent;
    const uint32_t count = fused ? std::min(kTextureLevelsADispatch, target.levels - level) : 1;
    if (level > 0) {
      // Level L reads what the dispatch that wrote level L-1 wrote.
      VkMemoryBarrier above{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      above.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      above.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
      vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                           0, 1, &above, 0, nullptr, 0, nullptr);
    }
    vkCmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE,
                      level == 0 ? writer.texelsPipeline
                      : fused    ? writer.levelsPipeline
                                 : writer.downsamplePipeline);
    vkCmdBindDescriptorSets(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, writer.layout, 0, 1, &writer.sets[level],
                            0, nullptr);
    vkCmdPushConstants(commandBuffer, writer.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(count), &count);
    // A workgroup a tile of kTextureGroupSize texels a side of the first level written.
    const uint32_t groups = (levelExtent(target, level) + kTextureGroupSize - 1) / kTextureGroupSize;
    vkCmdDispatch(commandBuffer, groups, groups, 1);
    level += count;
  }
}

void recordSurfaceTextureEnd(VkCommandBuffer commandBuffer, const SurfaceTextureWriter& writer) {
  const QueueTextureTarget& target = writer.target;
  // Read after write: the next renders' fragment shaders sample every level.
  VkImageMemoryBarrier toSampled =
      layoutBarrier(target, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  toSampled.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  toSampled.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0,
                       0, nullptr, 0, nullptr, 1, &toSampled);
}

}  // namespace vksim
