// Everything one run holds, and the wiring between renderer/ and sim/: this
// is where the exported fds cross from Vulkan to CUDA (createSharedState).
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/camera.h"
#include "app/capture_session.h"
#include "app/cli.h"
#include "app/devices.h"
#include "app/frame_timing.h"
#include "app/input.h"
#include "app/overlay.h"
#include "app/schedule_log.h"
#include "renderer/frame_sync.h"
#include "renderer/gpu_buffer.h"
#include "renderer/gpu_timer.h"
#include "renderer/host_semaphores.h"
#include "renderer/mesh_renderer.h"
#include "renderer/render_targets.h"
#include "renderer/shared_resources.h"
#include "renderer/vulkan_context.h"
#include "renderer/window.h"
#include "sim/simulation.h"

namespace vksim {

// Seconds any single wait may take before the run is declared stalled (exit 4).
inline constexpr uint64_t kWaitTimeoutNs = 5'000'000'000ull;

// One frame in flight: the single vertex buffer makes the two sides take
// turns anyway, so a second frame's command buffer would only wait.
inline constexpr uint32_t kFramesInFlight = 1;

// The resources that belong to one grid size: rebuilt together when the grid
// or model changes (CUDA first on the way down, as the design notes require).
struct SharedState {
  TransferMode transfer = TransferMode::zeroCopy;  // app.options.transfer when it was built
  SharedVertexBuffer vertices;                     // copy path: device-local, not exported
  GpuBuffer staging;  // copy path only: host-visible, the simulation's vertices land here first
  SyncSemaphores semaphores;
  GridIndexBuffer indices;
  std::unique_ptr<VulkanHostSemaphores> hostOps;  // CPU backend, zero-copy only
  std::unique_ptr<Simulation> simulation;
  // --frame-tags only (app/frame_tags.h): where each render copies the first
  // vertex it read, and the frame whose copy the host has not read yet.
  GpuBuffer frameTagResult;
  std::optional<uint64_t> frameTagRender;
};

// Where the value schedule stands. scheduleFrame restarts at 0 with every new
// SharedState (a new timeline semaphore starts at 0); totalFrames does not.
struct ScheduleState {
  uint64_t scheduleFrame = 0;
  uint64_t totalFrames = 0;
  SyncMode mode = SyncMode::timeline;
  std::optional<SyncMode> previousSimMode;  // none before the first frame
  std::optional<SyncMode> pendingMode;      // applied at the next frame boundary
  uint32_t switchEvery = 0;
  uint64_t switches = 0;
};

struct App {
  Options options;
  bool headless = true;
  DeviceChoice devices;
  Instance instance;
  Device device;
  Window window;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  SwapchainTarget swapchain;
  OffscreenTarget offscreen;
  VkRenderPass renderPass = VK_NULL_HANDLE;  // the target's (not owned here)
  MeshPipeline pipeline;
  FrameResources frame;
  SharedState shared;
  ScheduleState schedule;
  OrbitCamera camera;
  bool paused = false;
  bool quitRequested = false;
  std::vector<double> frameMilliseconds;  // host time of each frame
  InputState input;  // app/input.h: mouse state and the requests for the next frame boundary
  Overlay overlay;   // app/overlay.h: ImGui (windowed runs, or headless with --overlay)
  GpuTimer gpuTimer;        // render timestamps, one slot per frame in flight (renderer/gpu_timer.h)
  FrameTimingQueue timing;  // frames waiting for their GPU results (app/frame_timing.h)
  CaptureSession capture;   // --capture / --trace, or the overlay's Record (app/capture_session.h)
  ScheduleLog scheduleLog;  // submissions waiting to be written into the trace (app/schedule_log.h)
};

// Creates instance, device, target, pipeline, frame resources and the shared
// state for options.model. Throws EnvironmentError / RuntimeFailure.
void createApp(App& app, const Options& options);

// Builds the shared vertex buffer, semaphores, index buffer and simulation for
// `params`, hands the exported fds to CUDA when that backend runs, and writes
// the initial state. With app.options.transfer == copy nothing is exported:
// the vertex buffer is a plain device-local one with a staging buffer, and the
// simulation writes host memory of its own (the copy path).
void createSharedState(App& app, const ModelParams& params);

// Finishes the schedule (drain), then tears the shared state down: the
// simulation (CUDA) first, then the device idles, then the Vulkan objects.
void destroySharedState(App& app);

// Rebuilds the shared state for new params (grid or model change) at a frame
// boundary; the schedule restarts at frame 0 of a new timeline.
void rebuildSharedState(App& app, const ModelParams& params);

void destroyApp(App& app);

// Runs body, then destroyApp, and turns what they throw into the exit code:
// EnvironmentError 3, RuntimeFailure 4 (the message on stderr, one line).
int runThenTearDown(App& app, const std::function<void()>& body);

// The whole run after parsing: returns the process exit code.
int runApplication(const Options& options);

}  // namespace vksim
