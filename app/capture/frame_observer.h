// The capture room's side of the seam through which measurement reaches a
// frame: a path's frame tells its FrameObserver (app/paths/frame_context.h)
// what it submitted and what the simulation reported, and this observer
// turns that into the trace's schedule events and the frame's timing.
#pragma once
#include <cstdint>
#include <span>

#include "app/capture/capture_session.h"
#include "app/capture/frame_timing.h"
#include "app/capture/schedule_log.h"
#include "app/capture/schedule_recording.h"
#include "app/interop/value_schedule.h"
#include "app/paths/frame_context.h"
#include "renderer/frame_sync.h"

namespace vksim {

// The observer of a run that may capture: schedule events go into `log`
// while scheduleRecording says so, the host's sightings into `timing`.
class CaptureFrameObserver final : public FrameObserver {
 public:
  CaptureFrameObserver(const CaptureSession& capture, ScheduleLog& log, const ScheduleState& schedule,
                       const ScheduleSemaphoreHandles& handles, FrameTiming& timing)
      : capture_(capture), log_(log), schedule_(schedule), handles_(handles), timing_(timing) {}

  void renderSubmitted(uint64_t scheduleFrame, std::span<const SemaphoreWait> waits,
                       std::span<const SemaphoreSignal> signals) override;
  void renderSignalSeen() override;
  void simulationStepped(uint64_t scheduleFrame, const StepSync& sync, const StepResult& step) override;

 private:
  const CaptureSession& capture_;
  ScheduleLog& log_;
  const ScheduleState& schedule_;
  ScheduleSemaphoreHandles handles_;
  FrameTiming& timing_;
};

}  // namespace vksim
