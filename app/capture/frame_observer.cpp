#include "app/capture/frame_observer.h"

#include "base/host_clock.h"

namespace vksim {

void CaptureFrameObserver::renderSubmitted(uint64_t scheduleFrame, std::span<const SemaphoreWait> waits,
                                           std::span<const SemaphoreSignal> signals) {
  if (scheduleRecording(capture_, schedule_))
    recordRenderSubmission(log_, schedule_, handles_, {scheduleFrame, schedule_.mode, waits, signals});
}

void CaptureFrameObserver::renderSignalSeen() { timing_.renderSeenDoneNs = hostNowNs(); }

void CaptureFrameObserver::simulationStepped(uint64_t scheduleFrame, const StepSync& sync, const StepResult& step) {
  if (scheduleRecording(capture_, schedule_))
    recordSimStep(log_, schedule_, scheduleFrame, sync, step.waitEnqueued, step.signalEnqueued);
  // The value this frame's step signalled: the capture's timeline column.
  if (sync.mode == SyncMode::timeline) timing_.timelineValue = sync.signalValue;
}

}  // namespace vksim
