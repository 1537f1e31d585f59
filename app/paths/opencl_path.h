// The OpenCL path (--backend opencl): the zero-copy path with OpenCL in
// CUDA's place. OpenCL imports the vertex memory and the two binary
// semaphores (cl_khr_external_memory, cl_khr_external_semaphore); it has no
// timeline semaphore, so the schedule runs in binary mode only. Only the
// creation is its own: the frame, the drain and the teardown are the
// zero-copy path's (runZeroCopyFrame, drainZeroCopyGrid, destroyZeroCopyGrid
// in app/paths/zero_copy_path.h).
#pragma once
#include "app/interop/grid_resources.h"

namespace vksim {

// Builds `grid` (empty) for `params`, handing the fds to OpenCL. Throws
// EnvironmentError / RuntimeFailure; what was built stays in `grid` for
// destroyZeroCopyGrid.
void createOpenClGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                      ScheduleState& schedule);

}  // namespace vksim
