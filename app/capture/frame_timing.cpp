#include "app/capture/frame_timing.h"

#include "base/host_clock.h"
#include "sim/simulation.h"

namespace vksim {
namespace {

constexpr size_t kMaxQueuedFrames = 64;

FrameTiming* findFrame(FrameTimingQueue& queue, uint64_t frame) {
  for (FrameTiming& timing : queue.pending)
    if (timing.frame == frame) return &timing;
  return nullptr;
}

// The timing of the frame that `slot` carried last, if it is still queued.
FrameTiming* slotFrame(FrameTimingQueue& queue, uint32_t slot) {
  const std::optional<uint64_t>& frame = queue.slotFrames.at(slot);
  return frame ? findFrame(queue, *frame) : nullptr;
}

// Render timestamps, from device ticks to the host clock: through
// VK_EXT_calibrated_timestamps when the device has it; otherwise the span
// keeps its GPU-measured length and ends where the host first saw the render
// complete, which is later than the true end by the host's reaction time
// (tens of microseconds when polling, a blocking wait's wake-up otherwise).
std::optional<TimeSpan> renderSpanOnHostClock(FrameTimingQueue& queue, const Device& device,
                                              const GpuTimer& timer, const GpuTicks& ticks,
                                              int64_t seenDoneNs) {
  const std::optional<GpuClockCalibration>& calibration =
      currentGpuClockCalibration(queue.clockCalibration, device, timer, hostNowNs());
  if (calibration) {
    queue.timeBase = GpuTimeBase::calibrated;
    return TimeSpan{gpuTicksToHostNanoseconds(timer, *calibration, ticks.begin),
                    gpuTicksToHostNanoseconds(timer, *calibration, ticks.end)};
  }
  if (seenDoneNs == 0) return std::nullopt;
  queue.timeBase = GpuTimeBase::anchoredAtCompletion;
  const int64_t length = int64_t(gpuTicksToNanoseconds(timer, ticks.begin, ticks.end));
  return TimeSpan{seenDoneNs - length, seenDoneNs};
}

}  // namespace

const char* describe(GpuTimeBase base) {
  switch (base) {
    case GpuTimeBase::calibrated:
      return "Vulkan timestamps through VK_EXT_calibrated_timestamps (CLOCK_MONOTONIC); CUDA events through "
             "an "
             "anchor event recorded on the idle stream";
    case GpuTimeBase::anchoredAtCompletion:
      return "Vulkan spans end where the host saw the render complete (no VK_EXT_calibrated_timestamps); "
             "CUDA "
             "events through an anchor event recorded on the idle stream";
    case GpuTimeBase::none:
      return "no GPU timestamps";
  }
  return "?";
}

void addFrameTiming(FrameTimingQueue& queue, const GpuTimer& timer, uint32_t slot, const FrameTiming& timing) {
  // Bounded even when nobody takes records (a test driving runFrame itself).
  if (queue.pending.size() >= kMaxQueuedFrames) queue.pending.pop_front();
  queue.pending.push_back(timing);
  FrameTiming& added = queue.pending.back();
  added.previousPresentNs = queue.lastPresentNs;
  added.previousPresentEndNs = queue.lastPresentEndNs;
  queue.lastPresentNs = timing.present.beginNs;
  queue.lastPresentEndNs = timing.present.endNs;
  added.displayPending = timing.presentId != 0;
  added.renderPending = gpuTimerSupported(timer);
  added.simPending = true;
  queue.slotFrames.at(slot) = timing.frame;
}

void noteRenderSeenDone(FrameTimingQueue& queue, uint32_t slot, int64_t hostNs) {
  FrameTiming* timing = slotFrame(queue, slot);
  if (timing && timing->renderSeenDoneNs == 0) timing->renderSeenDoneNs = hostNs;
}

namespace {

void collectRenderTiming(FrameTimingQueue& queue, const Device& device, GpuTimer& timer, uint32_t slot) {
  FrameTiming* timing = slotFrame(queue, slot);
  if (!timing || !timing->renderPending) return;
  if (const std::optional<GpuTicks> ticks = readGpuTimer(device, timer, slot)) {
    timing->renderGpu = renderSpanOnHostClock(queue, device, timer, *ticks, timing->renderSeenDoneNs);
    timing->renderPending = false;
  }
}

void collectStepTimings(FrameTimingQueue& queue, SimulationBackend* simulation) {
  if (!simulation) return;
  StepTiming step;
  while (simulation->takeStepTiming(&step)) {
    for (FrameTiming& timing : queue.pending) {
      // A step's sequence is its frame's k: both restart with a rebuild of the grid resources.
      if (!timing.simPending || timing.scheduleFrame != step.sequence) continue;
      timing.simWait = TimeSpan{step.waitBeginNs, step.waitEndNs};
      timing.simWork = TimeSpan{step.workBeginNs, step.workEndNs};
      timing.simPending = false;
      break;
    }
  }
}

}  // namespace

void collectGpuTimings(FrameTimingQueue& queue, const Device& device, GpuTimer& timer, uint32_t slot,
                       SimulationBackend* simulation) {
  // The slot holds the frame it carried last, whose fence the caller has
  // seen signalled.
  collectRenderTiming(queue, device, timer, slot);
  collectStepTimings(queue, simulation);
}

void settleFrameTimings(FrameTimingQueue& queue, const Device& device, GpuTimer& timer,
                        SimulationBackend* simulation) {
  for (uint32_t slot = 0; slot < kMaxFramesInFlight; ++slot) collectRenderTiming(queue, device, timer, slot);
  collectStepTimings(queue, simulation);
  for (FrameTiming& timing : queue.pending) timing.renderPending = timing.simPending = timing.displayPending = false;
  queue.slotFrames = {};
}

std::optional<FrameTiming> takeFinishedFrame(FrameTimingQueue& queue, bool flush) {
  if (queue.pending.empty()) return std::nullopt;
  const FrameTiming& oldest = queue.pending.front();
  const bool complete = !oldest.renderPending && !oldest.simPending && !oldest.displayPending;
  const bool tooOld = queue.pending.back().frame - oldest.frame >= kMaxPendingFrames;
  if (!complete && !tooOld && !flush) return std::nullopt;
  FrameTiming taken = oldest;
  // Shown later or never, it is no longer known: the next frame's display
  // change has no known predecessor.
  if (taken.displayPending) queue.lastDisplayedNs = 0;
  queue.pending.pop_front();
  return taken;
}

}  // namespace vksim
