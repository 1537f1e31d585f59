// Internal to sim/vulkan/ and sim/cuda_nvx/: the surface texture
// (sim/surface_texture.h) written with Vulkan compute in the render's queue,
// after the step that wrote the vertices, for both render-queue backends.
// Level 0 from the vertices (surface_texels.comp), unless the step wrote it
// (the ripple steps: recordSurfaceTextureBegin, recordSurfaceTextureLevels
// and recordSurfaceTextureEnd below), each level below from the one above
// (downsample_texels.comp for the wide levels, downsample_levels.comp up to
// five levels a dispatch below them; cuda-nvx's ripple step uses its own
// kernels),
// every byte equal to the CPU reference's (writeSurfaceTexture) for the
// same vertices.
#pragma once
#include <volk.h>

#include <cstdint>
#include <vector>

#include "base/result.h"

namespace vksim {

// The image the writer writes, owned by app/ and alive longer than the
// writer: 2D, VK_FORMAT_R8G8B8A8_UNORM, `grid` x `grid` with `levels` levels
// (each side max(1, grid >> level)), created with
// VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT (the writer stores through R32_UINT
// views) and STORAGE usage, in SHADER_READ_ONLY_OPTIMAL whenever no step
// runs.
struct QueueTextureTarget {
  VkImage image = VK_NULL_HANDLE;
  uint32_t grid = 0;
  uint32_t levels = 0;
};

struct SurfaceTextureWriter {
  QueueTextureTarget target;
  std::vector<VkImageView> levelViews;  // R32_UINT, one level each
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets;  // sets[L] writes level L
  VkPipeline texelsPipeline = VK_NULL_HANDLE;      // surface_texels.comp
  VkPipeline downsamplePipeline = VK_NULL_HANDLE;  // downsample_texels.comp: a wide level
  VkPipeline levelsPipeline = VK_NULL_HANDLE;      // downsample_levels.comp: the narrow levels
};

// The views, descriptor sets and pipelines that write `target` from
// `vertexBuffer` (grid*grid Vertex, STORAGE_BUFFER usage) on `device`.
// Error (exit 3) when an object cannot be made; what was made is destroyed.
Result<SurfaceTextureWriter> createSurfaceTextureWriter(VkDevice device, VkBuffer vertexBuffer,
                                                        VkDeviceSize vertexBytes, const QueueTextureTarget& target);
// After the device has finished every command that used it; the image stays.
void destroySurfaceTextureWriter(VkDevice device, SurfaceTextureWriter& writer);

// Records every level's write into `commandBuffer`, after the commands that
// wrote the vertices (compute shaders or kernels, COMPUTE_SHADER stage): it
// begins with the barrier that makes those writes visible to its reads and
// moves the image from SHADER_READ_ONLY_OPTIMAL to GENERAL after the earlier
// fragment reads, and ends with the move back to SHADER_READ_ONLY_OPTIMAL,
// its writes visible to later fragment shaders on the same queue.
void recordSurfaceTextureWrite(VkCommandBuffer commandBuffer, const SurfaceTextureWriter& writer);

// The same in three parts, for a step that writes the first levels itself
// (the Vulkan backend's ripple step and cuda-nvx's write levels 0-3):
// the opening barrier before the step's commands; levels firstLevel ..
// levels-1 (each after a barrier on the level above, level 0 included), or
// the backend's own commands for them; then the move back to
// SHADER_READ_ONLY_OPTIMAL, after every write of the levels.
void recordSurfaceTextureBegin(VkCommandBuffer commandBuffer, const SurfaceTextureWriter& writer);
void recordSurfaceTextureLevels(VkCommandBuffer commandBuffer, const SurfaceTextureWriter& writer,
                                uint32_t firstLevel);
void recordSurfaceTextureEnd(VkCommandBuffer commandBuffer, const SurfaceTextureWriter& writer);

}  // namespace vksim
