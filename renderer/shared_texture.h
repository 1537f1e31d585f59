// The surface texture the simulation writes and the mesh samples: a 2D RGBA8
// image with a full mip chain, its view, its sampler and the descriptor set
// that binds it to the mesh pipeline. Its kinds, by who writes it:
// - external: created for export (opaque fd, dedicated allocation, optimal
//   tiling, STORAGE usage for CUDA's surface writes); lives in
//   VK_IMAGE_LAYOUT_GENERAL and moves between the render queue's family and
//   VK_QUEUE_FAMILY_EXTERNAL with the same semaphores as the vertex buffer;
// - hostUpload: not exported; the frame copies the texels the CPU backend
//   wrote into a staging buffer into every level (recordTextureUpload); lives
//   in SHADER_READ_ONLY_OPTIMAL between frames;
// - externalBufferCopy: not exported; another API writes every level, packed,
//   into an exported buffer in its turn, and each render copies that buffer
//   into every level after acquiring it from VK_QUEUE_FAMILY_EXTERNAL
//   (recordTextureUpload; the OpenCL backend); lives in
//   SHADER_READ_ONLY_OPTIMAL between frames;
// - queueCompute: not exported; compute shaders in the render's own queue
//   write every level in each step's command buffer (the render-queue
//   backends, sim/vulkan/surface_texture_writer.h) through R32_UINT views, so the image
//   is created with MUTABLE_FORMAT; lives in SHADER_READ_ONLY_OPTIMAL between
//   steps, GENERAL while written;
// - placeholder: 1x1, one level, zeroed once; bound when the texture is off,
//   or on a path that writes none (the copy path), so that the pipeline
//   always has a valid descriptor.
#pragma once
#include <volk.h>

#include <cstdint>
#include <span>
#include <vector>

#include "renderer/external_transfer_stages.h"
#include "renderer/vulkan_context.h"

namespace vksim {

enum class TextureWriter { external, hostUpload, externalBufferCopy, queueCompute, placeholder };

// The one format of the surface texture (CUDA maps it as 8-bit unsigned x4).
inline constexpr VkFormat kSurfaceTextureFormat = VK_FORMAT_R8G8B8A8_UNORM;
// Its usage, the one spelling: the export query (textureExportable) only
// answers for the usage it is asked about. STORAGE: CUDA's surface writes
// (cudaArraySurfaceLoadStore corresponds to it); SAMPLED: the mesh;
// TRANSFER_DST: the CPU backend's upload; TRANSFER_SRC: read-backs in tests.
inline constexpr VkImageUsageFlags kSurfaceTextureUsage =
    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
    VK_IMAGE_USAGE_TRANSFER_SRC_BIT;

struct SharedTexture {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;  // every level
  VkSampler sampler = VK_NULL_HANDLE;  // trilinear, clamp to edge
  // A set layout of the mesh pipeline's definition (createSurfaceTextureSetLayout):
  // identically defined layouts are compatible, so the set binds to it.
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  TextureWriter writer = TextureWriter::placeholder;
  uint32_t width = 0, height = 0, levels = 0;
  VkImageLayout sampledLayout = VK_IMAGE_LAYOUT_UNDEFINED;  // the layout the mesh samples it in
  VkDeviceSize allocationSize = 0;  // VkMemoryRequirements::size: what an importer must use
  bool dedicated = false;           // VkMemoryDedicatedAllocateInfo used (always when external)
};

// The descriptor set layout of the surface texture: binding
// kSurfaceTextureBinding, one combined image sampler, fragment stage. The
// mesh pipeline's layout and every SharedTexture create one each.
VkDescriptorSetLayout createSurfaceTextureSetLayout(const Device& device);

// Whether the device can export a kSurfaceTextureFormat image with
// kSurfaceTextureUsage, optimal tiling, as an opaque fd
// (vkGetPhysicalDeviceImageFormatProperties2 with the external handle type),
// and whether that needs a dedicated allocation. False without
// VK_KHR_external_memory_fd.
bool textureExportable(const Device& device);

// A texture of width x height with `levels` mip levels (each side
// max(1, size >> level)), made ready for its writer, blocking (one
// submission on device.queue, waited for):
// - external: transitioned UNDEFINED -> GENERAL and then released to
//   VK_QUEUE_FAMILY_EXTERNAL, so the other API may write it as soon as it
//   has imported it; every Vulkan use after that starts with an acquire
//   (recordTextureAcquire). Throws EnvironmentError when the device cannot
//   export it (textureExportable).
// - hostUpload, externalBufferCopy, queueCompute and placeholder: cleared to zero and left in
//   SHADER_READ_ONLY_OPTIMAL (placeholder: 1x1x1 whatever is asked).
// The caller destroys it after any importer has released it and the device
// is idle.
SharedTexture createSharedTexture(const Device& device, uint32_t width, uint32_t height, uint32_t levels,
                                  TextureWriter writer);
void destroySharedTexture(const Device& device, SharedTexture& texture);

// A new fd for an external texture's memory (vkGetMemoryFdKHR, opaque fd).
// The caller owns it until an import succeeds.
int exportTextureMemoryFd(const Device& device, const SharedTexture& texture);

// One level's bytes in a staging buffer: tightly packed rows at `offset`.
struct TextureLevelCopy {
  uint32_t level = 0;
  VkDeviceSize offset = 0;
};

// A hostUpload or externalBufferCopy texture's upload, recorded before the
// render pass: every level in `levels` from `staging` (TRANSFER_SRC usage;
// host writes to it made before the submission, or another API's writes
// acquired earlier in the command buffer for TRANSFER reads), ordered after
// the previous frame's fragment reads, and before this frame's. Leaves
// SHADER_READ_ONLY_OPTIMAL.
void recordTextureUpload(VkCommandBuffer commandBuffer, const SharedTexture& texture, VkBuffer staging,
                         std::span<const TextureLevelCopy> levels);

// An external texture's queue family ownership transfers, in GENERAL layout
// both ways (CUDA's surface accesses know no Vulkan layout, so the image
// stays in the one layout that allows every access, and no transition runs
// while the other API owns it).
// Acquire from VK_QUEUE_FAMILY_EXTERNAL into `queueFamily` for accesses
// with dstAccess, at the stages and with the flags of `stages`
// (externalAcquireStages, renderer/external_transfer_stages.h); the
// submission's wait on the other API's signal must be at
// stages.semaphoreWaitStage.
void recordTextureAcquire(VkCommandBuffer commandBuffer, const SharedTexture& texture, uint32_t queueFamily,
                          const ExternalTransferStages& stages, VkAccessFlags dstAccess);
// Release from `queueFamily` to VK_QUEUE_FAMILY_EXTERNAL after the accesses
// that `stages` names as its first scope (externalReleaseStages); the signal
// later in the submission hands it over.
void recordTextureRelease(VkCommandBuffer commandBuffer, const SharedTexture& texture, uint32_t queueFamily,
                          const ExternalTransferStages& stages);

// Level `level`'s texels (width*height*4 bytes, rows top first), read with a
// blocking submission after all earlier work on device.queue. The texture
// must be owned by Vulkan's queue family (after an acquire, for external).
std::vector<uint8_t> readTextureLevel(const Device& device, const SharedTexture& texture, uint32_t level);

}  // namespace vksim
