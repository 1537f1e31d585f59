#include "app/capture/present_timing.h"
#include "app/app.h"

#include <cstdio>
#include <functional>

#include "app/capture/schedule_recording.h"
#include "app/paths/path_factory.h"
#include "app/testing/fault_hooks.h"
#include "app/ui/present_check.h"
#include "renderer/vk_check.h"
#include "sim/nvtx_ranges.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim {
namespace {

// What the capture room records of the grid resources' life: the initial
// write and the drain in the trace's schedule events, the tag each render
// saw (--frame-tags) in its "render submit" event, and the last frames'
// timings once all work is done.
// The tag a render saw (--frame-tags), into its "render submit" event.
void noteFrameTagSeen(App& app, const SeenFrameTag& seen) {
  for (auto event = app.scheduleLog.events.rbegin(); event != app.scheduleLog.events.rend(); ++event)
    if (event->side == ScheduleSide::render && event->frame == seen.frame) {
      event->sawTag = seen.tag;
      break;
    }
}

GridResourceHooks captureHooks(App& app) {
  GridResourceHooks hooks;
  hooks.initialWriteDone = [&app](bool signalledSimDone) {
    if (scheduleRecording(app.capture, app.schedule))
      recordInitialWrite(app.scheduleLog, app.schedule, signalledSimDone);
  };
  hooks.drainSubmitted = [&app](std::span<const SemaphoreWait> waits) {
    if (scheduleRecording(app.capture, app.schedule))
      recordDrainSubmission(app.scheduleLog, app.schedule, {app.grid.semaphores, currentSlotResources(app).imageAvailable},
                            waits);
  };
  hooks.workFinished = [&app] {
    settleFrameTimings(app.timing, app.device, app.gpuTimer, simulationOf(app.grid));
  };
  return hooks;
}

}  // namespace

GridSetup gridSetup(App& app) {
  app.config = interopConfig(app.options);
  return {app.device, app.devices, app.config, app.gridHooks, app.devices.cuda ? app.devices.cuda->ordinal : -1};
}

CaptureEnvironment captureEnvironment(const App& app) {
  CaptureEnvironment environment;
  const PhysicalDeviceInfo& info = app.device.info;
  environment.gpu = info.name;
  environment.driver = describeDriver(info);
  environment.vulkanVersion = formatVersion(info.apiVersion);
  if (app.devices.backend == Backend::cuda) environment.cudaVersion = formatCudaVersion(app.cudaDevices.driverVersion);
  environment.presentMode = app.headless ? "headless" : presentModeName(app.swapchain.presentMode);
  const VkExtent2D extent = app.headless ? app.offscreen.extent : app.swapchain.extent;
  environment.width = extent.width;
  environment.height = extent.height;
  environment.presentPoint = app.headless
                                 ? "end of the frame's vkQueueSubmit (headless: nothing is presented)"
                                 : "vkQueuePresentKHR call";
  environment.gpuTimeBase = describe(app.timing.timeBase);
  environment.displayTiming = describeDisplayTiming(app.headless, app.device, app.swapchain.presentMode);
  environment.backend = backendName(app.devices);
  environment.transfer = toString(app.options.transfer);
  environment.memoryOwner = shownMemoryOwner(app.options.transfer, app.options.memoryOwner);
  environment.waitStrategy = shownWaitStrategy(app.options.transfer, app.options.waitStrategy);
  return environment;
}

Result<> recordCapturedFrames(App& app, bool flush) {
  return recordFinishedFrames(
      app.capture, app.timing, app.scheduleLog, app.schedule.totalFrames,
      [&app] { return captureEnvironment(app); }, flush);
}

namespace {

// What the Vulkan device is created with, once the backend is chosen.
DeviceOptions deviceOptionsFor(const App& app, const Options& options) {
  DeviceOptions deviceOptions;
  deviceOptions.swapchain = !app.headless;
  deviceOptions.surface = app.surface;
  // An injected import or export fault exports the vertex memory even for
  // the CPU backend (app/paths/cpu_host_path.h).
  deviceOptions.exportMemory = sharesWithAnotherApi(app.devices.backend) || handoffFaultInjected(options.faults);
  deviceOptions.exportSemaphores = sharesWithAnotherApi(app.devices.backend);
  // VK_NVX_binary_import and bufferDeviceAddress only when cuda-nvx runs.
  deviceOptions.cudaKernelLaunch = app.devices.backend == Backend::cudaNvx;
  // VK_KHR_maintenance8 wherever offered, unless the A/B switch turns it off.
  deviceOptions.maintenance8 = !environmentSwitch(kDisableMaintenance8Variable);
  return deviceOptions;
}

}  // namespace

void createApp(App& app, const Options& options) {
  app.options = options;
  app.schedule.mode = options.sync;
  app.schedule.switchEvery = options.switchSyncEvery;
  app.camera = options.camera;

  InstanceOptions instanceOptions;
  // The project's standard is the layer with synchronization validation:
  // one switch turns on both.
  instanceOptions.validation = instanceOptions.synchronizationValidation =
      environmentSwitch(kValidationVariable);
  if (!app.headless) instanceOptions.extraExtensions = windowInstanceExtensions();
  app.instance = createInstance(instanceOptions);

  app.cudaDevices = listCudaDevices();
  const std::vector<PhysicalDeviceInfo> vulkanDevices = listPhysicalDevices(app.instance);
  // OpenCL is asked about only for --backend opencl (auto never picks it).
  app.devices = options.backend == BackendChoice::opencl
                    ? chooseOpenClDevices(vulkanDevices, listOpenClDevices(), options.device)
                    : chooseDevicesForMemoryOwner(vulkanDevices, app.cudaDevices, interopConfig(options));

  if (!app.headless) {
    // Asked of the X server before any driver is asked about the window
    // (app/ui/present_check.h): NVIDIA's driver must not meet an X server it
    // cannot present to.
    const DisplayTraits display = readRunDisplayTraits();
    app.devices =
        chooseDeviceForDisplay(app.devices, vulkanDevices, app.cudaDevices, interopConfig(options), display);
    std::printf("%s\n", app.devices.reason.c_str());
    app.window = createWindow({options.width, options.height}, "vkcuda-sim");
    app.surface = createWindowSurface(app.instance, app.window);
    requirePresentSupport(app.devices, app.surface, display);
  } else {
    std::printf("%s\n", app.devices.reason.c_str());
  }
  app.device = createDevice(app.instance, app.devices.vulkan, deviceOptionsFor(app, options));
  // Proof that the counters on the summary line count (tests/integration):
  // without the layer the invalid calls would be undefined behaviour, so the
  // canary needs VKSIM_VALIDATION=1 as well.
  if (environmentSwitch(kValidationCanaryVariable)) {
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
  for (FrameResources& slot : app.frameSlots) slot = createFrameResources(app.device);
  app.frameSlot = 0;
  app.gpuTimer = createGpuTimer(app.device, kMaxFramesInFlight);
  app.gridHooks = captureHooks(app);
  app.path.frameTagSeen = [&app](const SeenFrameTag& seen) { noteFrameTagSeen(app, seen); };
  createPathGrid(app.grid, app.path, gridSetup(app), options.model, app.schedule);
  // ImGui: always with a window; headless only when asked (--overlay), so
  // that plain headless runs and their screenshots stay free of it.
  if (!app.headless || options.overlay)
    createOverlay(app.overlay, app.instance, app.device,
                  {app.renderPass, app.window.handle, app.headless ? 0 : app.swapchain.minImageCount,
                   uint32_t(app.swapchain.images.size())},
                  app.cudaDevices, options.sceneName);
}

namespace {

void waitForEarlierFrames(App& app) {
  // The drain and the teardown wait for the last frame's fence (currentSlotResources);
  // with two frames in flight the other slot's frame was submitted before it
  // and is waited for here, so that nothing of it is pending when its
  // command buffers or the grid resources go.
  for (uint32_t slot = 0; slot < kMaxFramesInFlight; ++slot) {
    if (slot == app.frameSlot) continue;
    if (!waitForFenceInTeardown(app.device, app.frameSlots[slot].inFlight, app.deviceLoss))
      throwWaitTimeout(app.schedule, "render fence of the frame before the last");
  }
}

}  // namespace

void rebuildGridResources(App& app, const ModelParams& params) {
  const ProfileRange range("grid rebuild");  // NVTX
  const GridSetup setup = gridSetup(app);
  drainSchedule(app);
  destroyPathGrid({app.device, currentSlotResources(app), app.schedule, app.deviceLoss, app.gridHooks}, app.grid,
                  app.path);
  createPathGrid(app.grid, app.path, setup, params, app.schedule);
}

void drainSchedule(App& app) {
  if (app.path.drained) return;  // this route drained already (the run's end, the bench)
  // FAULT HOOK (--inject-fault sim-stalls): let a stalled step finish, so
  // that the drain and the simulation's finish see the work end.
  if (SimulationBackend* simulation = simulationOf(app.grid)) simulation->releaseInjectedStall();
  waitForEarlierFrames(app);
  // A grid that failed before its simulation existed has no schedule to end.
  if (simulationOf(app.grid))
    drainPathGrid({app.device, currentSlotResources(app), app.schedule, app.deviceLoss, app.gridHooks}, app.grid,
                  app.path);
}

void destroyApp(App& app) {
  // Reverse order of createApp. (The run loop removed its input callbacks
  // before this, so no event reaches a half-destroyed app.)
  if (app.device.device) {
    // The overlay was created after the grid resources, so it goes first; its
    // buffers may still be read by the last frame (and the drain submits on
    // the frame's resources): everything is finished before anything goes.
    // The drain is this exit route's one (a no-op where the run's end or a
    // failure's capture drained already: app.path.drained).
    if (simulationOf(app.grid)) drainSchedule(app);
    waitForDeviceIdleInTeardown(app.device, app.deviceLoss);
    destroyOverlay(app.overlay, app.device);
    destroyPathGrid({app.device, currentSlotResources(app), app.schedule, app.deviceLoss, app.gridHooks}, app.grid,
                    app.path);
    destroyGpuTimer(app.device, app.gpuTimer);
    for (FrameResources& slot : app.frameSlots) destroyFrameResources(app.device, slot);
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
  if (!app.capture.recording || !simulationOf(app.grid) || app.deviceLoss.lost || app.deviceLoss.injectInTeardown)
    return;
  try {
    drainSchedule(app);
    if (!simulationOf(app.grid)->finish(kWaitTimeoutNs)) return;
    settleFrameTimings(app.timing, app.device, app.gpuTimer, simulationOf(app.grid));
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
  if (app.deviceLoss.lost && exitCode == kExitSuccess) {
    std::fprintf(stderr,
                 "vkcuda-sim: the Vulkan device was lost during teardown (VK_ERROR_DEVICE_LOST); "
                 "everything was destroyed all the same\n");
    exitCode = kExitRuntime;
  }
  return exitCode;
}

}  // namespace vksim
