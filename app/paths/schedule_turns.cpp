#include "app/paths/schedule_turns.h"

#include <string>

#include "app/interop/profiling_marks.h"
#include "app/interop/host_wait.h"
#include "app/interop/wait_strategy.h"
#include "sim/nvtx_ranges.h"

namespace vksim {

RenderBatch submitScheduledRender(FrameContext& frame, RenderSync& render, VkPipelineStageFlags waitStage) {
  ScheduleState& schedule = frame.schedule;
  render.signals = !frame.faults.renderLeavesOutSignal;
  const RenderBatch batch = scheduleRenderBatch(frame, render, waitStage);
  // Poll: only now does the host wait for sim k-1, and hands the render's
  // wait over once it is reached (app/interop/wait_strategy.h).
  if (frame.waitStrategy == WaitStrategy::poll) waitUntilSimulationSignalled(frame.device, frame.grid, schedule, render);
  awaitSkippedSimSignal(frame.device, frame.grid, schedule);
  resetSlotFence(frame);
  {
    // NVTX: "render k: wait 2k, signal 2k+1", the submission alone.
    const ProfileRange submission([&] { return renderName(schedule.scheduleFrame, render); });
    submitToQueue(frame.device, frame.slot.commandBuffer, batch.waits(), batch.signals(), frame.slot.inFlight);
  }
  // Noted right after the submission succeeded: its wait consumed the sim
  // signal, and its signal is outstanding.
  noteRenderSubmitted(schedule, render);
  return batch;
}

void finishRenderTurn(FrameContext& frame, const RenderBatch& batch) {
  frame.observer.renderSubmitted(frame.schedule.scheduleFrame, batch.waits(), batch.signals());
  frame.afterRenderSubmitted();
}

void runSimulationTurn(FrameContext& frame, const RenderSync& render) {
  ScheduleState& schedule = frame.schedule;
  const uint64_t k = schedule.scheduleFrame;
  // As for the render, the step's wait is handed over only once render k's
  // signal has been reached (poll), or must be awaited because a test left
  // it out.
  StepSync step = simSyncForFrame(k, schedule.mode);  // waits 2k+1, signals 2k+2 (or the binary pair)
  step.fault = frame.faults.step;
  if (frame.waitStrategy == WaitStrategy::poll || !render.signals) {
    waitUntilRenderSignalled(frame.device, frame.grid, schedule, render, frame.slot.inFlight);
    frame.observer.renderSignalSeen();
  }
  const StepResult result = frame.grid.simulation->step(step, frame.advance, kWaitTimeoutNs);
  // What the step enqueued is noted before its status is judged: a step that
  // failed after its wait, or before its signal, leaves exactly that for the
  // drain (app/interop/value_schedule.h).
  noteSimulationTurn(schedule, step, result);
  noteSkippedSimSignal(schedule, step, result);
  frame.observer.simulationStepped(k, step, result);
  requireStepOk(schedule, step, result);
}

// ---- The host's waits (poll, and a signal a test left out).

void waitUntilSimulationSignalled(const Device& device, const GridResources& grid, const ScheduleState& schedule,
                                  const RenderSync& sync) {
  const ProfileRange range([&] { return simulationSignalWaitName(sync); });
  if (sync.wait == RenderSync::Wait::timeline) {
    const auto reached = [&] { return readTimelineCounter(device, grid.semaphores) >= sync.waitValue; };
    if (!waitUntilReached(reached, kWaitTimeoutNs))
      throwWaitTimeout(schedule, "simulation signal of timeline value " + std::to_string(sync.waitValue));
  } else if (sync.wait == RenderSync::Wait::simDone) {
    // A simDone that was never signalled cannot be waited for, by the host or
    // the queue: the poll runs out its bound like any other wait.
    const auto signalled = [&] { return schedule.simSignal.has_value() && simulationOf(grid)->isStepComplete(); };
    if (!waitUntilReached(signalled, kWaitTimeoutNs)) throwWaitTimeout(schedule, "simulation signal of simDone");
  }
}

void waitUntilRenderSignalled(const Device& device, const GridResources& grid, const ScheduleState& schedule,
                              const RenderSync& render, VkFence renderFence) {
  const ProfileRange range([&] { return renderSignalWaitName(render); });
  if (render.signal == RenderSync::Signal::timeline) {
    const auto reached = [&] { return readTimelineCounter(device, grid.semaphores) >= render.signalValue; };
    if (!waitUntilReached(reached, kWaitTimeoutNs))
      throwWaitTimeout(schedule, "render signal of timeline value " + std::to_string(render.signalValue));
  } else {
    // The fence says the batch ran, not that it carried renderDone's signal.
    const auto signalled = [&] { return render.signals && isFenceSignalled(device, renderFence); };
    if (!waitUntilReached(signalled, kWaitTimeoutNs)) throwWaitTimeout(schedule, "render signal of renderDone");
  }
}

void requireStepOk(const ScheduleState& schedule, const StepSync& sync, const StepResult& result) {
  if (result.status == StepStatus::timeout)
    throwWaitTimeout(schedule, schedule.mode == SyncMode::timeline
                                   ? "simulation wait for timeline value " + std::to_string(sync.waitValue)
                                   : std::string("simulation wait for renderDone"));
  if (result.status == StepStatus::failed)
    throw RuntimeFailure("the simulation step failed (frame " + std::to_string(schedule.scheduleFrame) + ", " +
                         toString(schedule.mode) + " mode)");
}

void noteSkippedSimSignal(ScheduleState& schedule, const StepSync& sync, const StepResult& step) {
  if (step.status == StepStatus::ok && !step.signalEnqueued)
    schedule.skippedSimSignal = SimSignal{sync.mode, sync.signalValue};
}

void awaitSkippedSimSignal(const Device& device, const GridResources& grid, ScheduleState& schedule) {
  if (!schedule.skippedSimSignal) return;
  RenderSync missing;
  missing.wait = schedule.skippedSimSignal->mode == SyncMode::timeline ? RenderSync::Wait::timeline
                                                                        : RenderSync::Wait::simDone;
  missing.waitValue = schedule.skippedSimSignal->value;
  waitUntilSimulationSignalled(device, grid, schedule, missing);
  schedule.skippedSimSignal.reset();
}

}  // namespace vksim
