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

#include "app/ui/camera.h"
#include "app/capture/capture_session.h"
#include "app/cli.h"
#include "app/interop/device_pairing.h"
#include "app/capture/frame_timing.h"
#include "app/ui/input.h"
#include "app/ui/overlay.h"
#include "app/capture/schedule_log.h"
#include "app/interop/value_schedule.h"
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

// How long any single wait may take before the run is declared stalled
// (exit 4): 5 s, or VKSIM_WAIT_TIMEOUT_MS (app/cli.h), fixed for the process.
inline const uint64_t kWaitTimeoutNs = waitTimeoutFromEnvironment();

// One frame in flight: the single vertex buffer makes the two sides take
// turns anyway, so a second frame's command buffer would only wait.
inline constexpr uint32_t kFramesInFlight = 1;

// Which side may access the shared vertex buffer now, in the sense of queue
// family ownership: the render queue's family (Vulkan), or
// VK_QUEUE_FAMILY_EXTERNAL (the other API). Memory that another API writes
// must be acquired from EXTERNAL before Vulkan touches it, or its contents are
// undefined for Vulkan (the synchronization chapter's queue family ownership
// transfers, and the external memory chapter's rule for shared resources).
enum class VertexOwner { vulkan, external };

// The resources that belong to one grid size: rebuilt together when the grid
// or model changes (CUDA first on the way down, as the design notes require).
struct SharedState {
  TransferMode transfer = TransferMode::zeroCopy;  // app.options.transfer when it was built
  SharedVertexBuffer vertices;                     // copy path: device-local, not exported
  // Whether another API (CUDA, zero-copy) writes `vertices`: only then do
  // ownership transfers happen. The CPU backend writes host-visible memory
  // through a mapping, which needs none; the copy path's buffer is Vulkan's.
  bool externalWriter = false;
  // Who owns `vertices` now. EXTERNAL from the start when another API writes
  // the initial state; every render acquires it (if EXTERNAL) and releases it
  // back; the drain acquires it, so that read-backs after it are defined.
  VertexOwner vertexOwner = VertexOwner::vulkan;
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
  ScheduleState schedule;  // app/value_schedule.h: the frame, the mode, what is outstanding
  // VK_ERROR_DEVICE_LOST was seen: from then on waits count as done and
  // nothing more is submitted, but everything is still destroyed (the spec's
  // Lost Device rules allow destroying objects of a lost device).
  bool deviceLost = false;
  // Test seam (the fault `device-lost`): teardown's device waits (the drain's
  // fences, vkDeviceWaitIdle) report VK_ERROR_DEVICE_LOST after they really
  // waited, so that a test on a driver that never loses its device still
  // walks the lost-device teardown.
  bool injectDeviceLostInTeardown = false;
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

// Finishes the schedule (drain: a no-op when the run already drained), then
// tears the shared state down in reverse order of creation: the simulation
// (CUDA) first, then the device idles, then the Vulkan objects. A lost device
// counts as idle (app.deviceLost is set) and everything is still destroyed.
void destroySharedState(App& app);

// Rebuilds the shared state for new params (grid or model change) at a frame
// boundary; the schedule restarts at frame 0 of a new timeline.
void rebuildSharedState(App& app, const ModelParams& params);

// Destroys everything createApp made, in reverse order: the input callbacks,
// then (after the drain and an idle device) the overlay, the shared state,
// the frame resources, pipeline, target, device, surface, window, instance.
// A lost device counts as idle (app.deviceLost) and destruction goes on.
void destroyApp(App& app);

// The shared vertex buffer's bytes as Vulkan reads them (a blocking, bounded
// read-back). Only once Vulkan owns the buffer (after drainSchedule); throws
// RuntimeFailure while it is released to the other API.
std::vector<uint8_t> readSharedVertices(App& app);

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

// The whole run after parsing: returns the process exit code.
int runApplication(const Options& options);

}  // namespace vksim
