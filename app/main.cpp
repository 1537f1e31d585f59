// vkcuda-sim: a Vulkan renderer and a CUDA (or CPU) simulation sharing one
// vertex buffer with zero copies. Exit codes: 0 success, 2 usage error,
// 3 unsupported environment, 4 runtime failure (README.md).
//
// main: parse, create, run, report. The App and its creation and teardown
// are app/app.h; one frame is app/frame_loop.h; the interop steps are
// app/interop/.
#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>

#include "app/app.h"
#include "app/capture/bench.h"
#include "app/capture/progress.h"
#include "app/cli.h"
#include "app/frame_loop.h"
#include "app/testing/present_denial.h"
#include "app/files.h"
#include "app/ui/controls.h"
#include "app/ui/interrupt.h"
#include "app/ui/overlay_panels.h"
#include "app/ui/present_check.h"
#include "app/ui/script_player.h"
#include "base/host_clock.h"
#include "renderer/external_transfer_stages.h"

namespace vksim {
namespace {

// A misspelt switch ("yes", "on") must not quietly run without the layer
// while the summary still prints zero errors.
Result<> checkEnvironmentSwitches() {
  for (const char* name :
       {kValidationVariable, kValidationCanaryVariable, kDisableMaintenance8Variable, kDenyPresentVariable,
        kSkipDisplayCheckVariable, kVulkanTileStepVariable, kStrictSubgroupRowsVariable}) {
    const char* value = std::getenv(name);
    if (value && value[0] != '\0' && std::string(value) != "0" && std::string(value) != "1")
      return fail(fmt::format("{} must be 0 or 1 (got '{}')", name, value));
  }
  return {};
}

// A capture that finished during the run (the overlay's Record with a frame
// count) says so in one line; one that failed too, without stopping the run.
void reportCapture(const Result<>& finished) {
  if (!finished) std::fprintf(stderr, "vkcuda-sim: %s\n", finished.error().message.c_str());
}

// The one line every run ends with (its keys are read by scripts and tests).
std::string summaryLine(const App& app, double seconds) {
  const double total = std::accumulate(app.frameMilliseconds.begin(), app.frameMilliseconds.end(), 0.0);
  const double mean = app.frameMilliseconds.empty() ? 0.0 : total / double(app.frameMilliseconds.size());
  const uint64_t timeline =
      app.grid.semaphores.timeline ? readTimelineCounter(app.device, app.grid.semaphores) : 0;
  const SimulationBackend* simulation = simulationOf(app.grid);
  const TransferMode transfer = app.path.descriptor ? app.path.descriptor->transfer : TransferMode::zeroCopy;
  return fmt::format(
      "vkcuda-sim: frames={} seconds={:.3f} mean_frame_ms={:.3f} backend={} sync={} model={} grid={} "
      "switches={} timeline_value={} steps={} transfer={} wait={} memory_owner={} lod={} lod_levels={}-{} "
      "triangles={} overlay_buffer_growths={} transfer_stages={} {} validation_warnings={} "
      "validation_errors={}\n",
      app.schedule.totalFrames, seconds, mean, backendName(app.devices),
      shownSyncMode(transfer, app.schedule.mode),
      toString(simulation ? simulation->params().model : app.options.model.model),
      simulation ? simulation->params().grid : app.options.model.grid, app.schedule.switches, timeline,
      simulation ? simulation->stepCount() : 0, toString(transfer),
      shownWaitStrategy(transfer, app.options.waitStrategy), shownMemoryOwner(transfer, app.options.memoryOwner),
      app.options.levelOfDetail ? "on" : "off", app.meshDraw.minLevel, app.meshDraw.maxLevel,
      app.meshDraw.triangles, app.overlay.bufferGrowths, transferStagesName(app.device.maintenance8),
      describeValidation(app.instance), validationCounts().warnings.load(), validationCounts().errors.load());
}

// --list-devices: every Vulkan device, the CUDA and OpenCL devices, and
// which pairs match.
int listDevices() {
  // With a display, the instance can make a surface, and each device is
  // asked whether it can present to it (app/ui/present_check.h).
  std::string noWindowReason;
  const bool windowing = initWindowing(&noWindowReason);
  InstanceOptions instanceOptions;
  if (windowing) instanceOptions.extraExtensions = windowInstanceExtensions();
  Instance instance = createInstance(instanceOptions);
  const std::vector<PhysicalDeviceInfo> vulkan = listPhysicalDevices(instance);
  std::printf("%s", describeDevices(vulkan, listCudaDevices()).c_str());
  std::printf("%s", describePresentSupport(instance, vulkan, windowing, noWindowReason).c_str());
  std::printf("%s", describeOpenClDevices(vulkan, listOpenClDevices()).c_str());
  destroyInstance(instance);
  if (windowing) terminateWindowing();
  return kExitSuccess;
}

// A window was asked for but no display can be opened: the run goes on headless.
void chooseDisplay(App& app, const Options& options) {
  app.headless = options.headless;
  if (!app.headless) {
    std::string reason;
    if (!initWindowing(&reason)) {
      std::printf("no display (%s): running headless\n", reason.c_str());
      app.headless = true;
    }
  }
}

void announceRun(const App& app, const Options& options, int64_t frames) {
  std::printf("running %s, %s sync, %s model, grid %u, %s\n", app.headless ? "headless" : "in a window",
              toString(app.schedule.mode), toString(options.model.model), options.model.grid,
              frames == 0 ? "until closed" : (std::to_string(frames) + " frames").c_str());
  std::fflush(stdout);
}

void startRequestedCapture(App& app, const Options& options) {
  if (options.capturePath.empty() && options.tracePath.empty()) return;
  // The whole run, warm-up rows included (the summary leaves them out).
  const CaptureRequest request{options.capturePath, options.tracePath, options.warmupFrames, 0,
                               options.captureFormat, options.captureColumns};
  if (const Result<> started = startCapture(app.capture, request, app.schedule.totalFrames,
                                            backendName(app.devices)); !started)
    throw RuntimeFailure(started.error().message);
}

// The frames, until the frame count, a close or an interrupt; the last one
// rendered goes to `screenshot` when --screenshot asked for it. Returns the
// seconds the frames took.
double runFrames(App& app, const Options& options, int64_t frames, RgbaImage& screenshot) {
  const bool wantScreenshot = !options.screenshotPath.empty();
  ScriptPlayer script = createScriptPlayer(options.inputScript);
  RgbaImage scriptScreenshot;
  const auto start = std::chrono::steady_clock::now();
  auto previous = start;
  bool announcedInterrupt = false;
  // Progress on a terminal for a run with a frame count; nothing on a pipe.
  ProgressBar progress = createProgressBar(frames > 0 ? uint64_t(frames) : 0, hostNowNs());
  for (;;) {
    // An interrupt makes the next frame the last: it is rendered and
    // captured like the last of a --frames run, so a screenshot shows the
    // final state, never an empty image.
    // The handler has announced the signal already.
    const bool stopping = interruptSignal() != 0;
    if (stopping && !announcedInterrupt) {
      finishProgressBar(progress);
      announcedInterrupt = true;
    }
    const bool closing =
        stopping || app.quitRequested || (!app.headless && glfwWindowShouldClose(app.window.handle));
    const bool last = closing || (frames > 0 && int64_t(app.schedule.totalFrames) + 1 >= frames);
    if (!app.headless) pollWindowEvents(app.window);
    // The frame boundary: input (real and scripted), then what it asked
    // for (rebuilds, swapchain), then the overlay's widgets for this frame.
    playInputScript(script, app);
    applyFrameBoundaryRequests(app);
    buildOverlay(app);
    RgbaImage* capture = (last && wantScreenshot) ? &screenshot
                         : screenshotDue(script)  ? &scriptScreenshot
                                                  : nullptr;
    const FrameStatus status = runFrame(app, capture);
    if (status == FrameStatus::rendered && screenshotDue(script)) writeDueScreenshots(script, *capture);
    if (status == FrameStatus::rendered) reportCapture(recordCapturedFrames(app, /*flush=*/false));
    if (status == FrameStatus::skipped) {
      if (!app.headless) glfwWaitEventsTimeout(0.05);
      if (closing) break;
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    app.frameMilliseconds.push_back(std::chrono::duration<double, std::milli>(now - previous).count());
    previous = now;
    if (const int64_t nowNs = hostNowNs(); countProgressFrame(progress, nowNs)) {
      const CaptureRequest& request = app.capture.request;
      drawProgressBar(progress, nowNs,
                      app.capture.recording ? "recording " + recordedFile(request.csvPath, request.tracePath) : "");
    }
    if (last) break;
  }
  finishProgressBar(progress);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// After the last frame: nothing left in flight, every timing and captured
// row in.
void settleRun(App& app) {
  // The drain leaves the vertex buffer Vulkan's (acquired from EXTERNAL on
  // the CUDA path), so --dump-vertices afterwards reads defined contents.
  drainSchedule(app);
  if (app.deviceLoss.lost)
    throw RuntimeFailure("the Vulkan device was lost (VK_ERROR_DEVICE_LOST) while the schedule drained");
  if (!simulationOf(app.grid)->finish(kWaitTimeoutNs))
    throw RuntimeFailure("timeout: the simulation did not finish");
  // Nothing is in flight now: every frame's timings are in, or never will be.
  settleFrameTimings(app.timing, app.device, app.gpuTimer, simulationOf(app.grid));
  if (const Result<> finished = recordCapturedFrames(app, /*flush=*/true); !finished)
    throw RuntimeFailure(finished.error().message);
  if (!app.capture.lastResult.empty()) std::printf("%s\n", app.capture.lastResult.c_str());
}

// --dump-vertices and --screenshot.
void writeRequestedFiles(App& app, const Options& options, const RgbaImage& screenshot) {
  if (!options.dumpVerticesPath.empty()) {
    const auto bytes = readSharedVertices(app.device, app.grid);
    if (const Result<> written = writeFileAtomically(options.dumpVerticesPath, "file", bytes); !written)
      throw RuntimeFailure(written.error().message);
    std::printf("wrote %zu bytes of vertices to %s\n", bytes.size(), options.dumpVerticesPath.c_str());
  }
  if (!options.screenshotPath.empty()) {
    // A window closed or minimised before any frame was captured leaves no
    // image: say so (exit 4) rather than write an empty one.
    if (screenshot.pixels.empty())
      throw RuntimeFailure("no frame was rendered, so the screenshot " + options.screenshotPath +
                           " was not written");
    if (const Result<> written = writePngFile(options.screenshotPath, screenshot); !written)
      throw RuntimeFailure(written.error().message);
    std::printf("wrote screenshot %ux%u to %s\n", screenshot.width, screenshot.height,
                options.screenshotPath.c_str());
  }
}

// The whole run after parsing: returns the process exit code.
int runApplication(const Options& options) {
  if (const Result<> switches = checkEnvironmentSwitches(); !switches) {
    std::fprintf(stderr, "vkcuda-sim: %s\n", switches.error().message.c_str());
    return switches.error().exitCode;
  }
  if (options.listDevices) return listDevices();
  if (options.bench) return runBenchmark(options, interruptSignal());

  App app;
  chooseDisplay(app, options);
  const int exitCode = runThenTearDown(app, [&] {
    createApp(app, options);
    const InputCallbackScope inputCallbacks(app);  // windowed: GLFW's events reach `app` until the body ends
    const int64_t frames = framesToRun(options, app.headless);
    // Start-up ends here: a signal from now on asks for a last frame
    // (app/ui/interrupt.h), and the run's files may be opened.
    endStartUp();
    // The capture's files exist before the run says it is running: a reader
    // of that line (a script, a test) may act on the output directory.
    startRequestedCapture(app, options);
    announceRun(app, options, frames);
    RgbaImage screenshot;
    const double seconds = runFrames(app, options, frames, screenshot);
    settleRun(app);
    writeRequestedFiles(app, options, screenshot);
    std::printf("%s", summaryLine(app, seconds).c_str());
  });
  if (!options.headless) terminateWindowing();
  std::fflush(stdout);
  return exitCode;
}

}  // namespace
}  // namespace vksim

int main(int argc, char** argv) {
  // Before parsing: a signal during start-up ends the process at once
  // (app/ui/interrupt.h).
  vksim::installInterruptHandlers();
  const vksim::Result<vksim::Options> parsed = vksim::parseCommandLine(argc, argv);
  if (!parsed) {
    // --help and --version arrive here too, as exit code 0 (base/result.h).
    const vksim::Error& stop = parsed.error();
    std::fputs(stop.message.c_str(), stop.exitCode == vksim::kExitSuccess ? stdout : stderr);
    return stop.exitCode;
  }
  return vksim::runApplication(*parsed);
}
