#include "app/interop/schedule_waits.h"

#include <string>

#include "app/interop/profiling_marks.h"
#include "app/interop/wait_strategy.h"
#include "sim/nvtx_ranges.h"

namespace vksim {

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
