// Zero copy: the CUDA backend imports what the renderer exported (opaque fds)
// and writes the vertices in Vulkan's own memory. Read top to bottom in the
// order create() runs: checks, device, the vertex buffer's memory and its
// mapping, the surface texture (optional), the semaphores; then the common
// state (cuda_simulation.cu). Every import obeys the fd rule (markFdImported) and
// names the allocation's size and dedicated flag as Vulkan allocated it.
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <utility>

#include "sim/cuda/cuda_backend.cuh"
#include "sim/cuda/cuda_check.h"

namespace vksim {
namespace {

// After a successful import of an opaque fd: the CUDA runtime's rule is that
// the import transfers the fd to the driver, and any later use of it (close
// included) is undefined. Setting it to -1 tells the caller, who owns every
// fd until then and closes the ones left (simulation.h).
void markFdImported(int& fd) {
  fd = -1;
}

}  // namespace

// Everything createCudaSimulation promises, in the order that lets the
// destructor undo a partial result. Returns "" or the sentence for *error.
std::string CudaSimulation::create(ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                                   ExternalTexture* texture) {
  if (std::string failure = checkGrid(); !failure.empty()) return failure;
  const uint64_t needed = vertexBytes();
  const uint32_t n = params_.grid;
  if (vertices.fd < 0) return "no vertex buffer fd was given";
  if (vertices.size < needed)
    return "the vertex buffer holds " + std::to_string(vertices.size) + " bytes, less than the " +
           std::to_string(needed) + " that a grid of " + std::to_string(n) + " needs";
  if (vertices.allocationSize < vertices.size)
    return "the vertex buffer's allocation size (" + std::to_string(vertices.allocationSize) +
           " bytes) is less than its size (" + std::to_string(vertices.size) + " bytes)";

  if (std::string failure = selectDeviceAndCreateStream(); !failure.empty()) return failure;
  if (std::string failure = checkTimelineSupport(semaphores); !failure.empty()) return failure;
  if (std::string failure = importVertexBuffer(vertices); !failure.empty()) return failure;
  if (texture && texture->fd >= 0)
    if (std::string failure = importTexture(*texture); !failure.empty()) return failure;
  if (std::string failure = importSemaphores(semaphores); !failure.empty()) return failure;
  return createOwnState();
}

// A timeline fd needs a device that can import timeline semaphores; checked
// before anything is imported, so that no fd is taken for nothing.
std::string CudaSimulation::checkTimelineSupport(const ExternalSemaphores& semaphores) {
  int timelineSupported = 0;
  if (cudaError_t result = CUDA_CHECK(
          cudaDeviceGetAttribute(&timelineSupported, cudaDevAttrTimelineSemaphoreInteropSupported, ordinal_)))
    return cudaFailure("query timeline semaphore support", result);
  if (semaphores.timelineFd >= 0 && !timelineSupported)
    return "CUDA device " + std::to_string(ordinal_) + " (" + deviceName_ +
           ") cannot import timeline semaphores (cudaDevAttrTimelineSemaphoreInteropSupported is 0)";
  return "";
}

std::string CudaSimulation::importVertexBuffer(ExternalBuffer& vertices) {
  // The import must name the allocation's size (VkMemoryRequirements::size,
  // not the size the buffer asked for) and, for a dedicated allocation,
  // cudaExternalMemoryDedicated: both must match how Vulkan allocated it.
  cudaExternalMemoryHandleDesc memoryDesc{};
  memoryDesc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  memoryDesc.handle.fd = vertices.fd;
  memoryDesc.size = vertices.allocationSize;
  memoryDesc.flags = vertices.dedicated ? cudaExternalMemoryDedicated : 0u;
  if (cudaError_t result = CUDA_CHECK(cudaImportExternalMemory(&vertexMemory_, &memoryDesc)))
    return cudaFailure("import the vertex buffer's memory", result);
  markFdImported(vertices.fd);
  // The buffer sits at offset 0 of its own allocation.
  cudaExternalMemoryBufferDesc bufferDesc{};
  bufferDesc.offset = 0;
  bufferDesc.size = vertices.size;
  if (cudaError_t result =
          CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&mappedVertices_, vertexMemory_, &bufferDesc)))
    return cudaFailure("map the imported vertex buffer", result);
  return "";
}

// The surface texture: import the image's memory, map it as a mipmapped
// array that repeats how Vulkan created the image, and make one surface
// object per level (every level is written by a kernel).
std::string CudaSimulation::importTexture(ExternalTexture& texture) {
  if (texture.width != params_.grid || texture.height != params_.grid || texture.levels == 0)
    return "the surface texture is " + std::to_string(texture.width) + "x" + std::to_string(texture.height) +
           " with " + std::to_string(texture.levels) + " levels; a grid of " + std::to_string(params_.grid) +
           " needs one texel per vertex";
  // As for the buffer: the size of the allocation (VkMemoryRequirements::size
  // of the image, which includes every level and the driver's padding) and
  // the dedicated flag, both as Vulkan allocated it.
  cudaExternalMemoryHandleDesc memoryDesc{};
  memoryDesc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  memoryDesc.handle.fd = texture.fd;
  memoryDesc.size = texture.allocationSize;
  memoryDesc.flags = texture.dedicated ? cudaExternalMemoryDedicated : 0u;
  if (cudaError_t result = CUDA_CHECK(cudaImportExternalMemory(&textureMemory_, &memoryDesc)))
    return cudaFailure("import the surface texture's memory", result);
  markFdImported(texture.fd);  // CUDA's from here, as the vertex buffer's fd
  // Each field must describe the image exactly as vkCreateImage made it
  // (the external memory rules of the CUDA Programming Guide):
  cudaExternalMemoryMipmappedArrayDesc arrayDesc{};
  // - offset: the image sits at offset 0 of its dedicated allocation
  //   (vkBindImageMemory with offset 0);
  arrayDesc.offset = 0;
  // - formatDesc: VK_FORMAT_R8G8B8A8_UNORM is four 8-bit unsigned channels
  //   (read as uchar4; UNORM's scaling is the sampler's business);
  arrayDesc.formatDesc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  // - extent: VkImageCreateInfo::extent of a 2D image; depth 0, as
  //   cudaMalloc3DArray takes a 2D array (not 1, which would be 3D);
  arrayDesc.extent = make_cudaExtent(texture.width, texture.height, 0);
  // - flags: VK_IMAGE_USAGE_STORAGE_BIT corresponds to
  //   cudaArraySurfaceLoadStore (the kernels write through surface
  //   objects); the image is no colour attachment, so no
  //   cudaArrayColorAttachment, and neither layered nor a cube map;
  arrayDesc.flags = cudaArraySurfaceLoadStore;
  // - numLevels: VkImageCreateInfo::mipLevels, the whole chain.
  arrayDesc.numLevels = texture.levels;
  if (cudaError_t result =
          CUDA_CHECK(cudaExternalMemoryGetMappedMipmappedArray(&textureArray_, textureMemory_, &arrayDesc)))
    return cudaFailure("map the surface texture as a mipmapped array", result);
  textureWidth_ = texture.width;
  textureHeight_ = texture.height;
  for (uint32_t level = 0; level < texture.levels; ++level) {
    // The level's array belongs to the mipmapped array (freed with it).
    cudaArray_t levelArray = nullptr;
    if (cudaError_t result = CUDA_CHECK(cudaGetMipmappedArrayLevel(&levelArray, textureArray_, level)))
      return cudaFailure("get level " + std::to_string(level) + " of the surface texture", result);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = levelArray;
    cudaSurfaceObject_t surface = 0;
    if (cudaError_t result = CUDA_CHECK(cudaCreateSurfaceObject(&surface, &resource)))
      return cudaFailure("create a surface object for level " + std::to_string(level), result);
    levelSurfaces_.push_back(surface);
  }
  return "";
}

// The semaphores of both sync modes; each is imported only if it was
// exported (a mode without its semaphores is unavailable, and its step
// fails). Also what --memory-owner cuda imports (cuda_owned_vertices.cu).
std::string CudaSimulation::importSemaphores(ExternalSemaphores& semaphores) {
  if (std::string failure = importSemaphore(
          semaphores.timelineFd, cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd, "timeline", &timeline_);
      !failure.empty())
    return failure;
  if (std::string failure = importSemaphore(semaphores.renderDoneFd, cudaExternalSemaphoreHandleTypeOpaqueFd,
                                            "renderDone", &renderDone_);
      !failure.empty())
    return failure;
  if (std::string failure = importSemaphore(semaphores.simDoneFd, cudaExternalSemaphoreHandleTypeOpaqueFd,
                                            "simDone", &simDone_);
      !failure.empty())
    return failure;
  // simDone carries the initial state's signal, which render 0 waits on
  // whatever the sync mode (writeInitialState); renderDone only binary steps.
  if (!simDone_) return "no simDone semaphore was given (the initial state's signal needs it)";
  return "";
}

// One semaphore's fd, under the fd rule: handed over only after a successful
// import; on failure it stays the caller's, who closes it.
std::string CudaSimulation::importSemaphore(int& fd, cudaExternalSemaphoreHandleType type, const char* name,
                                            cudaExternalSemaphore_t* semaphore) {
  if (fd < 0) return "";  // not exported: that sync mode is unavailable
  cudaExternalSemaphoreHandleDesc desc{};
  desc.type = type;
  desc.handle.fd = fd;
  if (cudaError_t result = CUDA_CHECK(cudaImportExternalSemaphore(semaphore, &desc))) {
    *semaphore = nullptr;
    return cudaFailure(std::string("import the ") + name + " semaphore", result);
  }
  markFdImported(fd);
  return "";
}

Result<std::unique_ptr<Simulation>> createCudaSimulation(const ModelParams& params, int ordinal,
                                                         ExternalBuffer& vertices,
                                                         ExternalSemaphores& semaphores,
                                                         ExternalTexture* texture) {
  // On failure the simulation releases what it imported when it goes; the
  // fds it did not import stay >= 0 in `vertices` / `semaphores`, for the
  // caller to close.
  auto simulation = std::make_unique<CudaSimulation>(params, ordinal);
  if (std::string failure = simulation->create(vertices, semaphores, texture); !failure.empty())
    return fail(failure, kExitEnvironment);
  return std::unique_ptr<Simulation>(std::move(simulation));
}

}  // namespace vksim
