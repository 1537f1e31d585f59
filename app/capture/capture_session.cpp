#include "app/capture/capture_session.h"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/interop/wait_strategy.h"

namespace vksim {
namespace {

double microsecondsSince(int64_t startNs, int64_t ns) {
  return double(ns - startNs) * 1.0e-3;
}

FrameRecord csvRow(const CaptureSession& session, const FrameTiming& timing, const char* backend) {
  FrameRecord row;
  row.backend = backend;
  row.frame = timing.frame;
  row.swapchainHandle = timing.swapchainHandle;
  row.syncInterval = timing.syncInterval;
  row.timeInSeconds = double(timing.present.beginNs - session.startNs) * 1.0e-9;
  // The first frame of a run has no present before it: its frame time is its
  // own host span.
  const int64_t previous =
      timing.previousPresentNs != 0 ? timing.previousPresentNs : timing.hostFrame.beginNs;
  row.msBetweenPresents = double(timing.present.beginNs - previous) * 1.0e-6;
  row.msInPresentApi = timing.present.milliseconds();
  if (timing.renderGpu)
    row.msUntilRenderComplete =
        std::max(0.0, double(timing.renderGpu->endNs - timing.present.beginNs) * 1.0e-6);
  row.syncMode = timing.copyPath ? "none" : toString(timing.syncMode);
  row.model = toString(timing.model);
  row.grid = timing.grid;
  row.msCpuFrame = timing.hostFrame.milliseconds();
  if (timing.renderGpu) row.msRenderGpu = timing.renderGpu->milliseconds();
  if (timing.simWork) row.msSimGpu = timing.simWork->milliseconds();
  if (timing.simWait) row.msSimWait = timing.simWait->milliseconds();
  row.timelineValue = timing.timelineValue;
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
}

// The value schedule's submissions made during `frame` (app/schedule_log.h),
// each on the track of the side that submitted it; they leave the log.
void addScheduleEvents(App& app, uint64_t frame) {
  CaptureSession& session = app.capture;
  std::vector<ScheduleEvent>& events = app.scheduleLog.events;
  for (const ScheduleEvent& event : events) {
    if (event.frame != frame) continue;
    const bool simSide = event.side == ScheduleSide::sim || event.side == ScheduleSide::initial;
    const TraceTrack track = simSide ? TraceTrack::simGpu : TraceTrack::renderGpu;
    session.trace.addTrackInstant(track, scheduleEventName(event.side),
                                  microsecondsSince(session.startNs, event.hostNs), scheduleEventArgs(event));
  }
  std::erase_if(events, [&](const ScheduleEvent& event) { return event.frame == frame; });
}

Result<> finishSession(App& app) {
  CaptureSession& session = app.capture;
  // What is left belongs to no frame record: the drain after the last frame.
  if (session.trace.isOpen()) {
    std::vector<uint64_t> frames;
    for (const ScheduleEvent& event : app.scheduleLog.events)
      if (event.frame >= session.startFrame && (!session.lastFrame || event.frame <= *session.lastFrame))
        frames.push_back(event.frame);
    std::sort(frames.begin(), frames.end());
    frames.erase(std::unique(frames.begin(), frames.end()), frames.end());
    for (uint64_t frame : frames) addScheduleEvents(app, frame);
  }
  app.scheduleLog.events.clear();
  session.recording = false;
  Result<> result;
  std::string written;
  if (session.csv.isOpen()) {
    result = session.csv.finish(captureEnvironment(app));
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

Result<> startCapture(App& app, const CaptureRequest& request) {
  CaptureSession& session = app.capture;
  if (session.recording) return fail("a capture is already recording");
  if (request.csvPath.empty() && request.tracePath.empty()) return fail("no capture file was named");
  session = CaptureSession{};
  session.request = request;
  if (!request.csvPath.empty()) {
    CaptureOptions options;
    options.csvPath = request.csvPath;
    options.warmupFrames = request.warmupFrames;
    options.processId = uint32_t(getpid());
    options.expectedFrames = request.frames;
    if (Result<> opened = session.csv.open(options); !opened) return opened;
  }
  if (!request.tracePath.empty()) {
    if (Result<> opened = session.trace.open(request.tracePath); !opened) {
      session.csv.discard();
      return opened;
    }
  }
  session.recording = true;
  session.startFrame = app.schedule.totalFrames;
  session.startNs = hostNowNs();
  return {};
}

void stopCapture(App& app) {
  CaptureSession& session = app.capture;
  if (!session.recording || session.lastFrame) return;
  // Frames up to the last one run are recorded; none after. With nothing run
  // since the start, the next boundary finishes an empty capture.
  session.lastFrame = app.schedule.totalFrames;  // exclusive
}

CaptureProgress captureProgress(const App& app) {
  const CaptureSession& session = app.capture;
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

Result<> recordFinishedFrames(App& app, bool flush) {
  CaptureSession& session = app.capture;
  Result<> finished;
  while (std::optional<FrameTiming> timing = takeFinishedFrame(app, flush)) {
    if (timing->renderGpu || timing->simWork) session.latest = *timing;
    if (!session.recording || timing->frame < session.startFrame) continue;
    if (session.lastFrame && timing->frame >= *session.lastFrame) continue;
    if (session.csv.isOpen())
      session.csv.addFrame(csvRow(session, *timing, app.devices.useCuda ? "cuda" : "cpu"));
    if (session.trace.isOpen()) {
      addTraceSpans(session, *timing);
      addScheduleEvents(app, timing->frame);
    }
    ++session.framesRecorded;
    if (session.request.frames > 0 && session.framesRecorded >= session.request.frames)
      finished = finishSession(app);
  }
  // Submissions of frames that were taken without being written (before the
  // start, after the stop) are of no further use.
  const uint64_t oldestPending =
      app.timing.pending.empty() ? app.schedule.totalFrames : app.timing.pending.front().frame;
  std::erase_if(app.scheduleLog.events, [&](const ScheduleEvent& event) {
    return event.frame < oldestPending && event.side != ScheduleSide::drain;
  });
  // A stopped capture is complete once every frame before its end has left
  // the queue (written, or run before the capture started).
  const bool stoppedAndWritten =
      session.recording && session.lastFrame &&
      (app.timing.pending.empty() || app.timing.pending.front().frame >= *session.lastFrame);
  if (session.recording && (flush || stoppedAndWritten)) finished = finishSession(app);
  return finished;
}

CaptureEnvironment captureEnvironment(const App& app) {
  CaptureEnvironment environment;
  const PhysicalDeviceInfo& info = app.device.info;
  environment.gpu = info.name;
  environment.driver =
describeDriver(info);
  environment.vulkanVersion = formatVersion(info.apiVersion);
  if (app.devices.useCuda) {
    const CudaDeviceList cuda = listCudaDevices();
    environment.cudaVersion = formatCudaVersion(cuda.driverVersion);
  }
  environment.presentMode = app.headless ? "headless" : presentModeName(app.swapchain.presentMode);
  const VkExtent2D extent = app.headless ? app.offscreen.extent : app.swapchain.extent;
  environment.width = extent.width;
  environment.height = extent.height;
  environment.presentPoint = app.headless
                                 ? "end of the frame's vkQueueSubmit (headless: nothing is presented)"
                                 : "vkQueuePresentKHR call";
  environment.gpuTimeBase = describe(app.timing.timeBase);
  environment.backend = app.devices.useCuda ? "cuda" : "cpu";
  environment.transfer = toString(app.options.transfer);
  environment.waitStrategy =
      app.options.transfer == TransferMode::copy ? "none" : toString(app.options.waitStrategy);
  return environment;
}

}  // namespace vksim
