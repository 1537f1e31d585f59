// The value schedule as it was submitted: every submission's semaphore waits
// and signals, on both sides (render k, sim k, and the drain after the last
// frame), recorded at the point where each is handed to its API. A recording
// trace (`--trace`) carries them as instant events (docs/captures.md,
// "Schedule events"), so that a reader sees what each frame waited for and a
// test can check it against the schedule's rule without trusting
// app/interop/value_schedule.cpp. Plain data: no Vulkan types; the frame loop names
// each semaphore and stage before it records.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/sim_types.h"

namespace vksim {

// The semaphores a submission can name.
enum class ScheduleSemaphore { timeline, renderDone, simDone, imageAvailable, renderFinished };
const char* toString(ScheduleSemaphore semaphore);  // "timeline", "renderDone", ...

struct ScheduleWait {
  ScheduleSemaphore semaphore = ScheduleSemaphore::timeline;
  uint64_t value = 0;  // timeline: the counter value waited for; binary: 0
  std::string stage;   // the wait's stage mask, e.g. "VERTEX_INPUT|TRANSFER"; empty on the sim side
};

struct ScheduleSignal {
  ScheduleSemaphore semaphore = ScheduleSemaphore::timeline;
  uint64_t value = 0;  // timeline: the value signalled; binary: 0
};

// initial: the simulation's write of the initial state, before frame 0 of a
// rebuild of the grid resources (what render 0 waits on is what it signalled).
enum class ScheduleSide { initial, render, sim, drain };
const char* toString(ScheduleSide side);  // "initial", "render", "sim", "drain"

// One submission. `frame` is ScheduleState::totalFrames when it was made (the
// drain's is the number of frames run); `scheduleFrame` is k of the value
// schedule (it restarts at 0 with every rebuild of the grid resources).
struct ScheduleEvent {
  ScheduleSide side = ScheduleSide::render;
  uint64_t frame = 0;
  uint64_t scheduleFrame = 0;
  SyncMode mode = SyncMode::timeline;  // the frame's mode
  std::vector<ScheduleWait> waits;
  std::vector<ScheduleSignal> signals;
  int64_t hostNs = 0;  // host clock (hostNowNs) when it was handed over
  // Render only, with --frame-tags: the tag of the simulation state this
  // render read (app/testing/frame_tags.h). Empty otherwise.
  std::optional<uint64_t> sawTag;
};

// Events waiting to be written into a trace, oldest first.
// app/capture/capture_session.cpp takes what it writes and drops what no frame
// record will claim; the recording calls keep it within kMaxScheduleEvents
// when nobody takes any.
inline constexpr size_t kMaxScheduleEvents = 512;
struct ScheduleLog {
  std::vector<ScheduleEvent> events;
};

// The JSON object of the event's "args" in the trace: frame, schedule_frame,
// mode, waits [{semaphore, value (timeline only), stage (render only)}],
// signals [{semaphore, value (timeline only)}], saw_tag (when set). One line.
std::string scheduleEventArgs(const ScheduleEvent& event);

// The trace event's name: "initial submit", "render submit", "sim submit",
// "drain submit".
std::string scheduleEventName(ScheduleSide side);

}  // namespace vksim
