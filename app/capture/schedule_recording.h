// The frame loop's calls that put each submission of the value schedule into
// a ScheduleLog (app/capture/schedule_log.h), from the very arrays it hands to
// Vulkan and from what the simulation reports it enqueued. The frame loop
// makes them only while scheduleRecording says so (app/capture/
// capture_session.h writes and drops the events).
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "app/capture/capture_session.h"
#include "app/capture/schedule_log.h"
#include "app/interop/value_schedule.h"
#include "renderer/frame_sync.h"
#include "renderer/shared_resources.h"

namespace vksim {

// Whether submissions are to be recorded now: while the session's trace is
// open, and during frame 0 (so that a trace started before the first frame
// also has the initial write and frame 0).
bool scheduleRecording(const CaptureSession& capture, const ScheduleState& schedule);

// The handles a submission can name: the grid resources' semaphores and the
// frame's imageAvailable; any other handle is the swapchain image's own
// renderFinished.
struct ScheduleSemaphoreHandles {
  SyncSemaphores shared;
  VkSemaphore imageAvailable = VK_NULL_HANDLE;
};

// Each call adds one event to `log` (dropping the oldest half past
// kMaxScheduleEvents), stamped with the schedule's frame count and the host
// clock.
//
// The initial state's write, before frame 0 of new grid resources:
// `signalledSimDone` says whether it ended in a simDone signal.
void recordInitialWrite(ScheduleLog& log, const ScheduleState& schedule, bool signalledSimDone);

// Render k's vkQueueSubmit, as submitted: every wait (semaphore, value,
// stage) and every signal, each semaphore named through `handles`.
struct SubmittedRender {
  uint64_t scheduleFrame = 0;
  SyncMode mode = SyncMode::timeline;
  std::span<const SemaphoreWait> waits;
  std::span<const SemaphoreSignal> signals;
};
void recordRenderSubmission(ScheduleLog& log, const ScheduleState& schedule,
                            const ScheduleSemaphoreHandles& handles, const SubmittedRender& render);

// Sim k's turn as the simulation reported it: `waited` / `signalled` say
// whether its wait and its signal were enqueued (timeline: at sync's values;
// binary: renderDone / simDone).
void recordSimStep(ScheduleLog& log, const ScheduleState& schedule, uint64_t scheduleFrame,
                   const StepSync& sync, bool waited, bool signalled);

// The drain's submission after the last frame (its waits, no signal).
void recordDrainSubmission(ScheduleLog& log, const ScheduleState& schedule,
                           const ScheduleSemaphoreHandles& handles, std::span<const SemaphoreWait> waits);

// "VERTEX_INPUT|TRANSFER": the stage bits the schedule uses, by name; any
// other bit as its hexadecimal value.
std::string stageMaskName(VkPipelineStageFlags stages);

}  // namespace vksim
