// The seam through which measurement reaches a frame (app/paths/): a path's
// frame tells its observer what it submitted and what the simulation
// reported, and the capture room (this file) turns that into the trace's
// schedule events and the frame's timing. The frame itself knows nothing of
// captures, traces or clocks.
#pragma once
#include <cstdint>
#include <span>

#include "app/capture/capture_session.h"
#include "app/capture/frame_timing.h"
#include "app/capture/schedule_log.h"
#include "app/capture/schedule_recording.h"
#include "app/interop/value_schedule.h"
#include "renderer/frame_sync.h"

namespace vksim {

class FrameObserver {
 public:
  virtual ~FrameObserver() = default;
  // Render k's submission, as submitted (the schedule already noted it).
  virtual void renderSubmitted(uint64_t scheduleFrame, std::span<const SemaphoreWait> waits,
                               std::span<const SemaphoreSignal> signals) = 0;
  // The host has just seen render k's signal (a host wait before the step).
  virtual void renderSignalSeen() = 0;
  // Sim k's turn as the simulation reported it (the schedule already noted it).
  virtual void simulationStepped(uint64_t scheduleFrame, const StepSync& sync, const StepResult& step) = 0;
};

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
