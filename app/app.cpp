#include "app/app.h"

#include <GLFW/glfw3.h>

#include <csignal>
#include <cstdio>
#include <functional>
#include <numeric>

#include "app/capture/bench.h"
#include "app/interop/fd_handoff.h"
#include "app/interop/frame_tags.h"
#include "app/capture/schedule_recording.h"
#include "app/frame_loop.h"
#include "app/image_file.h"
#include "app/ui/script_player.h"
#include "renderer/readback.h"
#include "renderer/vk_check.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim {
namespace {

bool handoffFaultInjected(const Options& options) {
  return hasFault(options.faults, FaultKind::importFails) || hasFault(options.faults, FaultKind::exportFails);
}

// The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none did.
volatile std::sig_atomic_t interrupted = 0;
// The first signal lets the run finish its current frame, render one last
// frame and write what was asked for; a second one ends the process at once
// (the default action), for a run that does not stop. signal() and raise()
// are async-signal-safe.
void onInterrupt(int signalNumber) {
  if (interrupted) {
    std::signal(signalNumber, SIG_DFL);
    std::raise(signalNumber);
    return;
  }
  interrupted = signalNumber;
}

// VKSIM_VALIDATION and VKSIM_VALIDATION_CANARY: unset, empty or "0" is off,
// "1" is on. Anything else was checked by checkEnvironmentSwitches.
bool environmentSwitch(const char* name) {
  const char* value = std::getenv(name);
  return value && std::string(value) == "1";
}

// A misspelt switch ("yes", "on") must not quietly run without the layer
// while the summary still prints zero errors.
std::string checkEnvironmentSwitches() {
  for (const char* name : {"VKSIM_VALIDATION", "VKSIM_VALIDATION_CANARY"}) {
    const char* value = std::getenv(name);
    if (value && value[0] != '\0' && std::string(value) != "0" && std::string(value) != "1")
      return std::string(name) + " must be 0 or 1 (got '" + value + "')";
  }
  return {};
}

// The fds cross from Vulkan to CUDA here, and only here (app/fd_handoff.h
// has the ownership rule).
std::unique_ptr<Simulation> importIntoCuda(App& app, const ModelParams& params) {
  return handOverSharedHandles(
      app.device, app.shared.vertices, app.shared.semaphores, app.options.faults, "CUDA backend",
      [&](ExportedHandles& handles, std::string* error) {
        auto simulation =
            createCudaSimulation(params, app.devices.cuda->ordinal, handles.buffer, handles.semaphores, error);
        // createCudaSimulation takes every fd, whatever the outcome: imported
        // ones belong to CUDA, the rest it has closed (simulation.h).
        handles = ExportedHandles{};
        return simulation;
      });
}

// Test facility (--inject-fault import-fails / export-fails with the CPU
// backend, which imports nothing): the vertex memory is exported as the CUDA
// backend would have it, and the handoff fails where that backend's import
// would run, so the fd ownership path runs in CI on lavapipe.
[[noreturn]] void failInjectedHandoff(App& app) {
  handOverSharedHandles(app.device, app.shared.vertices, app.shared.semaphores, app.options.faults, "cpu backend",
                        [](ExportedHandles&, std::string* error) -> std::unique_ptr<Simulation> {
                          *error = "the CPU backend imports nothing";
                          return nullptr;
                        });
  throw EnvironmentError("cpu backend: an injected handoff fault did not fail");  // unreachable
}

// The copy path: nothing crosses between the APIs but bytes through the host.
std::unique_ptr<Simulation> createCopySimulation(App& app, const ModelParams& params) {
  if (!app.devices.useCuda) return createCpuCopySimulation(params);
  std::string error;
  auto simulation = createCudaCopySimulation(params, app.devices.cuda->ordinal, &error);
  if (!simulation) throw EnvironmentError("CUDA backend (copy path): " + error);
  return simulation;
}

// A capture that finished during the run (the overlay's Record with a frame
// count) says so in one line; one that failed too, without stopping the run.
void reportCapture(const Result<>& finished) {
  if (!finished) std::fprintf(stderr, "vkcuda-sim: %s\n", finished.error().message.c_str());
}

std::string summaryLine(const App& app, double seconds) {
  const double total = std::accumulate(app.frameMilliseconds.begin(), app.frameMilliseconds.end(), 0.0);
  const double mean = app.frameMilliseconds.empty() ? 0.0 : total / double(app.frameMilliseconds.size());
  const uint64_t timeline =
      app.shared.semaphores.timeline ? readTimelineCounter(app.device, app.shared.semaphores) : 0;
  char line[512];
  std::snprintf(
      line, sizeof line,
      "vkcuda-sim: frames=%llu seconds=%.3f mean_frame_ms=%.3f backend=%s sync=%s model=%s grid=%u "
      "switches=%llu timeline_value=%llu steps=%llu transfer=%s wait=%s %s validation_warnings=%u "
      "validation_errors=%u\n",
      static_cast<unsigned long long>(app.schedule.totalFrames), seconds, mean,
      app.devices.useCuda ? "cuda" : "cpu", toString(app.schedule.mode),
      toString(app.shared.simulation ? app.shared.simulation->params().model : app.options.model.model),
      app.shared.simulation ? app.shared.simulation->params().grid : app.options.model.grid,
      static_cast<unsigned long long>(app.schedule.switches), static_cast<unsigned long long>(timeline),
      static_cast<unsigned long long>(app.shared.simulation ? app.shared.simulation->stepCount() : 0),
      toString(app.shared.transfer),
      app.shared.transfer == TransferMode::copy ? "none" : toString(app.options.waitStrategy),
      describeValidation(app.instance).c_str(), validationCounts().warnings.load(),
      validationCounts().errors.load());
  return line;
}

// vkDeviceWaitIdle for teardown. A lost device counts as idle (the spec's
// Lost Device section: its work is as good as complete, and its objects may
// still be destroyed), and so does the test seam's injected loss, reported
// after the real wait so that nothing is destroyed while it is in use.
void waitForDeviceIdleInTeardown(App& app) {
  if (!app.device.device || app.deviceLost) return;
  VkResult result = vkDeviceWaitIdle(app.device.device);
  if (result == VK_SUCCESS && app.injectDeviceLostInTeardown) result = VK_ERROR_DEVICE_LOST;
  if (result == VK_ERROR_DEVICE_LOST) {
    app.deviceLost = true;
    return;
  }
  if (result != VK_SUCCESS) failVulkanCall("vkDeviceWaitIdle", result, __FILE__, __LINE__);
}

}  // namespace

CaptureEnvironment captureEnvironment(const App& app) {
  CaptureEnvironment environment;
  const PhysicalDeviceInfo& info = app.device.info;
  environment.gpu = info.name;
  environment.driver = describeDriver(info);
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

Result<> recordCapturedFrames(App& app, bool flush) {
  return recordFinishedFrames(
      app.capture, app.timing, app.scheduleLog, app.schedule.totalFrames,
      [&app] { return captureEnvironment(app); }, flush);
}

std::vector<uint8_t> readSharedVertices(App& app) {
  // A read of memory that another API wrote is defined only after an acquire
  // from VK_QUEUE_FAMILY_EXTERNAL (the drain's), never before.
  if (app.shared.vertexOwner != VertexOwner::vulkan)
    throw RuntimeFailure("the vertex buffer is still released to the other API; drain the schedule first");
  return readBuffer(app.device, app.shared.vertices.buffer, app.shared.vertices.size);
}

void createApp(App& app, const Options& options) {
  app.options = options;
  app.schedule.mode = options.sync;
  app.schedule.switchEvery = options.switchSyncEvery;
  app.camera = options.camera;

  InstanceOptions instanceOptions;
  // The project's standard is the layer with synchronization validation:
  // one switch turns on both.
  instanceOptions.validation = instanceOptions.synchronizationValidation =
      environmentSwitch("VKSIM_VALIDATION");
  if (!app.headless) instanceOptions.extraExtensions = windowInstanceExtensions();
  app.instance = createInstance(instanceOptions);

  app.devices =
      chooseDevices(listPhysicalDevices(app.instance), listCudaDevices(), options.backend, options.device);
  std::printf("%s\n", app.devices.reason.c_str());

  if (!app.headless) {
    app.window = createWindow({options.width, options.height}, "vkcuda-sim");
    app.surface = createWindowSurface(app.instance, app.window);
  }
  DeviceOptions deviceOptions;
  deviceOptions.swapchain = !app.headless;
  deviceOptions.surface = app.surface;
  // An injected import or export fault exports the vertex memory even for
  // the CPU backend (createSharedState).
  deviceOptions.exportMemory = app.devices.useCuda || handoffFaultInjected(options);
  deviceOptions.exportSemaphores = app.devices.useCuda;
  app.device = createDevice(app.instance, app.devices.vulkan, deviceOptions);
  // Proof that the counters on the summary line count (tests/integration):
  // without the layer the invalid calls would be undefined behaviour, so the
  // canary needs VKSIM_VALIDATION=1 as well.
  if (environmentSwitch("VKSIM_VALIDATION_CANARY")) {
    if (!app.instance.validation)
      throw EnvironmentError(
          "VKSIM_VALIDATION_CANARY=1 needs VKSIM_VALIDATION=1 (the canary's calls are invalid)");
    recordValidationCanary(app.device);
  }

  if (app.headless) {
    app.offscreen = createOffscreenTarget(app.device, {options.width, options.height});
    app.renderPass = app.offscreen.renderPass;
  } else {
    app.swapchain =
        createSwapchainTarget(app.device, app.surface, windowFramebufferSize(app.window), options.vsync);
    app.renderPass = app.swapchain.renderPass;
  }
  app.pipeline = createMeshPipeline(app.device, app.renderPass);
  app.frame = createFrameResources(app.device);
  app.gpuTimer = createGpuTimer(app.device, kFramesInFlight);
  createSharedState(app, options.model);
  // ImGui: always with a window; headless only when asked (--overlay), so
  // that plain headless runs and their screenshots stay free of it.
  if (!app.headless || options.overlay) createOverlay(app);
  if (!app.headless) installInputCallbacks(app);
}

void createSharedState(App& app, const ModelParams& params) {
  SharedState& shared = app.shared;
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  const bool cuda = app.devices.useCuda;
  shared.transfer = app.options.transfer;
  const bool copyPath = shared.transfer == TransferMode::copy;
  const bool exported = cuda && !copyPath;
  const bool rehearsedHandoff = !cuda && !copyPath && handoffFaultInjected(app.options);
  // Zero-copy: CUDA writes exported device-local memory, the CPU backend
  // host-visible memory it maps. Copy: a plain device-local buffer that only
  // the frame's upload writes, fed by a host-visible staging buffer.
  shared.vertices = createSharedVertexBuffer(
      app.device, bytes, cuda || copyPath ? VertexMemory::deviceLocal : VertexMemory::hostVisible,
      /*exportable=*/exported || rehearsedHandoff);
  if (copyPath)
    shared.staging =
        createGpuBuffer(app.device, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  shared.semaphores = createSyncSemaphores(app.device, /*exportable=*/exported);
  shared.indices = createGridIndexBuffer(app.device, params.grid);
  if (copyPath) {
    shared.simulation = createCopySimulation(app, params);
  } else if (cuda) {
    shared.simulation = importIntoCuda(app, params);
  } else if (rehearsedHandoff) {
    failInjectedHandoff(app);
  } else if (app.options.frameTags) {
    shared.simulation = createFrameTagSimulation(app, params);
  } else {
    shared.hostOps = std::make_unique<VulkanHostSemaphores>(app.device, shared.semaphores);
    shared.simulation = createCpuSimulation(params, shared.vertices.mapped, *shared.hostOps);
  }
  // CUDA writes the initial state into memory that Vulkan has not used yet:
  // Vulkan's first use must acquire it from EXTERNAL, as after any sim step.
  shared.externalWriter = exported;
  shared.vertexOwner = exported ? VertexOwner::external : VertexOwner::vulkan;
  // The initial write ends in a simDone signal that render 0 waits on (the
  // copy path: in host memory that render 0 stages); the schedule records
  // what the write reports having enqueued, and restarts at frame 0.
  const StepResult initial = shared.simulation->writeInitialState();
  restartSchedule(app.schedule, initial, copyPath);
  if (!copyPath && scheduleRecording(app.capture, app.schedule))
    recordInitialWrite(app.scheduleLog, app.schedule, initial.signalEnqueued);
  if (initial.status != StepStatus::ok) throw RuntimeFailure("the simulation could not write its initial state");
}

void destroySharedState(App& app) {
  SharedState& shared = app.shared;
  if (shared.simulation) {
    // FAULT HOOK (--inject-fault sim-stalls): let a stalled step finish, so
    // that the drain and finish() below see the work end.
    shared.simulation->releaseInjectedStall();
    // A no-op after the run's own drain: it consumes only what is outstanding.
    drainSchedule(app);
    // CUDA first (design notes): no wait or signal outstanding, then the
    // imported objects go before Vulkan frees what they alias. With the
    // Vulkan device lost, a CUDA wait on one of its signals never ends: the
    // backend then keeps its imports (it says so), whose payloads outlive
    // Vulkan's objects, and the Vulkan side is destroyed all the same.
    if (!shared.simulation->finish(kWaitTimeoutNs) && !app.deviceLost)
      throw RuntimeFailure("timeout: the simulation did not finish");
    // Everything has completed: the last frames' timings are all there is.
    // (A lost device has none to give.)
    if (!app.deviceLost) settleFrameTimings(app.timing, app.device, app.gpuTimer, app.shared.simulation.get());
    shared.simulation.reset();
  }
  shared.hostOps.reset();
  waitForDeviceIdleInTeardown(app);
  // Reverse order of createSharedState.
  destroyGpuBuffer(app.device, shared.frameTagResult);
  shared.frameTagRender.reset();
  destroyGridIndexBuffer(app.device, shared.indices);
  destroySyncSemaphores(app.device, shared.semaphores);
  destroyGpuBuffer(app.device, shared.staging);
  destroySharedVertexBuffer(app.device, shared.vertices);
  shared.externalWriter = false;
  shared.vertexOwner = VertexOwner::vulkan;
}

void rebuildSharedState(App& app, const ModelParams& params) {
  destroySharedState(app);
  createSharedState(app, params);
}

void destroyApp(App& app) {
  // Reverse order of createApp. The input callbacks go first so that no
  // event reaches a half-destroyed app.
  if (app.window.handle) removeInputCallbacks(app);
  if (app.device.device) {
    // The overlay was created after the shared state, so it goes first; its
    // buffers may still be read by the last frame (and the drain submits on
    // the frame's resources): everything is finished before anything goes.
    if (app.shared.simulation) {
      // FAULT HOOK (--inject-fault sim-stalls): let a stalled step finish, so
      // that the drain and the idle wait see the work end.
      app.shared.simulation->releaseInjectedStall();
      drainSchedule(app);
    }
    waitForDeviceIdleInTeardown(app);
    destroyOverlay(app);
    destroySharedState(app);
    destroyGpuTimer(app.device, app.gpuTimer);
    destroyFrameResources(app.device, app.frame);
    destroyMeshPipeline(app.device, app.pipeline);
    if (app.headless)
      destroyOffscreenTarget(app.device, app.offscreen);
    else
      destroySwapchainTarget(app.device, app.swapchain);
    destroyDevice(app.device);
  }
  if (app.surface) vkDestroySurfaceKHR(app.instance.instance, app.surface, nullptr);
  app.surface = VK_NULL_HANDLE;
  if (app.window.handle) destroyWindow(app.window);
  if (app.instance.instance) destroyInstance(app.instance);
}

// After a run-time failure: the frames recorded before it still make a
// complete capture (CSV, summary, trace), once the schedule is drained so that
// every frame's timings are in. Anything that fails here is left unsaid (the
// failure has its one line already) and the capture's temporary files are
// removed, as after any failure: a file is there complete or not at all.
void finishCaptureAfterFailure(App& app) {
  // A lost device (real or injected) has no timings left to give.
  if (!app.capture.recording || !app.shared.simulation || app.deviceLost || app.injectDeviceLostInTeardown) return;
  try {
    app.shared.simulation->releaseInjectedStall();
    drainSchedule(app);
    if (!app.shared.simulation->finish(kWaitTimeoutNs)) return;
    settleFrameTimings(app.timing, app.device, app.gpuTimer, app.shared.simulation.get());
    if (recordCapturedFrames(app, /*flush=*/true)) std::printf("%s\n", app.capture.lastResult.c_str());
  } catch (const std::exception&) {
  }
}

int runThenTearDown(App& app, const std::function<void()>& body) {
  int exitCode = kExitSuccess;
  try {
    body();
  } catch (const EnvironmentError& error) {
    std::fprintf(stderr, "vkcuda-sim: %s\n", error.what());
    exitCode = kExitEnvironment;
  } catch (const RuntimeFailure& error) {
    std::fprintf(stderr, "vkcuda-sim: %s\n", error.what());
    exitCode = kExitRuntime;
    finishCaptureAfterFailure(app);
  }
  try {
    destroyApp(app);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "vkcuda-sim: teardown: %s\n", error.what());
    if (exitCode == kExitSuccess) exitCode = kExitRuntime;
  }
  // A device lost only in teardown: everything was destroyed all the same,
  // but the run did not end well. After an earlier failure (already one line
  // on stderr) the loss adds no second line.
  if (app.deviceLost && exitCode == kExitSuccess) {
    std::fprintf(stderr,
                 "vkcuda-sim: the Vulkan device was lost during teardown (VK_ERROR_DEVICE_LOST); "
                 "everything was destroyed all the same\n");
    exitCode = kExitRuntime;
  }
  return exitCode;
}

int runApplication(const Options& options) {
  if (const std::string problem = checkEnvironmentSwitches(); !problem.empty()) {
    std::fprintf(stderr, "vkcuda-sim: %s\n", problem.c_str());
    return kExitUsage;
  }
  if (options.listDevices) {
    Instance instance = createInstance({});
    std::printf("%s", describeDevices(listPhysicalDevices(instance), listCudaDevices()).c_str());
    destroyInstance(instance);
    return kExitSuccess;
  }
  if (options.bench) return runBenchmark(options);

  App app;
  app.headless = options.headless;
  if (!app.headless) {
    std::string reason;
    if (!initWindowing(&reason)) {
      std::printf("no display (%s): running headless\n", reason.c_str());
      app.headless = true;
    }
  }
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);

  const int exitCode = runThenTearDown(app, [&] {
    createApp(app, options);
    const int64_t frames = framesToRun(options, app.headless);
    std::printf("running %s, %s sync, %s model, grid %u, %s\n", app.headless ? "headless" : "in a window",
                toString(app.schedule.mode), toString(options.model.model), options.model.grid,
                frames == 0 ? "until closed" : (std::to_string(frames) + " frames").c_str());
    std::fflush(stdout);
    if (!options.capturePath.empty() || !options.tracePath.empty()) {
      // The whole run, warm-up rows included (the summary leaves them out).
      const CaptureRequest request{options.capturePath, options.tracePath, options.warmupFrames, 0};
      if (const Result<> started = startCapture(app.capture, request, app.schedule.totalFrames,
                                                app.devices.useCuda ? "cuda" : "cpu");
          !started)
        throw RuntimeFailure(started.error().message);
    }
    RgbaImage screenshot;
    const bool wantScreenshot = !options.screenshotPath.empty();
    ScriptPlayer script = createScriptPlayer(options.inputScript);
    RgbaImage scriptScreenshot;
    const auto start = std::chrono::steady_clock::now();
    auto previous = start;
    bool announcedInterrupt = false;
    for (;;) {
      // An interrupt makes the next frame the last: it is rendered and
      // captured like the last of a --frames run, so a screenshot shows the
      // final state, never an empty image.
      const bool stopping = interrupted != 0;
      if (stopping && !announcedInterrupt) {
        std::printf("interrupted (%s): rendering one last frame and finishing\n",
                    interrupted == SIGINT ? "SIGINT" : "SIGTERM");
        std::fflush(stdout);
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
      if (last) break;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    // The drain leaves the vertex buffer Vulkan's (acquired from EXTERNAL on
    // the CUDA path), so --dump-vertices below reads defined contents.
    drainSchedule(app);
    if (app.deviceLost)
      throw RuntimeFailure("the Vulkan device was lost (VK_ERROR_DEVICE_LOST) while the schedule drained");
    if (!app.shared.simulation->finish(kWaitTimeoutNs))
      throw RuntimeFailure("timeout: the simulation did not finish");
    // Nothing is in flight now: every frame's timings are in, or never will be.
    settleFrameTimings(app.timing, app.device, app.gpuTimer, app.shared.simulation.get());
    if (const Result<> finished = recordCapturedFrames(app, /*flush=*/true); !finished)
      throw RuntimeFailure(finished.error().message);
    if (!app.capture.lastResult.empty()) std::printf("%s\n", app.capture.lastResult.c_str());
    if (!options.dumpVerticesPath.empty()) {
      const auto bytes = readSharedVertices(app);
      if (const std::string error = writeBinaryFile(options.dumpVerticesPath, bytes); !error.empty())
        throw RuntimeFailure(error);
      std::printf("wrote %zu bytes of vertices to %s\n", bytes.size(), options.dumpVerticesPath.c_str());
    }
    if (wantScreenshot) {
      // A window closed or minimised before any frame was captured leaves no
      // image: say so (exit 4) rather than write an empty one.
      if (screenshot.pixels.empty())
        throw RuntimeFailure("no frame was rendered, so the screenshot " + options.screenshotPath +
                             " was not written");
      if (const std::string error = writePngFile(options.screenshotPath, screenshot); !error.empty())
        throw RuntimeFailure(error);
      std::printf("wrote screenshot %ux%u to %s\n", screenshot.width, screenshot.height,
                  options.screenshotPath.c_str());
    }
    std::printf("%s", summaryLine(app, seconds).c_str());
  });
  if (!options.headless) terminateWindowing();
  std::fflush(stdout);
  return exitCode;
}

}  // namespace vksim
