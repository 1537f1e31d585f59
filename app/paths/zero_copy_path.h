// The lesson: Vulkan allocates the vertex buffer and the semaphores, exports
// them as opaque fds, CUDA imports them and writes the vertices in place
// every frame, the two take turns through the value schedule, and at the end
// the schedule is drained and the grid torn down, CUDA first. The path's
// whole life, create, frame, drain and destroy, is in this file's four
// functions; the frame's command buffer begins and ends in two more, which
// the OpenCL path shares (docs/interop-walkthrough.md reads it top to
// bottom).
#pragma once
#include <volk.h>

#include "app/interop/grid_resources.h"
#include "app/interop/teardown.h"
#include "app/paths/frame_context.h"

namespace vksim {

// Builds `grid` (empty) for `params` on the zero-copy CUDA path: exportable
// vertex memory, semaphores and texture, handed over to CUDA (the fds cross
// here, through ExportedHandles), then the initial write that render 0 waits
// on. Throws EnvironmentError / RuntimeFailure; what was built stays in
// `grid` for destroyZeroCopyGrid.
void createZeroCopyGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                        ScheduleState& schedule);

// One frame of the value schedule, for the paths where another API writes
// the shared buffer (zero copy: CUDA; and the same frame for CUDA-owned
// memory):
//   render k waits for what sim k-1 signalled (2k, or simDone; render 0: the
//   initial write's simDone), acquires the vertex buffer from EXTERNAL,
//   draws, releases it, signals 2k+1 (or renderDone);
//   sim k waits for 2k+1 (or renderDone), runs its kernels, signals 2k+2 (or
//   simDone). Throws RuntimeFailure (throwWaitTimeout) when a wait runs out.
void runZeroCopyFrame(FrameContext& frame);

// Begins render k's command buffer for runZeroCopyFrame (beginFrameCommands)
// and, when `acquires`, records the acquire of the vertex buffer (and of
// CUDA's texture) from EXTERNAL for the vertex input (rules M21, M22).
// Returns the command buffer; the caller records the mesh pass into it (the
// OpenCL path its texel copy first, app/paths/opencl_path.cpp), then calls
// endZeroCopyRender.
VkCommandBuffer beginZeroCopyRender(FrameContext& frame, bool acquires);

// Records the release of the vertex buffer (and of CUDA's texture) to
// EXTERNAL after the mesh pass (rules M21, M22), then ends the command buffer
// that beginZeroCopyRender began (endFrameCommands).
void endZeroCopyRender(FrameContext& frame, VkCommandBuffer commandBuffer);

// Ends the schedule after the last frame, once per grid (the app calls it on
// every exit route: the run's end, a rebuild, a failure, the bench):
// drainSchedule (app/interop/teardown.h) on the last frame's slot. Afterwards
// Vulkan owns the vertex buffer and nothing is outstanding. Throws
// RuntimeFailure on a timeout.
void drainZeroCopyGrid(const GridTeardown& teardown, GridResources& grid);

// Tears down `grid`, drained (drainZeroCopyGrid) or never run: CUDA first
// (finishSimulation: the stream finished, the imports released), then the
// device idles and the Vulkan objects go in reverse order of creation
// (destroySharedObjects). `grid` is empty afterwards. Throws RuntimeFailure
// when the simulation does not finish in time.
void destroyZeroCopyGrid(const GridTeardown& teardown, GridResources& grid);

}  // namespace vksim
