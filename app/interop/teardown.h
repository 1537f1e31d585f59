// The last step of the walkthrough: ending the value schedule and tearing the
// shared state down. The drain consumes exactly what is outstanding and hands
// the vertex buffer back to Vulkan; the teardown goes CUDA first (the stream
// finished, the imports released), then the device idles, then the Vulkan
// objects in reverse order of creation. A lost device counts as idle (the
// spec's Lost Device rules): its objects are still destroyed.
#pragma once
#include <volk.h>

#include "app/interop/interop_config.h"
#include "app/interop/device_pairing.h"
#include "app/interop/shared_state.h"
#include "app/interop/value_schedule.h"
#include "renderer/frame_sync.h"
#include "renderer/vulkan_context.h"

namespace vksim {

// Whether the Vulkan device is lost. From `lost` on, waits count as done and
// nothing more is submitted, but everything is still destroyed.
struct DeviceLoss {
  bool lost = false;
  // Test seam (the fault `device-lost`): teardown's device waits (the
  // drain's fences, vkDeviceWaitIdle) report VK_ERROR_DEVICE_LOST after they
  // really waited, so that a test on a driver that never loses its device
  // still walks the lost-device teardown.
  bool injectInTeardown = false;
};

// A drain or teardown fence wait, at most kWaitTimeoutNs: VK_ERROR_DEVICE_LOST
// (real, or reported by the test seam once the device really is idle, so
// that what follows may destroy anything) sets loss.lost and counts as
// signalled. False only on a timeout.
bool waitForFenceInTeardown(const Device& device, VkFence fence, DeviceLoss& loss);

// vkDeviceWaitIdle for teardown; a lost device (or the seam's injected loss,
// reported after the real wait) sets loss.lost and counts as idle. Nothing
// when the device is already lost or was never created. Throws
// RuntimeFailure on any other failure.
void waitForDeviceIdleInTeardown(const Device& device, DeviceLoss& loss);

// Ends the schedule: one submission on `frame`'s command buffer and fence
// waits (at ALL_COMMANDS) on the sim signal that is outstanding, consumes a
// renderDone that no simulation wait took, and acquires the vertex buffer
// from VK_QUEUE_FAMILY_EXTERNAL when the other API holds it; then the host
// waits for it (bounded). Afterwards Vulkan owns the buffer
// (shared.vertexOwner), read-backs of it are defined, and no binary semaphore
// is left signalled. Only what was really enqueued is waited for
// (app/interop/value_schedule.h), so after a failed step it returns at once.
// Idempotent: a second call finds nothing outstanding (the copy path: nothing
// unstaged). A lost device counts as drained. hooks.drainSubmitted hears of
// the submission, hooks.frameTagSeen of the last render's frame tag. Throws
// RuntimeFailure on a timeout.
void drainSchedule(const Device& device, FrameResources& frame, SharedState& shared, ScheduleState& schedule,
                   DeviceLoss& loss, const SharedStateHooks& hooks);

// Finishes the schedule (drainSchedule: a no-op when the run already
// drained), then tears `shared` down in reverse order of creation: the
// simulation (CUDA) first, once it has finished (hooks.workFinished then
// hears that every frame's work is done), then the device idles, then the
// Vulkan objects. A lost device counts as idle (loss.lost is set) and
// everything is still destroyed. `shared` is empty afterwards. Throws
// RuntimeFailure when the simulation does not finish in time.
void destroySharedState(const Device& device, FrameResources& frame, SharedState& shared,
                        ScheduleState& schedule, DeviceLoss& loss, const SharedStateHooks& hooks);

// destroySharedState, then createSharedState (app/interop/shared_state.h) for
// new params (grid or model change) at a frame boundary; the schedule
// restarts at frame 0 of a new timeline.
void rebuildSharedState(const Device& device, const DeviceChoice& devices, const InteropConfig& config,
                        const ModelParams& params, FrameResources& frame, SharedState& shared,
                        ScheduleState& schedule, DeviceLoss& loss, const SharedStateHooks& hooks);

}  // namespace vksim
