#include "app/capture/capture_session.h"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/interop/interop_config.h"
#include "base/host_clock.h"

namespace vksim {
namespace {

// Whether the run's backend steps on the GPU, so that its step's span joins
// the frame's GPU work: every backend but those whose step runs on the host.
bool stepsOnGpu(const CaptureSession& session) {
  const BackendTraits* backend = findBackend(session.backend);
  return !(backend && backend->stepsOnHost);
}

double microsecondsSince(int64_t startNs, int64_t ns) {
  return double(ns - startNs) * 1.0e-3;
}

}  // namespace

std::optional<double> gpuOverlapMs(const FrameTiming& timing) {
  if (!timing.renderGpu || !timing.simWork) return std::nullopt;
  const TimeSpan& render = *timing.renderGpu;
  const TimeSpan& sim = *timing.simWork;
  return double(std::max<int64_t>(0, std::min(render.endNs, sim.endNs) - std::max(render.beginNs, sim.beginNs))) *
         1.0e-6;
}

std::optional<double> gpuBusyMs(const FrameTiming& timing, bool simulationOnGpu) {
  if (!timing.renderGpu) return std::nullopt;
  if (!simulationOnGpu) return timing.renderGpu->milliseconds();
  if (!timing.simWork) return std::nullopt;
  // The union counts an overlap once.
  return timing.renderGpu->milliseconds() + timing.simWork->milliseconds() - *gpuOverlapMs(timing);
}

std::optional<TimeSpan> gpuWorkSpan(const FrameTiming& timing, bool simulationOnGpu) {
  if (!timing.renderGpu) return std::nullopt;
  if (!simulationOnGpu) return *timing.renderGpu;
  if (!timing.simWork) return std::nullopt;
  return TimeSpan{std::min(timing.renderGpu->beginNs, timing.simWork->beginNs),
                  std::max(timing.renderGpu->endNs, timing.simWork->endNs)};
}

namespace {

// PresentMon 2.x's CPU start, GPU latency and GPU time, and whether the
// present may tear (FIFO never does; headless nothing is shown; MAILBOX and
// IMMEDIATE both have sync interval 0, and only IMMEDIATE tears, which the
// frame record does not tell apart).
void addPresentMonV2Times(FrameRecord& row, const CaptureSession& session, const FrameTiming& timing,
                          int64_t cpuStartNs) {
  row.cpuStartSeconds = double(cpuStartNs - session.startNs) * 1.0e-9;
  if (const std::optional<TimeSpan> gpu = gpuWorkSpan(timing, stepsOnGpu(session))) {
    row.msGpuLatency = double(gpu->beginNs - cpuStartNs) * 1.0e-6;
    row.msGpuTime = gpu->milliseconds();
  }
  if (timing.swapchainHandle == 0 || timing.syncInterval == 1) row.allowsTearing = false;
}

FrameRecord csvRow(const CaptureSession& session, const FrameTiming& timing) {
  FrameRecord row;
  row.backend = session.backend;
  row.frame = timing.frame;
  row.swapchainHandle = timing.swapchainHandle;
  row.syncInterval = timing.syncInterval;
  row.timeInSeconds = double(timing.present.beginNs - session.startNs) * 1.0e-9;
  // The first frame of a run has no present before it: its frame time runs
  // from the start of its loop body to its present point.
  const int64_t previous =
      timing.previousPresentNs != 0 ? timing.previousPresentNs : timing.hostFrame.beginNs;
  row.msBetweenPresents = double(timing.present.beginNs - previous) * 1.0e-6;
  row.msInPresentApi = timing.present.milliseconds();
  if (timing.renderGpu)
    row.msUntilRenderComplete =
        std::max(0.0, double(timing.renderGpu->endNs - timing.present.beginNs) * 1.0e-6);
  row.syncMode = shownSyncMode(timing.copyPath ? TransferMode::copy : TransferMode::zeroCopy, timing.syncMode);
  row.model = toString(timing.model);
  row.grid = timing.grid;
  row.msCpuFrame = timing.hostFrame.milliseconds();
  if (timing.renderGpu) row.msRenderGpu = timing.renderGpu->milliseconds();
  if (timing.simWork) row.msSimGpu = timing.simWork->milliseconds();
  if (timing.simWait) row.msSimWait = timing.simWait->milliseconds();
  row.timelineValue = timing.timelineValue;
  // PresentMon's CPU busy: from the previous present call's return to this
  // present call (what the host did for the frame, its own waits included).
  const int64_t previousEnd =
      timing.previousPresentEndNs != 0 ? timing.previousPresentEndNs : timing.hostFrame.beginNs;
  row.msCpuBusy = double(timing.present.beginNs - previousEnd) * 1.0e-6;
  row.msGpuBusy = gpuBusyMs(timing, stepsOnGpu(session));
  addPresentMonV2Times(row, session, timing, previousEnd);
  // Display times exist only for FIFO presents (app/capture/present_timing.h),
  // and FIFO shows every present: a frame seen on the display was not dropped.
  if (timing.displayedNs) {
    row.dropped = false;
    row.msUntilDisplayed = double(*timing.displayedNs - timing.present.beginNs) * 1.0e-6;
    if (timing.previousDisplayedNs)
      row.msBetweenDisplayChange = double(*timing.displayedNs - *timing.previousDisplayedNs) * 1.0e-6;
  }
  return row;
}

void addTraceSpans(CaptureSession& session, const FrameTiming& timing) {
  TraceWriter& trace = session.trace;
  const auto add = [&](TraceTrack track, const TimeSpan& span) {
    trace.addSpan(track, timing.frame, microsecondsSince(session.startNs, span.beginNs),
                  double(span.endNs - span.beginNs) * 1.0e-3);
  };
  const SyncMode mode = timing.syncMode;
  if (session.previousMode && *session.previousMode != mode && !timing.copyPath)
    trace.addInstant(std::string("sync mode: ") + toString(mode),
                     microsecondsSince(session.startNs, timing.hostFrame.beginNs));
  session.previousMode = mode;
  add(TraceTrack::hostFrame, timing.hostFrame);
  if (timing.renderGpu) add(TraceTrack::renderGpu, *timing.renderGpu);
  if (timing.simWork) add(TraceTrack::simGpu, *timing.simWork);
  if (timing.simWait) add(TraceTrack::simWait, *timing.simWait);
  if (timing.overlayBuild) add(TraceTrack::overlayBuild, *timing.overlayBuild);
  if (timing.overlayRecord) add(TraceTrack::overlayRecord, *timing.overlayRecord);
}

// The value schedule's submissions made during `frame` (schedule_log.h),
// each on the track of the side that submitted it; they leave the log.
void addScheduleEvents(CaptureSession& session, ScheduleLog& log, uint64_t frame) {
  std::vector<ScheduleEvent>& events = log.events;
  for (const ScheduleEvent& event : events) {
    if (event.frame != frame) continue;
    const bool simSide = event.side == ScheduleSide::sim || event.side == ScheduleSide::initial;
    const TraceTrack track = simSide ? TraceTrack::simGpu : TraceTrack::renderGpu;
    session.trace.addTrackInstant(track, scheduleEventName(event.side),
                                  microsecondsSince(session.startNs, event.hostNs), scheduleEventArgs(event));
  }
  std::erase_if(events, [&](const ScheduleEvent& event) { return event.frame == frame; });
}

Result<> finishSession(CaptureSession& session, ScheduleLog& log,
                       const CaptureEnvironmentSource& environment) {
  // What is left belongs to no frame record: the drain after the last frame.
  if (session.trace.isOpen()) {
    std::vector<uint64_t> frames;
    for (const ScheduleEvent& event : log.events)
      if (event.frame >= session.startFrame && (!session.lastFrame || event.frame <= *session.lastFrame))
        frames.push_back(event.frame);
    std::sort(frames.begin(), frames.end());
    frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
    for (uint64_t frame : frames) addScheduleEvents(session, log, frame);
  }
  log.events.clear();
  session.recording = false;
  Result<> result;
  std::string written;
  if (session.csv.isOpen()) {
    result = session.csv.finish(environment());
    if (result)
      written = session.request.csvPath + " (" + std::to_string(session.framesRecorded) + " frames)";
  }
  if (session.trace.isOpen()) {
    Result<> traced = session.trace.finish();
    if (traced && result) written += (written.empty() ? "" : " and ") + session.request.tracePath;
    if (!traced && result) result = traced;
  }
  session.lastResult = result ? "wrote " + written : result.error().message;
  return result;
}

}  // namespace

Result<> startCapture(CaptureSession& session, const CaptureRequest& request, uint64_t framesRun,
                      std::string_view backend) {
  if (session.recording) return fail("a capture is already recording");
  if (request.csvPath.empty() && request.tracePath.empty()) return fail("no capture file was named");
  session = CaptureSession{};
  session.request = request;
  session.backend = backend;
  if (!request.csvPath.empty()) {
    CaptureOptions options;
    options.csvPath = request.csvPath;
    options.warmupFrames = request.warmupFrames;
    options.processId = uint32_t(getpid());
    options.expectedFrames = request.frames;
    options.format = request.format;
    options.columns = request.columns;
    if (Result<> opened = session.csv.open(options); !opened) return opened;
  }
  if (!request.tracePath.empty()) {
    if (Result<> opened = session.trace.open(request.tracePath); !opened) {
      session.csv.discard();
      return opened;
    }
  }
  session.recording = true;
  session.startFrame = framesRun;
  session.startNs = hostNowNs();
  return {};
}

void stopCapture(CaptureSession& session, uint64_t framesRun) {
  if (!session.recording || session.lastFrame) return;
  // Frames up to the last one run are recorded; none after. With nothing run
  // since the start, the next boundary finishes an empty capture.
  session.lastFrame = framesRun;  // exclusive
}

CaptureProgress captureProgress(const CaptureSession& session) {
  CaptureProgress progress;
  progress.recording = session.recording;
  progress.stopping = session.recording && session.lastFrame.has_value();
  progress.framesRecorded = session.framesRecorded;
  progress.framesWanted = session.request.frames;
  progress.csvPath = session.request.csvPath;
  progress.tracePath = session.request.tracePath;
  progress.lastResult = session.lastResult;
  return progress;
}

Result<> recordFinishedFrames(CaptureSession& session, FrameTimingQueue& timing, ScheduleLog& log,
                              uint64_t framesRun, const CaptureEnvironmentSource& environment, bool flush) {
  Result<> finished;
  while (std::optional<FrameTiming> record = takeFinishedFrame(timing, flush)) {
    if (record->renderGpu || record->simWork) session.latest = *record;
    if (!session.recording || record->frame < session.startFrame) continue;
    if (session.lastFrame && record->frame >= *session.lastFrame) continue;
    if (session.csv.isOpen()) session.csv.addFrame(csvRow(session, *record));
    if (session.trace.isOpen()) {
      addTraceSpans(session, *record);
      addScheduleEvents(session, log, record->frame);
    }
    ++session.framesRecorded;
    if (session.request.frames > 0 && session.framesRecorded >= session.request.frames)
      finished = finishSession(session, log, environment);
  }
  // Submissions of frames that were taken without being written (before the
  // start, after the stop) are of no further use.
  const uint64_t oldestPending = timing.pending.empty() ? framesRun : timing.pending.front().frame;
  std::erase_if(log.events, [&](const ScheduleEvent& event) {
    return event.frame < oldestPending && event.side != ScheduleSide::drain;
  });
  // A stopped capture is complete once every frame before its end has left
  // the queue (written, or run before the capture started).
  const bool stoppedAndWritten =
      session.recording && session.lastFrame &&
      (timing.pending.empty() || timing.pending.front().frame >= *session.lastFrame);
  if (session.recording && (flush || stoppedAndWritten)) finished = finishSession(session, log, environment);
  return finished;
}

}  // namespace vksim
