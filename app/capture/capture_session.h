// Recording a run: `--capture PATH.csv` (one CSV row per frame and
// PATH.summary.json, through app/capture_writer.h) and `--trace PATH.json`
// (a Chrome trace, through app/trace_writer.h), fed from the frame records of
// app/frame_timing.h. The command line starts a session before the first
// frame and finishes it after the last; the overlay's Record button uses the
// same three calls (startCapture, stopCapture, captureProgress) at frame
// boundaries. docs/captures.md describes the files.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "app/capture/capture_writer.h"
#include "app/cli.h"
#include "app/capture/frame_timing.h"
#include "app/capture/trace_writer.h"

namespace vksim {

struct App;

struct CaptureRequest {
  std::string csvPath;    // empty: no CSV (and no summary)
  std::string tracePath;  // empty: no trace
  std::size_t warmupFrames = kDefaultWarmupFrames;
  uint64_t frames = 0;  // frames to record, then the capture finishes by itself; 0 = until stopCapture
};

struct CaptureProgress {
  bool recording = false;       // started and not yet finished
  bool stopping = false;        // stopCapture was called; the last frames' GPU results are on their way
  uint64_t framesRecorded = 0;  // rows written so far
  uint64_t framesWanted = 0;    // CaptureRequest::frames (0 = open-ended)
  std::string csvPath, tracePath;
  std::string lastResult;  // one line about the last finished capture ("wrote ..." or the failure)
};

struct CaptureSession {
  CaptureRequest request;
  CaptureWriter csv;
  TraceWriter trace;
  bool recording = false;
  std::optional<uint64_t> firstFrame;  // the first frame recorded (frames before the start are skipped)
  uint64_t startFrame = 0;             // app.schedule.totalFrames when startCapture ran
  std::optional<uint64_t> lastFrame;   // set by stopCapture: record up to this frame, then finish
  uint64_t framesRecorded = 0;
  int64_t startNs = 0;  // host clock at startCapture: time 0 of the CSV and the trace
  std::optional<SyncMode> previousMode;
  std::string lastResult;
  // The newest complete frame record, recording or not: the overlay's GPU times.
  std::optional<FrameTiming> latest;
};

// Opens the files (each PATH.tmp-<pid> until finished) and starts recording
// with the next frame run. Fails (nothing left on disk) when a path cannot be
// written or a capture is already recording. Call at a frame boundary.
Result<> startCapture(App& app, const CaptureRequest& request);

// Records the frames run so far and finishes once their GPU results have
// arrived (a frame or two later, at a frame boundary); captureProgress says
// when. No-op when not recording.
void stopCapture(App& app);

CaptureProgress captureProgress(const App& app);

// The frame loop's call after each frame: writes every frame record that is
// complete (app/frame_timing.h) and finishes the capture when its last frame
// is written. With flush (the end of the run, after the schedule is drained
// and the timings settled), writes everything left and finishes. Returns the
// outcome of a finish that happened in this call (ok when none did); the
// message is also in captureProgress().lastResult.
Result<> recordFinishedFrames(App& app, bool flush);

// The run's environment for the summary JSON, from the device, the target,
// the backend and the options.
CaptureEnvironment captureEnvironment(const App& app);

}  // namespace vksim
