// The loop around one frame: the frame slot and its fence, the window's
// image and present, the frame's timing; in between, the frame of the
// grid's path (app/paths/: the zero-copy frame is the lesson).
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
// semaphore left signalled: see app/interop/value_schedule.h).
void requestSyncMode(App& app, SyncMode mode);

}  // namespace vksim
