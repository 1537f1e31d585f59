// The one place that chooses a path: from the backend that runs and the
// InteropConfig, one InteropPath (app/interop/grid_resources.h), whose own
// file builds the grid resources and runs its frame. Nothing else in a frame
// asks which path it is on.
#pragma once
#include <cstdint>

#include "app/interop/grid_resources.h"
#include "app/paths/frame_context.h"

namespace vksim {

// The path for `backend` under `config`: renderQueue for vulkan and
// cuda-nvx; copy for --transfer copy; cudaOwnedMemory for cuda with
// --memory-owner cuda; zeroCopy for cuda; openCl; cpuHost for cpu.
InteropPath choosePath(Backend backend, const InteropConfig& config);

// Builds `grid` (empty) for `params` on the path that choosePath gives.
// Throws EnvironmentError / RuntimeFailure; what was built stays in `grid`
// for destroyGridResources (app/interop/teardown.h).
void createGridResources(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                         ScheduleState& schedule);

// One frame of grid.path's schedule (app/paths/*_path.h).
void runPathFrame(FrameContext& frame);

// Frames in flight on `path` (base/config.h). Two only where the queue alone
// orders every handover: a simulation in the render's own submission (the
// copy path's host staging buffer is rewritten every frame and would need one
// per frame; every other path has one shared buffer that the two sides take
// turns on).
uint32_t framesInFlight(InteropPath path);

}  // namespace vksim
