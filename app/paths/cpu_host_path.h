// The CPU host path (--backend cpu): the simulation runs on the host and
// writes the vertex buffer through a mapping of host-visible memory, taking
// part in the same value schedule as CUDA through host semaphore operations
// (app/interop/host_semaphores.h). Nothing is exported and no ownership moves:
// the frame is the zero-copy one (app/paths/zero_copy_path.h), with the
// texels' upload and, with --frame-tags, the tag copy added before the draw.
#pragma once
#include "app/interop/grid_resources.h"

namespace vksim {

// Builds `grid` (empty) for `params`; with import-fails or export-fails
// planned, rehearses the CUDA backend's handoff instead and fails where its
// import would run (app/testing/fault_hooks.h). Throws EnvironmentError /
// RuntimeFailure; what was built stays in `grid` for destroyGridResources.
void createCpuHostGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                       ScheduleState& schedule);

}  // namespace vksim
