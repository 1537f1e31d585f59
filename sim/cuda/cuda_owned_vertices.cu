// --memory-owner cuda: the reverse direction. The vertices live in CUDA's own
// allocation (createCudaVertexMemory, cuda_owned_memory.cpp), which the
// renderer imports; the semaphores and the surface texture cross from Vulkan
// to CUDA, imported as in the zero-copy path (cuda_simulation.cu). The step is
// the shared one (cuda_simulation.cu), texture kernels included.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "sim/cuda/cuda_backend.cuh"
#include "sim/cuda/cuda_owned_memory.h"

namespace vksim {

// The vertices are written at vertices.address, CUDA's mapping of its own
// allocation. The allocation is borrowed, never released here: the
// renderer's import of it must be freed first (app/interop/teardown.cpp).
std::string CudaSimulation::createOnCudaMemory(const CudaVertexMemory& vertices, ExternalSemaphores& semaphores,
                                               ExternalTexture* texture) {
  if (std::string failure = checkGrid(); !failure.empty()) return failure;
  if (vertices.address == 0 || !vertices.mapped) return "no mapped CUDA vertex memory was given";
  if (vertices.ordinal != ordinal_)
    return "the vertex memory lives on CUDA device " + std::to_string(vertices.ordinal) + ", not " +
           std::to_string(ordinal_);
  if (vertices.size < vertexBytes())
    return "the CUDA vertex memory holds " + std::to_string(vertices.size) + " bytes, less than the " +
           std::to_string(vertexBytes()) + " that a grid of " + std::to_string(params_.grid) + " needs";
  if (std::string failure = selectDeviceAndCreateStream(); !failure.empty()) return failure;
  if (std::string failure = checkTimelineSupport(semaphores); !failure.empty()) return failure;
  cudaOwnedVertices_ = reinterpret_cast<void*>(static_cast<uintptr_t>(vertices.address));
  // The texture stays a Vulkan image: CUDA can map imported memory as a
  // mipmapped array, but cannot export one that Vulkan could bind to an
  // image (docs/design.md, "The surface texture on --memory-owner cuda").
  // The same import as the zero-copy path's, in the same order.
  if (texture && texture->fd >= 0)
    if (std::string failure = importTexture(*texture); !failure.empty()) return failure;
  // The semaphores under the fd rule, as in the zero-copy path.
  if (std::string failure = importSemaphores(semaphores); !failure.empty()) return failure;
  return createOwnState();
}

Result<std::unique_ptr<Simulation>> createCudaSimulationOnCudaMemory(const ModelParams& params, int ordinal,
                                                                     const CudaVertexMemory& vertices,
                                                                     ExternalSemaphores& semaphores,
                                                                     ExternalTexture* texture) {
  auto simulation = std::make_unique<CudaSimulation>(params, ordinal);
  if (std::string failure = simulation->createOnCudaMemory(vertices, semaphores, texture); !failure.empty())
    return fail(failure, kExitEnvironment);
  return std::unique_ptr<Simulation>(std::move(simulation));
}

}  // namespace vksim
