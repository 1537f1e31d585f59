// One frame of the value schedule, top to bottom: render k (waits for sim k-1,
// signals render done), then sim k (waits for render k, signals sim done).
#pragma once
#include "app/app.h"
#include "renderer/readback.h"

namespace vksim {

enum class FrameStatus {
  rendered,  // one frame of the schedule ran
  skipped,   // nothing ran (window minimised, swapchain out of date): no value advanced
};

// Runs frame app.schedule.scheduleFrame. `capture` asks for the rendered image
// to be read back before it is presented. Throws RuntimeFailure naming the
// wait (mode, side, value) when a wait exceeds kWaitTimeoutNs.
FrameStatus runFrame(App& app, RgbaImage* capture = nullptr);

// Switch sync mode at the next frame boundary (no frame lost, no binary
// semaphore left signalled: see app/value_schedule.h).
void requestSyncMode(App& app, SyncMode mode);

// Ends the schedule: one submission waits (at ALL_COMMANDS) on the sim signal
// that is outstanding, consumes a renderDone that no simulation wait took, and
// acquires the vertex buffer from VK_QUEUE_FAMILY_EXTERNAL when the other API
// holds it, then the host waits for it (bounded). Afterwards Vulkan owns the
// buffer (app.shared.vertexOwner), read-backs of it are defined, and no binary
// semaphore is left signalled. Only what was really enqueued is waited for
// (app/value_schedule.h), so after a failed step it returns at once. Idempotent:
// a second call finds nothing outstanding (the copy path: nothing unstaged).
// A lost device (app.deviceLost) counts as drained. Throws RuntimeFailure on a
// timeout.
void drainSchedule(App& app);

}  // namespace vksim
