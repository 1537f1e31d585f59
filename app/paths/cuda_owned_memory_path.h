// The reverse direction (--memory-owner cuda): CUDA allocates the vertex
// memory (cuMemCreate) and exports it as an opaque fd, Vulkan imports it; the
// semaphores still cross from Vulkan to CUDA. Everything after the creation
// is the zero-copy path's (app/paths/zero_copy_path.h): the same frame, the
// same ownership transfers; the teardown frees CUDA's allocation last
// (app/interop/teardown.cpp).
#pragma once
#include "app/interop/grid_resources.h"

namespace vksim {

// Builds `grid` (empty) for `params` on CUDA's memory. Throws
// EnvironmentError / RuntimeFailure; what was built stays in `grid` for
// destroyGridResources.
void createCudaOwnedMemoryGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                               ScheduleState& schedule);

}  // namespace vksim
