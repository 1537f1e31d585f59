// What each frame cost, on one clock: the host's steady_clock (CLOCK_MONOTONIC)
// in nanoseconds. The host's own spans are taken directly; the render's GPU
// span comes from Vulkan timestamps (renderer/gpu_timer.h) and the
// simulation's from its StepTiming (CUDA events, the render-queue step's
// Vulkan timestamps, or the CPU backend's host clock; OpenCL's step has
// none). Neither GPU result is ready when the frame ends, so a frame's
// record waits in a queue until they arrive (normally at the start of the
// next frame) and leaves it complete, or with the missing parts empty after
// kMaxPendingFrames. Nothing here ever blocks. docs/captures.md describes the
// clocks and how GPU spans are placed on the host's.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <optional>

#include "base/config.h"
#include "renderer/gpu_timer.h"
#include "renderer/vulkan_context.h"
#include "sim/sim_types.h"

namespace vksim {

class SimulationBackend;

// [beginNs, endNs) on steady_clock, nanoseconds since its epoch.
struct TimeSpan {
  int64_t beginNs = 0, endNs = 0;
  double milliseconds() const { return double(endNs - beginNs) * 1.0e-6; }
};

struct FrameTiming {
  uint64_t frame = 0;          // ScheduleState::totalFrames when the frame ran (0-based over the run)
  uint64_t scheduleFrame = 0;  // k of the value schedule: also the sequence of the frame's sim step
  SyncMode syncMode = SyncMode::timeline;
  bool copyPath = false;  // transfer "copy": no semaphores, the host orders everything
  ModelKind model = ModelKind::ripple;
  uint32_t grid = 0;
  uint64_t swapchainHandle = 0;  // VkSwapchainKHR as an integer; 0 headless
  int32_t syncInterval = 0;      // 1 for FIFO, 0 otherwise
  TimeSpan hostFrame;            // runFrame's body
  // The present point: the vkQueuePresentKHR call; headless (no present) the
  // end of the frame's vkQueueSubmit, as an empty span.
  TimeSpan present;
  int64_t previousPresentNs = 0;          // the present point of the frame before; 0 for the first
  int64_t previousPresentEndNs = 0;       // where the frame before's present call returned; 0 for the first
  // Display times (app/capture/present_timing.h): the id the present was
  // tagged with (0: untagged), the host time at which the present was first
  // seen on the display, and that of the frame displayed before it.
  uint64_t presentId = 0;
  std::optional<int64_t> displayedNs;
  std::optional<int64_t> previousDisplayedNs;
  std::optional<TimeSpan> renderGpu;      // the render commands (timestamps), on the host clock
  std::optional<TimeSpan> simWait;        // the sim step's wait on the render
  std::optional<TimeSpan> simWork;        // the sim step's work
  // The host's build of the ImGui frame this frame draws (buildOverlay at the
  // frame boundary, or buildOverlayAhead during the frame before's render).
  std::optional<TimeSpan> overlayBuild;
  // The host's recording of that ImGui frame into the render's command
  // buffer (recordOverlay: ImGui's backend copies the vertices and indices
  // into its mapped buffers and records the draws).
  std::optional<TimeSpan> overlayRecord;
  std::optional<uint64_t> timelineValue;  // what the frame's sim step signals (timeline mode only)
  // Host time at which the render was first seen complete (counter, fence):
  // where the render span ends when GPU timestamps cannot be calibrated.
  int64_t renderSeenDoneNs = 0;
  bool renderPending = false, simPending = false;  // results still to come
  bool displayPending = false;                     // a tagged present not yet seen on the display
};

// How GPU timestamps reach the host clock: calibrated, or anchored at the
// moment the host saw the render complete (an upper bound on its end).
enum class GpuTimeBase { calibrated, anchoredAtCompletion, none };
const char* describe(GpuTimeBase base);  // one phrase for the capture summary

struct FrameTimingQueue {
  std::deque<FrameTiming> pending;  // oldest first
  int64_t lastPresentNs = 0;
  int64_t lastPresentEndNs = 0;
  uint64_t lastPresentId = 0;    // the id the last tagged present carried (they increase by one)
  int64_t lastDisplayedNs = 0;   // the display time of the last present seen on the display; 0: none yet
  // The frame each frame slot carried last (FrameTiming::frame), whose render
  // timestamps are in the timer's slot of the same index until read.
  std::array<std::optional<uint64_t>, kMaxFramesInFlight> slotFrames;
  CachedGpuClockCalibration clockCalibration;
  GpuTimeBase timeBase = GpuTimeBase::none;
};

// The frame loop's calls, on the queue it owns. addFrameTiming queues a frame
// that was rendered with frame slot `slot` (`timer` says whether render
// timestamps will come, in the timer's slot of that index);
// collectGpuTimings attaches what has arrived: the render timestamps of the
// frame that `slot` carried, read on `device`, and the step timings
// `simulation` has (null: none). Call it once that slot's fence is known
// signalled: its timestamps are then available; it never waits.
// settleFrameTimings collects every slot once more and gives up on anything
// still missing: before the simulation or the timer goes away.
void addFrameTiming(FrameTimingQueue& queue, const GpuTimer& timer, uint32_t slot, const FrameTiming& timing);
// The host has just seen the render of the frame that `slot` carried
// complete (its fence waited for): kept as that frame's renderSeenDoneNs
// unless it has one.
void noteRenderSeenDone(FrameTimingQueue& queue, uint32_t slot, int64_t hostNs);
void collectGpuTimings(FrameTimingQueue& queue, const Device& device, GpuTimer& timer, uint32_t slot,
                       SimulationBackend* simulation);
void settleFrameTimings(FrameTimingQueue& queue, const Device& device, GpuTimer& timer,
                        SimulationBackend* simulation);

// The oldest record that is complete (or has waited kMaxPendingFrames, or
// everything when flush is set), removed from the queue; nothing otherwise.
std::optional<FrameTiming> takeFinishedFrame(FrameTimingQueue& queue, bool flush);

}  // namespace vksim
