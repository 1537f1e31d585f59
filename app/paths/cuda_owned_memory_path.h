// The reverse direction (--memory-owner cuda): CUDA allocates the vertex
// memory (cuMemCreate) and exports it as an opaque fd, Vulkan imports it; the
// semaphores still cross from Vulkan to CUDA. Everything after the creation
// is the zero-copy path's (app/paths/zero_copy_path.h): the same frame
// (runZeroCopyFrame), the same ownership transfers, the same drain
// (drainZeroCopyGrid); its teardown (destroyCudaOwnedMemoryGrid) frees CUDA's
// allocation last.
#pragma once
#include "app/interop/grid_resources.h"
#include "app/interop/teardown.h"
#include "sim/cuda/cuda_owned_memory.h"

namespace vksim {

// What the path keeps beside the shared grid resources: the allocation
// behind grid.vertices, which CUDA made and exported and Vulkan imported.
// The simulation borrows its mapping. It goes last, after the simulation and
// after Vulkan has freed its import (destroyCudaOwnedMemoryGrid).
struct CudaOwnedState {
  CudaVertexMemory cudaVertices;
};

// Builds `grid` (empty) for `params` on CUDA's memory. The surface texture
// (config.texture) is the zero-copy path's: an image the renderer creates
// and exports, which the simulation imports and writes (off: the
// placeholder). Throws
// EnvironmentError / RuntimeFailure; what was built stays in `grid` and `own`
// for destroyCudaOwnedMemoryGrid.
void createCudaOwnedMemoryGrid(GridResources& grid, CudaOwnedState& own, const GridSetup& setup,
                               const ModelParams& params, ScheduleState& schedule);

// Tears down `grid` and `own`, drained or never run: the zero-copy order
// (finishSimulation, then destroySharedObjects, which frees Vulkan's import
// once the device is idle), then CUDA's allocation (cuMemUnmap,
// cuMemAddressFree, cuMemRelease). When the simulation did not finish (a
// CUDA stream may still write through the mapping) the allocation is left
// until the process ends, and says so. Throws RuntimeFailure when the
// simulation does not finish in time (and the device is not lost).
void destroyCudaOwnedMemoryGrid(const GridTeardown& teardown, GridResources& grid, CudaOwnedState& own);

}  // namespace vksim
