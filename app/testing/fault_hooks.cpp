#include "app/testing/fault_hooks.h"

#include <string>

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

void injectExportFailure(const FaultPlan& faults, const std::string& next) {
  if (hasFault(faults, FaultKind::exportFails))
    throw EnvironmentError("could not export the " + next + " after the vertex memory (injected fault export-fails)");
}

void injectImportFailure(const FaultPlan& faults, const std::string& what) {
  if (hasFault(faults, FaultKind::importFails)) throw EnvironmentError(what + " (injected fault import-fails)");
}

}  // namespace vksim
