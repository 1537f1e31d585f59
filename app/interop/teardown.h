// The last step of the walkthrough: ending the value schedule and tearing the
// grid resources down. The drain consumes exactly what is outstanding and hands
// the vertex buffer back to Vulkan; the teardown goes CUDA first (the stream
// finished, the imports released), then the device idles, then the Vulkan
// objects in reverse order of creation. A lost device counts as idle (the
// spec's Lost Device rules): its objects are still destroyed.
#pragma once
#include <volk.h>

#include "app/interop/interop_config.h"
#include "app/interop/device_loss.h"
#include "app/interop/device_pairing.h"
#include "app/interop/grid_resources.h"
#include "app/interop/value_schedule.h"
#include "renderer/frame_sync.h"
#include "renderer/vulkan_context.h"

namespace vksim {

// Ends the schedule: one submission on `frame`'s command buffer and fence
// waits (at ALL_COMMANDS) on the sim signal that is outstanding, consumes a
// renderDone that no simulation wait took, and acquires the vertex buffer
// from VK_QUEUE_FAMILY_EXTERNAL when the other API holds it; then the host
// waits for it (bounded). Afterwards Vulkan owns the buffer
// (grid.vertexOwner), read-backs of it are defined, and no binary semaphore
// is left signalled. Only what was really enqueued is waited for
// (app/interop/value_schedule.h), so after a failed step it returns at once.
// Idempotent: a second call finds nothing outstanding (the copy path: nothing
// unstaged). A lost device counts as drained. hooks.drainSubmitted hears of
// the submission, hooks.frameTagSeen of the last render's frame tag. Throws
// RuntimeFailure on a timeout.
void drainSchedule(const Device& device, FrameResources& frame, GridResources& grid, ScheduleState& schedule,
                   DeviceLoss& loss, const GridResourceHooks& hooks);

// Finishes the schedule (drainSchedule: a no-op when the run already
// drained), then tears `grid` down in reverse order of creation: the
// simulation (CUDA) first, once it has finished (hooks.workFinished then
// hears that every frame's work is done), then the device idles, then the
// Vulkan objects. A lost device counts as idle (loss.lost is set) and
// everything is still destroyed. `grid` is empty afterwards. Throws
// RuntimeFailure when the simulation does not finish in time.
void destroyGridResources(const Device& device, FrameResources& frame, GridResources& grid,
                        ScheduleState& schedule, DeviceLoss& loss, const GridResourceHooks& hooks);

// destroyGridResources, then createGridResources (app/paths/path_factory.h)
// for new params (grid or model change) at a frame boundary; the schedule
// restarts at frame 0 of a new timeline.
void rebuildGridResources(const GridSetup& setup, const ModelParams& params, FrameResources& frame,
                          GridResources& grid, ScheduleState& schedule, DeviceLoss& loss);

}  // namespace vksim
