// The value schedule (docs/value-schedule.md), as pure functions, so the frame
// loop reads as "ask the schedule, submit what it says" and tests can check
// every frame and every mode switch without a GPU.
//
//   initial write : signals simDone (binary), whatever the mode
//   render k      : waits what sim k-1 (or the initial write) signalled,
//                   signals 2k+1 (timeline) or renderDone (binary)
//   sim k         : waits value >= 2k+1 or renderDone, signals 2k+2 or simDone
//
// Binary mode uses renderDone (render signals, sim waits) and simDone (sim
// signals, render waits). A render waits on whatever the previous sim signalled
// (for render 0: the initial write's simDone), so a mode switch at a frame
// boundary loses no frame and leaves no binary semaphore signalled: each
// binary signal has exactly one wait after it.
//
// ScheduleState also keeps the bookkeeping of what has been signalled and not
// yet consumed, recorded at the moment each signal or wait is handed over
// (noteRenderSubmitted, noteSimulationTurn). The drain consumes exactly that
// (planDrain), so an error path never waits on a signal that was not enqueued
// and never leaves one unconsumed. This is the one place to look (or hook)
// for "what is outstanding now".
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "app/interop/interop_config.h"
#include "sim/sim_types.h"

namespace vksim {

// How long any single wait of the schedule may take before the run is
// declared stalled (exit 4): kDefaultWaitTimeoutNs, or VKSIM_WAIT_TIMEOUT_MS
// (both in base/config.h; parsed in app/interop/interop_config.cpp), fixed
// for the process.
inline const uint64_t kWaitTimeoutNs = waitTimeoutFromEnvironment();

struct RenderSync {
  enum class Wait { none, timeline, simDone } wait = Wait::none;
  uint64_t waitValue = 0;  // timeline wait: counter >= this
  enum class Signal { timeline, renderDone } signal = Signal::timeline;
  uint64_t signalValue = 0;  // timeline signal value
  // Whether the submission carries the signal. Always, but for the test
  // facility that leaves it out (--inject-fault render-skips-signal): a
  // signal left out is not outstanding.
  bool signals = true;
};

// A simulation signal that was enqueued and that no Vulkan wait has been
// submitted for yet.
struct SimSignal {
  SyncMode mode = SyncMode::binary;  // binary: simDone
  uint64_t value = 0;                // timeline: the value signalled
};

// What the initial write signals: simDone, in either mode. A timeline
// signal would need a value below render 0's signal of 1 and above the
// counter's 0: there is none, so the binary semaphore carries it, exactly as
// after a binary frame.
inline constexpr SimSignal kInitialStateSignal{SyncMode::binary, 0};

// Where the value schedule stands. scheduleFrame restarts at 0 with every new
// grid resources (a new timeline semaphore starts at 0); totalFrames does not.
struct ScheduleState {
  uint64_t scheduleFrame = 0;
  uint64_t totalFrames = 0;
  SyncMode mode = SyncMode::timeline;
  std::optional<SyncMode> pendingMode;  // applied at the next frame boundary
  uint32_t switchEvery = 0;
  uint64_t switches = 0;

  // Outstanding signals, each recorded where it was handed over:
  // the simulation's last signal that no Vulkan wait has consumed (the next
  // render's wait, or the drain's), and whether a render's renderDone signal
  // has no simulation wait enqueued for it yet.
  std::optional<SimSignal> simSignal;
  bool renderDoneUnconsumed = false;
  // Copy path (no semaphores): the last step's output sits in host memory
  // and has not been staged for Vulkan yet.
  bool hostOutputUnstaged = false;
  // Test facility (--inject-fault sim-skips-signal): a step that ran and
  // enqueued no signal. The next render must not go unordered after its
  // writes: the frame loop waits for this signal, bounded, instead.
  std::optional<SimSignal> skippedSimSignal;
};

// Grid resources just built: frame 0 of a new timeline, after the initial write
// whose result is given. The copy path (copyPath) hands its output over in
// host memory; the shared-buffer paths through kInitialStateSignal, which is
// recorded only if the write says it enqueued it. Mode, counts and a pending
// mode switch carry over.
void restartSchedule(ScheduleState& schedule, const StepResult& initialWrite, bool copyPath);

// Render of frame `frame` in `mode`, after a sim step (or the initial write)
// that signalled in `previousSimMode` (none: nothing to wait for, as on the
// copy path or after a drain).
RenderSync renderSyncForFrame(uint64_t frame, SyncMode mode, std::optional<SyncMode> previousSimMode);

// The render of the current frame, waiting on the outstanding sim signal.
RenderSync nextRenderSync(const ScheduleState& schedule);

// The simulation's turn in frame `frame`.
StepSync simSyncForFrame(uint64_t frame, SyncMode mode);

// What a sim step in `lastMode` signalled.
RenderSync::Wait lastSimSignal(SyncMode lastMode);

// Bookkeeping, called right after each hand-over succeeded:
// - the render's submission (its wait consumed the sim signal; its signal,
//   when renderDone, now awaits the simulation's wait);
void noteRenderSubmitted(ScheduleState& schedule, const RenderSync& render);
// - the simulation's turn, with what it reports having enqueued (also when
//   it failed: a wait may be enqueued without its signal);
void noteSimulationTurn(ScheduleState& schedule, const StepSync& sync, const StepResult& result);
// - the frame boundary: counts, and the one place the mode may change.
void advanceFrame(ScheduleState& schedule);

// What the drain after the last frame must submit: a wait on the outstanding
// sim signal (its vertex writes then come before anything Vulkan does next,
// and a binary simDone is consumed), and a wait that consumes a renderDone
// that no simulation wait took.
struct DrainPlan {
  std::optional<SimSignal> simSignal;
  bool consumeRenderDone = false;
  bool empty() const { return !simSignal && !consumeRenderDone; }
};
DrainPlan planDrain(const ScheduleState& schedule);
// After the drain's submission: nothing is outstanding any more.
void noteDrained(ScheduleState& schedule);

// Throws RuntimeFailure for a wait of the schedule that ran past
// kWaitTimeoutNs: "timeout: <what> (frame k, <mode> mode) did not complete
// within <bound>", with the bound in seconds to three significant digits.
[[noreturn]] void throwWaitTimeout(const ScheduleState& schedule, const std::string& what);

}  // namespace vksim
