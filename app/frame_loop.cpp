#include "app/frame_loop.h"

#include <GLFW/glfw3.h>

#include <cmath>
#include <string>

#include "app/capture/frame_observer.h"
#include "app/capture/present_timing.h"
#include "app/interop/profiling_marks.h"
#include "app/interop/value_schedule.h"
#include "app/interop/host_wait.h"
#include "app/interop/wait_strategy.h"
#include "app/paths/path_factory.h"
#include "app/testing/fault_hooks.h"
#include "base/config.h"
#include "base/host_clock.h"
#include "renderer/readback.h"
#include "renderer/vk_check.h"
#include "sim/nvtx_ranges.h"

namespace vksim {
namespace {

// The copy path has no semaphores to poll (the host orders it anyway): it
// waits as the enqueue strategy does. The render queue has no host handover
// to poll before, but its fence wait is the frame's pace: it polls too when
// asked (see waitForSlot).
WaitStrategy waitStrategyOn(const PathDescriptor& path, WaitStrategy asked) {
  return path.hostOrdered ? WaitStrategy::enqueue : asked;
}

// The slot's previous frame must be done before its command buffer is
// recorded again; its timestamps are then available. With one frame in
// flight (the single vertex buffer makes the two sides alternate anyway)
// that is the previous frame. With two (a render-queue simulation) it is the
// frame before: the previous frame's render and step are still queued, so
// the GPU has work while the host waits, wakes, records and submits this one,
// and the queue's own order (render k-1, sim k-1, render k) plus the
// schedule's semaphores keep the vertex buffer's reads and writes apart
// (docs/queue-backends.md).
// poll: the host saw that render's signal before it enqueued the previous sim
// step, so the fence is signalled or microseconds away; it spins rather than
// sleeping in vkWaitForFences, because a short sim step finishes before a
// sleeping thread would wake, and the GPU would then idle until the next
// render. enqueue: it blocks; the previous sim step is already queued behind
// that render and the next render cannot start before that step's signal, so
// the host's wake-up is off the GPU's path unless it exceeds the sim step plus
// the two GPU context switches around it (docs/benchmarks.md). With two
// frames in flight the GPU never waits for the host either way, but a
// blocking wait wakes late by a varying amount, and the frames' pace (each
// frame ends at its submission) jitters with it: a late frame followed by a
// short one (docs/benchmarks.md, "Steady frames"). Polling keeps the pace.
void waitForSlot(App& app, WaitStrategy strategy) {
  FrameResources& slot = currentSlotResources(app);
  const bool signalled = [&] {
    const ProfileRange range("host wait: frame slot's fence");  // NVTX: the wait alone
    return strategy == WaitStrategy::poll
               ? waitUntilReached([&] { return isFenceSignalled(app.device, slot.inFlight); }, kWaitTimeoutNs)
               : waitForFence(app.device, slot.inFlight, kWaitTimeoutNs);
  }();
  if (!signalled) throwWaitTimeout(app.schedule, "render fence of the previous frame");
  injectDeviceLoss(app.options.faults, app.schedule, app.deviceLoss);
  noteSlotDone(app.path);
  noteRenderSeenDone(app.timing, app.frameSlot, hostNowNs());
  collectGpuTimings(app.timing, app.device, app.gpuTimer, app.frameSlot, simulationOf(app.grid));
  if (!app.headless) collectDisplayTimes(app.timing, app.device, app.swapchain);
}

// A swapchain image to draw into (window only), or the offscreen target.
// Nothing has been submitted yet, so giving up here (minimised, out of date)
// advances no semaphore value.
std::optional<FrameTarget> acquireTarget(App& app, uint32_t* imageIndex) {
  if (app.headless) return FrameTarget{app.offscreen.framebuffer, app.offscreen.extent, {}, {}};
  const VkExtent2D size = windowFramebufferSize(app.window);
  if (size.width == 0 || size.height == 0) return std::nullopt;  // minimised
  if (app.window.framebufferResized || size.width != app.swapchain.extent.width ||
      size.height != app.swapchain.extent.height) {
    app.window.framebufferResized = false;
    VK_CHECK(vkDeviceWaitIdle(app.device.device));
    recreateSwapchainTarget(app.device, app.swapchain, size, app.options.vsync);
  }
  const VkSemaphore imageAvailable = currentSlotResources(app).imageAvailable;
  const SwapchainStatus acquired =
      acquireSwapchainImage(app.device, app.swapchain, imageAvailable, kWaitTimeoutNs, imageIndex);
  if (acquired == SwapchainStatus::timeout) throwWaitTimeout(app.schedule, "swapchain image acquire");
  if (acquired == SwapchainStatus::outOfDate) {
    app.window.framebufferResized = true;
    return std::nullopt;
  }
  return FrameTarget{app.swapchain.framebuffers[*imageIndex], app.swapchain.extent,
                     SemaphoreWait{imageAvailable, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT},
                     SemaphoreSignal{app.swapchain.renderFinished[*imageIndex], 0}};
}

// Once the render is submitted: the screenshot asked for, then the present.
// Headless there is no present: the end of the submission stands in for it
// (docs/captures.md).
void screenshotAndPresent(App& app, FrameTiming& timing, RgbaImage* capture, uint32_t imageIndex) {
  timing.present.beginNs = timing.present.endNs = hostNowNs();
  if (capture) {
    if (!waitForFence(app.device, currentSlotResources(app).inFlight, kWaitTimeoutNs))
      throwWaitTimeout(app.schedule, "render fence before the screenshot");
    *capture = app.headless ? readColorImage(app.device, app.offscreen.color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                             app.offscreen.colorFormat, app.offscreen.extent)
                            : readColorImage(app.device, app.swapchain.images[imageIndex],
                                             VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, app.swapchain.colorFormat,
                                             app.swapchain.extent);
  }
  if (app.headless) return;
  timing.presentId = nextPresentId(app.timing, app.headless, app.device, app.swapchain);
  timing.present.beginNs = hostNowNs();
  const SwapchainStatus presented = presentSwapchainImage(app.device, app.swapchain, imageIndex, timing.presentId);
  timing.present.endNs = hostNowNs();
  collectDisplayTimes(app.timing, app.device, app.swapchain);  // the frames before this one
  if (presented == SwapchainStatus::outOfDate || presented == SwapchainStatus::suboptimal)
    app.window.framebufferResized = true;
}

// The frame's record for the capture, once its frame ran.
void addFinishedFrameTiming(App& app, FrameTiming& timing) {
  const ModelParams& params = simulationOf(app.grid)->params();
  timing.frame = app.schedule.totalFrames;
  timing.scheduleFrame = app.schedule.scheduleFrame;
  timing.syncMode = app.schedule.mode;
  timing.copyPath = app.path.descriptor->transfer == TransferMode::copy;
  timing.model = params.model;
  timing.grid = params.grid;
  if (!app.headless) {
    timing.swapchainHandle = uint64_t(app.swapchain.swapchain);
    timing.syncInterval = app.swapchain.presentMode == VK_PRESENT_MODE_FIFO_KHR ? 1 : 0;
  }
  timing.hostFrame.endNs = hostNowNs();
  addFrameTiming(app.timing, app.gpuTimer, app.frameSlot, timing);
}

}  // namespace

void requestSyncMode(App& app, SyncMode mode) {
  // The OpenCL backend has binary semaphores only (cl_khr_semaphore): the
  // key and the overlay's choice ask in vain, and the overlay says why.
  if (app.path.descriptor && !app.path.descriptor->timeline && mode == SyncMode::timeline) return;
  app.schedule.pendingMode = mode;
}

namespace {

// How far from y = 0 the model's vertices may be (base/config.h).
float lodHeightBound(const ModelParams& params) {
  return params.model == ModelKind::sinewave ? std::abs(params.amplitude)
                                             : kLodRippleHeightDrops * std::abs(params.dropAmplitude);
}

// What the mesh pass draws with this frame.
SceneDraw sceneDraw(App& app) {
  SceneDraw scene{app.renderPass, &app.pipeline, &app.camera, &app.overlay};
  scene.levelOfDetail = app.options.levelOfDetail;
  scene.cellPixels = float(app.options.lodCellPixels);
  // The running model's parameters: the overlay may have changed them.
  const SimulationBackend* simulation = simulationOf(app.grid);
  scene.heightBound = lodHeightBound(simulation ? simulation->params() : app.options.model);
  scene.report = &app.meshDraw;
  scene.indices = &app.path.indices;
  return scene;
}

// The overlay's host spans that a frame's timing takes, each once: a span
// that ended after the last one taken (`taken`). Without the overlay (no
// ImGui context) there are none.
std::optional<TimeSpan> takeOverlaySpan(const Overlay& overlay, int64_t beginNs, int64_t endNs,
                                        int64_t& taken) {
  if (!overlay.created || endNs <= taken) return std::nullopt;
  taken = endNs;
  return TimeSpan{beginNs, endNs};
}

}  // namespace

FrameStatus runFrame(App& app, RgbaImage* capture) {
  const ProfileRange frameRange([&] { return frameName(app.schedule.scheduleFrame); });  // NVTX: "frame k"
  FrameTiming timing;
  timing.hostFrame.beginNs = hostNowNs();
  // The build this frame draws: at this frame's boundary, or ahead during
  // the last frame's render.
  Overlay& overlay = app.overlay;
  timing.overlayBuild =
      takeOverlaySpan(overlay, overlay.lastBuildBeginNs, overlay.lastBuildEndNs, overlay.takenBuildEndNs);
  const PathDescriptor& path = *app.path.descriptor;
  const WaitStrategy strategy = waitStrategyOn(path, app.options.waitStrategy);
  // The frame's slot: the next one with two frames in flight, the same one
  // otherwise (so that one frame in flight always waits for the frame
  // submitted last, whatever the slot count was before).
  if (const uint32_t slots = path.framesInFlight; slots > 1) app.frameSlot = (app.frameSlot + 1) % slots;
  waitForSlot(app, strategy);
  uint32_t imageIndex = 0;
  const std::optional<FrameTarget> target = acquireTarget(app, &imageIndex);
  if (!target) return FrameStatus::skipped;

  FrameResources& slot = currentSlotResources(app);
  CaptureFrameObserver observer(app.capture, app.scheduleLog, app.schedule, {app.grid.semaphores, slot.imageAvailable},
                                timing);
  // The test facility's faults for this frame, decided here, at the frame's start.
  const FrameFaults faults{renderLeavesOutSignal(app.options.faults, app.schedule),
                           stepFaultFor(app.options.faults, app.schedule)};
  // On the routes where the host takes turns with the simulation (one frame
  // in flight, the host waiting for each signal), the host has nothing to do
  // once the render is submitted until its signal: the next frame's overlay
  // is built there (app.whileRenderRuns: buildOverlayAhead), off the stretch
  // between the simulation's handover and the next render's submission. Not
  // on the copy path, whose step follows the render's submission without a
  // wait and would wait for the widgets; nor where the queue orders every
  // handover (two frames in flight), where the host's work is off the GPU's
  // way anyway and building at the frame boundary keeps the overlay current.
  const bool hostTakesTurns = !path.hostOrdered && path.framesInFlight == 1;
  const auto afterRenderSubmitted = [&] {
    screenshotAndPresent(app, timing, capture, imageIndex);
    if (hostTakesTurns && app.whileRenderRuns) app.whileRenderRuns(app);
  };
  FrameContext frame{app.device, slot,          app.frameSlot, app.gpuTimer,
                     app.grid,   app.schedule,  *target,       sceneDraw(app),
                     strategy,   !app.paused,   faults,        observer,
                     afterRenderSubmitted};
  frame.renderLabel = renderLabel(app.schedule, path.hostOrdered);
  // A frame hands the buffer over again: the next exit route drains anew.
  app.path.drained = false;
  path.frame(frame, app.path);
  timing.overlayRecord =
      takeOverlaySpan(overlay, overlay.lastRecordBeginNs, overlay.lastRecordEndNs, overlay.takenRecordEndNs);

  addFinishedFrameTiming(app, timing);
  // The frame boundary: the only place the mode may change.
  advanceFrame(app.schedule);
  return FrameStatus::rendered;
}

}  // namespace vksim
