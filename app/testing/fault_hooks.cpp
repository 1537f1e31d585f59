#include "app/testing/fault_hooks.h"

#include <string>


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

StepFault stepFaultFor(const FaultPlan& faults, const ScheduleState& schedule) {
  return stepFaultAt(faults, schedule.totalFrames);
}

bool handoffFaultInjected(const FaultPlan& faults) {
  return hasFault(faults, FaultKind::importFails) || hasFault(faults, FaultKind::exportFails);
}

}  // namespace vksim
