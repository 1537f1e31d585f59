#include "app/testing/fault_hooks.h"

#include <string>

#include "app/interop/exported_handles.h"
#include "app/interop/schedule_waits.h"

namespace vksim {

void injectDeviceLoss(const FaultPlan& faults, const ScheduleState& schedule, DeviceLoss& loss) {
  if (!faultActive(faults, FaultKind::deviceLost, schedule.totalFrames)) return;
  loss.injectInTeardown = true;
  throw RuntimeFailure("device lost: the render fence of the previous frame (frame " +
                       std::to_string(schedule.scheduleFrame) + ", " + toString(schedule.mode) +
                       " mode) reported VK_ERROR_DEVICE_LOST (injected fault device-lost)");
}

bool renderLeavesOutSignal(const FaultPlan& faults, const ScheduleState& schedule) {
  return faultActive(faults, FaultKind::renderSkipsSignal, schedule.totalFrames);
}

StepSync withStepFault(StepSync sync, const FaultPlan& faults, const ScheduleState& schedule) {
  sync.fault = stepFaultAt(faults, schedule.totalFrames);
  return sync;
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

bool handoffFaultInjected(const FaultPlan& faults) {
  return hasFault(faults, FaultKind::importFails) || hasFault(faults, FaultKind::exportFails);
}

void failInjectedHandoff(const Device& device, const GridResources& grid, const FaultPlan& faults) {
  handOverSharedHandles({device, grid.vertices, grid.semaphores, faults, "cpu backend"},
                        [](ExportedHandles&) -> Result<std::unique_ptr<Simulation>> {
                          return fail("the CPU backend imports nothing", kExitEnvironment);
                        });
  throw EnvironmentError("cpu backend: an injected handoff fault did not fail");  // unreachable
}

}  // namespace vksim
