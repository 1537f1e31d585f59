// Everything one run holds, and the wiring between renderer/ and sim/: the
// interop core (app/interop/) gets the pieces of App that each step uses;
// the exported fds cross from Vulkan to CUDA in app/paths/zero_copy_path.cpp.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/ui/camera.h"
#include "app/capture/capture_session.h"
#include "app/cli.h"
#include "app/interop/device_pairing.h"
#include "app/interop/grid_resources.h"
#include "app/interop/teardown.h"
#include "app/paths/path_factory.h"
#include "app/capture/frame_timing.h"
#include "app/ui/input.h"
#include "app/ui/overlay.h"
#include "app/capture/schedule_log.h"
#include "app/interop/value_schedule.h"
#include "base/config.h"
#include "renderer/frame_sync.h"
#include "renderer/gpu_buffer.h"
#include "renderer/gpu_timer.h"
#include "app/interop/host_semaphores.h"
#include "renderer/mesh_renderer.h"
#include "renderer/render_targets.h"
#include "renderer/shared_resources.h"
#include "renderer/vulkan_context.h"
#include "renderer/window.h"
#include "sim/simulation.h"

namespace vksim {


struct App {
  Options options;
  bool headless = true;
  // What listCudaDevices found at start-up (asked once: the driver loads on
  // first use and the list does not change during a run).
  CudaDeviceList cudaDevices;
  DeviceChoice devices;
  Instance instance;
  Device device;
  Window window;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  SwapchainTarget swapchain;
  OffscreenTarget offscreen;
  VkRenderPass renderPass = VK_NULL_HANDLE;  // the target's (not owned here)
  MeshPipeline pipeline;
  // One set per frame in flight (base/config.h: kMaxFramesInFlight; the
  // render-queue backends use both, every other path slot 0 alone).
  std::array<FrameResources, kMaxFramesInFlight> frameSlots;
  uint32_t frameSlot = 0;  // the slot of the frame being recorded, or submitted last (currentSlotResources)
  InteropConfig config;  // what the interop core reads of options (gridSetup refreshes it)
  GridResources grid;    // app/interop/grid_resources.h: what Vulkan and the simulation share for one grid
  PathResources path;    // app/paths/path_factory.h: the path that runs, and what it keeps of its own
  ScheduleState schedule;  // app/interop/value_schedule.h: the frame, the mode, what is outstanding
  // VK_ERROR_DEVICE_LOST was seen (or the test seam injects it in teardown):
  // app/interop/teardown.h. The spec's Lost Device rules allow destroying
  // objects of a lost device, so everything is still destroyed.
  DeviceLoss deviceLoss;
  // What the capture room records of the grid resources' life (the trace, the
  // frame timings): set by createApp.
  GridResourceHooks gridHooks;
  OrbitCamera camera;
  MeshDrawReport meshDraw;  // what the last frame's mesh pass drew (the overlay, the bench)
  bool paused = false;
  bool quitRequested = false;
  std::vector<double> frameMilliseconds;  // host time of each frame
  InputState input;  // app/ui/input.h: mouse state and the requests for the next frame boundary
  Overlay overlay;   // app/ui/overlay.h: ImGui (windowed runs, or headless with --overlay)
  // What the upper ui layer does while a frame's render runs: runFrame calls
  // it once the render is submitted, on the paths where the host takes turns
  // with the simulation (app/frame_loop.cpp says which). buildOverlay sets it to buildOverlayAhead (app/ui/overlay_panels.h),
  // so that the frame loop need not include that layer. Null: nothing.
  void (*whileRenderRuns)(App&) = nullptr;
  GpuTimer gpuTimer;        // render timestamps, one slot per frame in flight (renderer/gpu_timer.h)
  FrameTimingQueue timing;  // frames waiting for their GPU results (app/capture/frame_timing.h)
  CaptureSession capture;   // --capture / --trace, or the overlay's Record (app/capture/capture_session.h)
  ScheduleLog scheduleLog;  // submissions waiting to be written into the trace (app/capture/schedule_log.h)
};

// frameSlots[frameSlot]: the command buffer, fence and acquire semaphore of
// the frame being recorded (or submitted last), for the loop, the drain and the tests.
inline FrameResources& currentSlotResources(App& app) { return app.frameSlots[app.frameSlot]; }
inline const FrameResources& currentSlotResources(const App& app) { return app.frameSlots[app.frameSlot]; }

// What every grid of this run is built from: the device, the backend, the
// InteropConfig of app.options as they stand now (a bench configuration
// changes them between rebuilds) and the capture room's hooks.
GridSetup gridSetup(App& app);

// Creates instance, device, target, pipeline, frame resources and the shared
// state for options.model. Throws EnvironmentError / RuntimeFailure.
void createApp(App& app, const Options& options);

// New grid resources for `params` at a frame boundary (grid or model
// change): drainSchedule, destroyPathGrid, then createPathGrid
// (app/paths/path_factory.h); the schedule restarts at frame 0 of a new
// timeline.
void rebuildGridResources(App& app, const ModelParams& params);

// Ends the grid's schedule after the last frame, once per exit route (the
// run's end, a rebuild, a failure, the bench): waits for the frames before
// the last, then the path's drain (drainPathGrid, app/paths/path_factory.h)
// on this app's objects. Returns at once when the schedule was drained and
// no frame ran since (app.path.drained), or when the grid has no simulation.
// Throws RuntimeFailure on a timeout.
void drainSchedule(App& app);

// Destroys everything createApp made, in reverse order: after the drain and
// an idle device, the overlay, the grid resources, the frame resources,
// pipeline, target, device, surface, window, instance. The caller has removed
// its input callbacks (app/ui/controls.h) first.
// A lost device counts as idle (app.deviceLost) and destruction goes on.
void destroyApp(App& app);

// The run's environment for a capture's summary (app/capture/capture_writer.h),
// as it stands now: device, driver, target, backend and options.
CaptureEnvironment captureEnvironment(const App& app);

// recordFinishedFrames (app/capture/capture_session.h) on this app's capture
// session, timing queue and schedule log, with captureEnvironment: the frame
// loop's call after each frame, and with flush at the end of the run.
Result<> recordCapturedFrames(App& app, bool flush);

// Runs body, then destroyApp, and turns what they throw into the exit code:
// EnvironmentError 3, RuntimeFailure 4 (the message on stderr, one line). A
// device lost during teardown after a run that succeeded is exit 4 with one
// line too; after a failure already reported it adds no second line.
int runThenTearDown(App& app, const std::function<void()>& body);

}  // namespace vksim
