// The render-queue path (--backend vulkan, cuda-nvx): the simulation's step
// is recorded into a command buffer and rides as the second batch of the
// render's own vkQueueSubmit (app/interop/queue_submission.h). Nothing
// crosses to another API: no export, no import, no ownership transfer to
// VK_QUEUE_FAMILY_EXTERNAL; the schedule's semaphores are plain ones, and
// the queue's own order lets two frames be in flight (docs/queue-backends.md).
#pragma once
#include <memory>

#include "app/interop/grid_resources.h"
#include "app/interop/teardown.h"
#include "app/paths/frame_context.h"
#include "sim/vulkan/render_queue_simulation.h"

namespace vksim {

// Builds `grid` (empty) for `params`: a device-local vertex buffer that is
// never exported, plain semaphores, the surface texture that the step writes
// (TextureWriter::queueCompute; the placeholder with the texture off); and into
// `simulation`, the path's own, the backend's simulation (grid.queueSimulation
// points at it), whose initial write signals simDone as every backend's does.
// Throws EnvironmentError / RuntimeFailure; what was built stays for
// destroyRenderQueueGrid.
void createRenderQueueGrid(GridResources& grid, std::unique_ptr<RenderQueueSimulation>& simulation,
                           const GridSetup& setup, const ModelParams& params, ScheduleState& schedule);

// One frame: render k and sim k (`simulation`'s step) in one submission,
// under the schedule's waits and signals. Throws RuntimeFailure when a wait
// runs out.
void runRenderQueueFrame(FrameContext& frame, RenderQueueSimulation& simulation);

// Ends the schedule after the last frame, once per grid: drainSchedule
// (app/interop/teardown.h) on the plain semaphores, with no ownership
// transfer. Throws RuntimeFailure on a timeout.
void drainRenderQueueGrid(const GridTeardown& teardown, GridResources& grid);

// Tears down `grid` and `simulation`, drained or never run: finishSimulation
// (which clears grid.queueSimulation), then `simulation` itself, before the
// vertex buffer and semaphores it records into go (destroySharedObjects).
// Throws RuntimeFailure when the simulation does not finish in time.
void destroyRenderQueueGrid(const GridTeardown& teardown, GridResources& grid,
                            std::unique_ptr<RenderQueueSimulation>& simulation);

}  // namespace vksim
