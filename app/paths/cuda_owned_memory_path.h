// The reverse direction (--memory-owner cuda): CUDA allocates the vertex
// memory (cuMemCreate) and exports it as an opaque fd, Vulkan imports it; the
// semaphores still cross from Vulkan to CUDA. Everything after the creation
// is the zero-copy path's (app/paths/zero_copy_path.h): the same frame, the
// same ownership transfers; the teardown frees CUDA's allocation last
// (app/interop/teardown.cpp).
#pragma once
#include "app/interop/grid_resources.h"
#include "sim/cuda/cuda_owned_memory.h"

namespace vksim {

// What the path keeps beside the shared grid resources: the allocation
// behind grid.vertices, which CUDA made and exported and Vulkan imported.
// The simulation borrows its mapping. It goes last, after the simulation and
// after Vulkan has freed its import (destroyCudaOwnedState).
struct CudaOwnedState {
  CudaVertexMemory cudaVertices;
};

// Builds `grid` (empty) for `params` on CUDA's memory. Throws
// EnvironmentError / RuntimeFailure; what was built stays in `grid` for
// destroyGridResources.
void createCudaOwnedMemoryGrid(GridResources& grid, CudaOwnedState& own, const GridSetup& setup,
                               const ModelParams& params, ScheduleState& schedule);

// Frees CUDA's allocation (cuMemUnmap, cuMemAddressFree, cuMemRelease) once
// Vulkan has freed its import of it and the device is idle; when the
// simulation did not finish (a CUDA stream may still write through the
// mapping) it is left until the process ends, and says so.
void destroyCudaOwnedState(CudaOwnedState& own, bool simulationFinished);

}  // namespace vksim
