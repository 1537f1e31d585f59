#include "app/paths/cuda_owned_memory_path.h"

#include <cstdio>
#include <string>

#include "app/interop/device_pairing.h"
#include "app/interop/grid_resources.h"
#include "shaders/shared_layout.h"
#include "sim/cuda/cuda_owned_memory.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim {
namespace {

// The reverse direction (--memory-owner cuda): CUDA allocates the vertex
// memory and exports it, Vulkan imports it; the semaphores still cross from
// Vulkan to CUDA. One ExportedHandles guards every fd on the way, as on the
// other route: the renderer sets the memory fd to -1 once its import
// succeeded (from then on Vulkan's: VkImportMemoryFdInfoKHR), the
// simulation each semaphore and texture fd it imported (CUDA's), and
// whatever is left is closed when `handles` goes. A failed Vulkan import leaves the memory fd
// with us, so `handles` closes it; closing it never frees CUDA's
// allocation, which own.cudaVertices keeps until destroyCudaOwnedMemoryGrid.
std::unique_ptr<Simulation> importCudaOwnedMemory(const Device& device, GridResources& grid, CudaOwnedState& own,
                                                  const FaultPlan& faults, const ModelParams& params,
                                                  int cudaOrdinal) {
  const bool textured = grid.texture.writer == TextureWriter::external;
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  Result<CudaVertexMemory> memory = createCudaVertexMemory(cudaOrdinal, bytes);
  if (!memory) throw EnvironmentError("CUDA backend: " + memory.error().message);
  own.cudaVertices = *memory;

  ExportedHandles handles;
  handles.bufferExporter = MemoryOwner::cuda;
  Result<ExternalBuffer> exported = exportCudaVertexMemory(own.cudaVertices);
  if (!exported) throw EnvironmentError("CUDA backend: " + exported.error().message);
  handles.buffer = *exported;
  // The semaphores still go from Vulkan to CUDA, as in exportSharedHandles
  // (app/interop/grid_resources.cpp); the three lines are repeated rather
  // than shared so that the walkthrough's route keeps them in view.
  handles.semaphores.timelineFd = exportSemaphoreFd(device, grid.semaphores.timeline);
  handles.semaphores.renderDoneFd = exportSemaphoreFd(device, grid.semaphores.renderDone);
  handles.semaphores.simDoneFd = exportSemaphoreFd(device, grid.semaphores.simDone);
  // The surface texture goes from Vulkan to CUDA as on the default route
  // (the same export, the same import): only the vertex memory is CUDA's.
  if (textured) handles.texture = exportSurfaceTexture(device, grid.texture);

  // A test's import-fails: Vulkan's import of CUDA's memory fails. The fd
  // is still ours: `handles` closes it.
  injectImportFailure(faults, "CUDA backend: could not import CUDA's vertex memory into Vulkan");
  // The import names the exporter's size (the granularity-rounded
  // allocation), and memory of the same physical device: the pairing by
  // UUID (device_pairing.h) is what makes the opaque fd meaningful here.
  try {
    grid.vertices = importSharedVertexBuffer(device, bytes, handles.buffer.fd, handles.buffer.allocationSize);
  } catch (const EnvironmentError& error) {
    throw EnvironmentError(std::string("CUDA backend: ") + error.what());
  }
  Result<std::unique_ptr<Simulation>> simulation =
      createCudaSimulationOnCudaMemory(params, cudaOrdinal, own.cudaVertices, handles.semaphores,
                                       textured ? &handles.texture : nullptr);
  if (!simulation) throw EnvironmentError("CUDA backend: " + simulation.error().message);
  return std::move(*simulation);
}

}  // namespace

void createCudaOwnedMemoryGrid(GridResources& grid, CudaOwnedState& own, const GridSetup& setup,
                               const ModelParams& params, ScheduleState& schedule) {
  const Device& device = setup.device;
  // The vertex buffer comes later, imported from CUDA's allocation.
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/true);
  // The surface texture is the default route's: a Vulkan image, exported
  // to CUDA and written by the same kernels (off: the placeholder). CUDA
  // could not allocate it for Vulkan (docs/design.md, "The surface texture on
  // --memory-owner cuda"), so only the buffer takes the reverse direction.
  grid.texture = createSurfaceTexture(
      device, params, setup.config.texture ? TextureWriter::external : TextureWriter::placeholder);
  grid.simulation = importCudaOwnedMemory(device, grid, own, setup.config.faults, params, setup.devices.cuda->ordinal);
  // CUDA writes the initial state: Vulkan's first use acquires it from EXTERNAL.
  grid.externalWriter = true;
  grid.vertexOwner = VertexOwner::external;
  writeInitialState(*grid.simulation, schedule, setup.hooks);
}

// CUDA's allocation goes last. Vulkan's import holds a reference to it, so
// releasing it first would also be allowed (cuMemRelease frees the memory
// only when no mapping and no handle, shareable ones included, is left) and
// the memory would live on under the VkDeviceMemory; but then its lifetime
// would hang on an import that CUDA cannot see. The order chosen leaves
// nothing to that rule: the device idle, Vulkan's memory freed, then
// cuMemUnmap, cuMemAddressFree, cuMemRelease.
void destroyCudaOwnedMemoryGrid(const GridTeardown& teardown, GridResources& grid, CudaOwnedState& own) {
  const bool simulationFinished = finishSimulation(teardown, grid);
  destroySharedObjects(teardown.device, grid, teardown.loss);
  if (simulationFinished) {
    destroyCudaVertexMemory(own.cudaVertices);
  } else if (own.cudaVertices.allocation != 0) {
    std::fprintf(stderr,
                 "vkcuda-sim: CUDA's vertex memory is left allocated: a CUDA stream that may write it did not "
                 "finish\n");
    own.cudaVertices = CudaVertexMemory{};
  }
}

}  // namespace vksim
