#include "app/interop/value_schedule.h"

#include <fmt/format.h>

namespace vksim {

void throwWaitTimeout(const ScheduleState& schedule, const std::string& what) {
  // In seconds with three significant digits: VKSIM_WAIT_TIMEOUT_MS can make
  // the bound shorter than a second.
  throw RuntimeFailure(fmt::format("timeout: {} (frame {}, {} mode) did not complete within {:.3g} s", what,
                                   schedule.scheduleFrame, toString(schedule.mode), double(kWaitTimeoutNs) / 1e9));
}

void restartSchedule(ScheduleState& schedule, const StepResult& initialWrite, bool copyPath) {
  schedule.scheduleFrame = 0;
  schedule.simSignal.reset();
  schedule.renderDoneUnconsumed = false;
  schedule.hostOutputUnstaged = copyPath;
  schedule.skippedSimSignal.reset();
  if (!copyPath && initialWrite.signalEnqueued) schedule.simSignal = kInitialStateSignal;
}

RenderSync renderSyncForFrame(uint64_t frame, SyncMode mode, std::optional<SyncMode> previousSimMode) {
  RenderSync sync;
  if (previousSimMode) {
    // Wait on what the previous sim step actually signalled, which is its mode,
    // not necessarily ours: that is what makes a switch lose no frame.
    if (*previousSimMode == SyncMode::timeline) {
      sync.wait = RenderSync::Wait::timeline;
      sync.waitValue = 2 * frame;
    } else {
      sync.wait = RenderSync::Wait::simDone;
    }
  }
  if (mode == SyncMode::timeline) {
    sync.signal = RenderSync::Signal::timeline;
    // After binary frames the counter lags behind; 2k+1 is still larger than
    // every value signalled so far, as a timeline signal must be.
    sync.signalValue = 2 * frame + 1;
  } else {
    sync.signal = RenderSync::Signal::renderDone;
  }
  return sync;
}

RenderSync nextRenderSync(const ScheduleState& schedule) {
  const std::optional<SyncMode> previous =
      schedule.simSignal ? std::optional<SyncMode>(schedule.simSignal->mode) : std::nullopt;
  return renderSyncForFrame(schedule.scheduleFrame, schedule.mode, previous);
}

StepSync simSyncForFrame(uint64_t frame, SyncMode mode) {
  StepSync sync;
  sync.mode = mode;
  if (mode == SyncMode::timeline) {
    sync.waitValue = 2 * frame + 1;
    sync.signalValue = 2 * frame + 2;
  }
  return sync;
}

RenderSync::Wait lastSimSignal(SyncMode lastMode) {
  return lastMode == SyncMode::timeline ? RenderSync::Wait::timeline : RenderSync::Wait::simDone;
}

void noteRenderSubmitted(ScheduleState& schedule, const RenderSync& render) {
  if (render.wait != RenderSync::Wait::none) schedule.simSignal.reset();
  if (render.signals && render.signal == RenderSync::Signal::renderDone) schedule.renderDoneUnconsumed = true;
}

void noteSimulationTurn(ScheduleState& schedule, const StepSync& sync, const StepResult& result) {
  if (result.waitEnqueued && sync.mode == SyncMode::binary) schedule.renderDoneUnconsumed = false;
  if (result.signalEnqueued) schedule.simSignal = SimSignal{sync.mode, sync.signalValue};
}

void advanceFrame(ScheduleState& schedule) {
  ++schedule.scheduleFrame;
  ++schedule.totalFrames;
  if (schedule.switchEvery > 0 && schedule.totalFrames % schedule.switchEvery == 0)
    schedule.pendingMode = schedule.mode == SyncMode::timeline ? SyncMode::binary : SyncMode::timeline;
  if (schedule.pendingMode) {
    if (*schedule.pendingMode != schedule.mode) ++schedule.switches;
    schedule.mode = *schedule.pendingMode;
    schedule.pendingMode.reset();
  }
}

DrainPlan planDrain(const ScheduleState& schedule) {
  DrainPlan plan;
  plan.simSignal = schedule.simSignal;
  plan.consumeRenderDone = schedule.renderDoneUnconsumed;
  return plan;
}

void noteDrained(ScheduleState& schedule) {
  schedule.simSignal.reset();
  schedule.renderDoneUnconsumed = false;
}

}  // namespace vksim
