// The last step of the walkthrough: ending the value schedule and tearing the
// grid resources down. The drain consumes exactly what is outstanding and hands
// the vertex buffer back to Vulkan; the teardown goes CUDA first (the stream
// finished, the imports released), then the device idles, then the Vulkan
// objects in reverse order of creation. A lost device counts as idle (the
// spec's Lost Device rules): its objects are still destroyed.
#pragma once
#include <volk.h>

#include "app/interop/grid_resources.h"
#include "app/interop/value_schedule.h"
#include "renderer/frame_sync.h"
#include "renderer/vulkan_context.h"

namespace vksim {

struct DeviceLoss;  // app/interop/device_loss.h

// What ending a grid's schedule and tearing the grid down work on: the last
// frame's slot (its command buffer and fence), the schedule, the loss state
// and the capture room's hooks. Each path's drain and destroy take it
// (app/paths/).
struct GridTeardown {
  const Device& device;
  FrameResources& frame;
  ScheduleState& schedule;
  DeviceLoss& loss;
  const GridResourceHooks& hooks;
};

// Ends the schedule: one submission on `frame`'s command buffer and fence
// waits (at ALL_COMMANDS) on the sim signal that is outstanding, consumes a
// renderDone that no simulation wait took, and acquires the vertex buffer
// from VK_QUEUE_FAMILY_EXTERNAL when the other API holds it; then the host
// waits for it (bounded). Afterwards Vulkan owns the buffer
// (grid.vertexOwner), read-backs of it are defined, and no binary semaphore
// is left signalled. Only what was really enqueued is waited for
// (app/interop/value_schedule.h), so after a failed step it returns at once.
// Idempotent: a second call finds nothing outstanding. A lost device counts
// as drained. hooks.beforeDrainSubmitted runs once the last render's fence
// has signalled, hooks.drainSubmitted hears of the submission. Throws
// RuntimeFailure on a timeout.
void drainSchedule(const Device& device, FrameResources& frame, GridResources& grid, ScheduleState& schedule,
                   DeviceLoss& loss, const GridResourceHooks& hooks);

// CUDA first, once the schedule has been drained (drainSchedule): waits
// until the simulation has finished its work (hooks.workFinished then hears
// that every frame's work is done), and destroys it, releasing its imports.
// Returns whether it finished; false only with a lost device (loss.lost).
// Throws RuntimeFailure when it does not finish in time.
bool finishSimulation(const GridTeardown& teardown, GridResources& grid);

// Then the device idles and the shared Vulkan objects go, in reverse order
// of creation. A lost device counts as idle (loss.lost is set) and
// everything is still destroyed.
void destroySharedObjects(const Device& device, GridResources& grid, DeviceLoss& loss);

}  // namespace vksim
