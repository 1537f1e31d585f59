// Recording a run: `--capture PATH.csv` (one CSV row per frame and
// PATH.summary.json, through app/capture/capture_writer.h) and `--trace
// PATH.json` (a Chrome trace, through app/capture/trace_writer.h), fed from
// the frame records of app/capture/frame_timing.h and the submissions of
// app/capture/schedule_log.h. The command line starts a session before the
// first frame and finishes it after the last; the overlay's Record button uses
// the same three calls (startCapture, stopCapture, captureProgress) at frame
// boundaries. docs/captures.md describes the files.
//
// A session knows the run only through what each call is given: the frame
// count so far (ScheduleState::totalFrames), the timing queue, the schedule
// log, and, when a capture finishes, the run's environment.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "app/capture/capture_writer.h"
#include "app/capture/frame_timing.h"
#include "app/capture/schedule_log.h"
#include "app/capture/trace_writer.h"
#include "app/cli.h"
#include "base/result.h"

namespace vksim {

struct CaptureRequest {
  std::string csvPath;    // empty: no CSV (and no summary)
  std::string tracePath;  // empty: no trace
  std::size_t warmupFrames = kDefaultWarmupFrames;
  uint64_t frames = 0;  // frames to record, then the capture finishes by itself; 0 = until stopCapture
  CaptureFormat format = CaptureFormat::presentmon;  // the CSV's layout (frame_record.h)
  CaptureColumns columns = CaptureColumns::v1;       // PresentMon's column set
};

struct CaptureProgress {
  bool recording = false;       // started and not yet finished
  bool stopping = false;        // stopCapture was called; the last frames' GPU results are on their way
  uint64_t framesRecorded = 0;  // rows written so far
  uint64_t framesWanted = 0;    // CaptureRequest::frames (0 = open-ended)
  std::string csvPath, tracePath;
  std::string lastResult;  // one line about the last finished capture ("wrote ..." or the failure)
};

// The file a recording capture is named by (the progress bar, the overlay's
// Record section): its CSV, or its trace where only a trace was asked for.
inline const std::string& recordedFile(const std::string& csvPath, const std::string& tracePath) {
  return csvPath.empty() ? tracePath : csvPath;
}

struct CaptureSession {
  CaptureRequest request;
  std::string backend;  // the Backend column ("cuda", "cpu", "vulkan", ...), as given to startCapture
  CaptureWriter csv;
  TraceWriter trace;
  bool recording = false;
  std::optional<uint64_t> firstFrame;  // the first frame recorded (frames before the start are skipped)
  uint64_t startFrame = 0;             // the frame count when startCapture ran
  std::optional<uint64_t> lastFrame;   // set by stopCapture: record up to this frame, then finish
  uint64_t framesRecorded = 0;
  int64_t startNs = 0;  // host clock at startCapture: time 0 of the CSV and the trace
  std::optional<SyncMode> previousMode;
  std::string lastResult;
  // The newest complete frame record, recording or not: the overlay's GPU times.
  std::optional<FrameTiming> latest;
};

// MsGPUBusy of a frame (docs/captures.md), ms: the render's GPU span, and
// with simulationOnGpu (every backend but the CPU's) the union of it and the
// simulation step's work span. Empty while a needed span is missing.
std::optional<double> gpuBusyMs(const FrameTiming& timing, bool simulationOnGpu);

// The frame's GPU work from the first start to the last end on the host
// clock: the render's span, joined (with simulationOnGpu) with the
// simulation step's work span. Empty while a needed span is missing.
std::optional<TimeSpan> gpuWorkSpan(const FrameTiming& timing, bool simulationOnGpu);

// How long a frame's render and simulation step ran at the same time, ms
// (both spans on the host clock): the copy path's step may run while the
// render does. Empty while either span is missing.
std::optional<double> gpuOverlapMs(const FrameTiming& timing);

// Opens the files (each PATH.tmp-<pid> until finished) and starts recording
// with the next frame run: the one numbered `framesRun` (the frames run so
// far). `backend` (backendName: "cuda", "cpu", "vulkan", ...) fills the CSV's Backend column. Fails
// (nothing left on disk) when a path cannot be written or a capture is
// already recording. Call at a frame boundary.
Result<> startCapture(CaptureSession& session, const CaptureRequest& request, uint64_t framesRun,
                      std::string_view backend);

// Records the frames run so far (`framesRun` of them) and finishes once their
// GPU results have arrived (a frame or two later, at a frame boundary);
// captureProgress says when. No-op when not recording.
void stopCapture(CaptureSession& session, uint64_t framesRun);

CaptureProgress captureProgress(const CaptureSession& session);

// The run's environment for the summary JSON; asked for only when a capture
// finishes, so that it describes the run as it stands then.
using CaptureEnvironmentSource = std::function<CaptureEnvironment()>;

// The frame loop's call after each frame: takes every frame record that is
// complete out of `timing` and writes it, with its submissions from `log`
// (which it drops once no frame record will claim them), and finishes the
// capture when its last frame is written. `framesRun` is the frame count so
// far. With flush (the end of the run, after the schedule is drained and the
// timings settled), writes everything left and finishes. Returns the outcome
// of a finish that happened in this call (success when none did); the message
// is also in captureProgress().lastResult.
Result<> recordFinishedFrames(CaptureSession& session, FrameTimingQueue& timing, ScheduleLog& log,
                              uint64_t framesRun, const CaptureEnvironmentSource& environment, bool flush);

}  // namespace vksim
