// The OpenCL path (--backend opencl): the zero-copy path with OpenCL in
// CUDA's place. OpenCL imports the vertex memory and the two binary
// semaphores (cl_khr_external_memory, cl_khr_external_semaphore); it has no
// timeline semaphore, so the schedule runs in binary mode only. Only the
// creation is its own: the frame, the drain and the teardown are the
// zero-copy path's (runZeroCopyFrame, drainZeroCopyGrid, destroyZeroCopyGrid
// in app/paths/zero_copy_path.h). It writes no surface texture: the
// placeholder is bound (docs/design.md, "The surface texture on OpenCL").
#pragma once
#include "app/interop/grid_resources.h"

namespace vksim {

// Builds `grid` (empty) for `params`, handing the fds to OpenCL. Throws
// EnvironmentError / RuntimeFailure; what was built stays in `grid` for
// destroyZeroCopyGrid.
void createOpenClGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                      ScheduleState& schedule);

// The one line that a run on this path with --texture on prints at start
// (PathDescriptor::textureNote, printed by app/main.cpp's announceRun): the
// OpenCL backend writes no surface texture, so the placeholder is bound and
// the frame does less work than the CUDA routes' (the bench's texture column
// says "placeholder"). No newline.
inline constexpr const char* kOpenClTextureNote =
    "opencl: the surface texture is not written on this backend (docs/design.md, \"The surface texture on "
    "OpenCL\"); the placeholder is bound, as with --texture off";

}  // namespace vksim
