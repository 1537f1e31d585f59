#include "app/frame_loop.h"

#include <GLFW/glfw3.h>

#include <array>
#include <chrono>
#include <string>

#include "app/capture/present_timing.h"
#include "app/capture/schedule_recording.h"
#include "app/interop/queue_submission.h"
#include "app/interop/value_schedule.h"
#include "app/interop/wait_strategy.h"
#include "renderer/readback.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

[[noreturn]] void stall(const App& app, const std::string& what) { throwWaitTimeout(app.schedule, what); }

// The stage at which a render waits for the simulation's signal. With an
// acquire behind the wait: ALL_COMMANDS (see recordAcquireFromExternal).
// Without one (the CPU backend writes host-visible memory, made visible by
// the submission itself): the first stage that reads the vertices.
// The CPU backend's texels are copied at TRANSFER, before the vertex reads.
VkPipelineStageFlags simulationWaitStage(bool acquires, bool uploadsTexture) {
  if (acquires) return kExternalAcquireWaitStage;
  return VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | (uploadsTexture ? VK_PIPELINE_STAGE_TRANSFER_BIT : 0);
}

// `acquires`: the buffer is EXTERNAL's now and is acquired first; `releases`:
// it goes back to EXTERNAL after the frame's reads (the other API writes next).
void recordFrame(App& app, VkFramebuffer framebuffer, VkExtent2D extent, bool acquires, bool releases) {
  VkCommandBuffer commandBuffer = currentFrame(app).commandBuffer;
  restartCommandBuffer(commandBuffer);
  // The timed region is the whole command buffer (the copy path's upload
  // included), in the timer slot of the frame's own slot, whose fence the
  // caller waited for.
  beginGpuTimer(app.device, app.gpuTimer, app.frameSlot, commandBuffer);
  const bool copyPath = app.shared.transfer == TransferMode::copy;
  if (acquires)
    recordAcquireFromExternal(app.shared, app.device.queueFamily, commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                              VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT);
  if (copyPath) recordVertexUpload(app.shared, commandBuffer);
  recordSurfaceTextureUpload(app.shared, commandBuffer);  // the CPU backend's texels (nothing otherwise)
  recordFrameTagCopy(app.shared.frameTags, app.shared.vertices.buffer, app.schedule.totalFrames, commandBuffer);

beginRenderPass(commandBuffer, app.renderPass, framebuffer, extent);
  MeshPushConstants constants = makeMeshPushConstants(app.camera, extent.width, extent.height);
  constants.surface = {textureDrawn(app.shared) ? 1.0f : 0.0f, float(app.shared.texture.width), 0.0f, 0.0f};
  recordMeshDraw(commandBuffer, app.pipeline, app.shared.vertices.buffer, app.shared.texture.set,
                 app.shared.indices, constants, extent);
  recordOverlay(app.overlay, commandBuffer);  // same pass, after the mesh: ImGui draws over it without depth
  vkCmdEndRenderPass(commandBuffer);

  if (releases) recordReleaseToExternal(app.shared, app.device.queueFamily, commandBuffer);
  endGpuTimer(app.gpuTimer, app.frameSlot, commandBuffer);
  VK_CHECK(vkEndCommandBuffer(commandBuffer));
}

// The poll strategy's two host waits (app/interop/wait_strategy.h): each side's wait
// is handed over only once the value it waits for is reached. This buys no
// time on the H200, where a pending and an already-satisfied wait cost the
// same two GPU context switches a frame; with it the host has seen each
// signal complete before it submits the wait on it. The schedule is unchanged:
// the semaphore wait is still submitted and still carries the dependency.

// Before render k's submission: what sim k-1 signalled. Timeline: the host
// reads the counter (vkGetSemaphoreCounterValue sees a CUDA signal within a
// few microseconds, where a blocking vkWaitSemaphores took ~5 ms). Binary:
// the counter does not move, so the simulation's event recorded after its
// simDone signal is asked instead (Simulation::isStepComplete).
void waitUntilSimulationSignalled(const App& app, const RenderSync& sync) {
  if (sync.wait == RenderSync::Wait::timeline) {
    const auto reached = [&] {
      return readTimelineCounter(app.device, app.shared.semaphores) >= sync.waitValue;
    };
    if (!waitUntilReached(reached, kWaitTimeoutNs))
      stall(app, "simulation signal of timeline value " + std::to_string(sync.waitValue));
  } else if (sync.wait == RenderSync::Wait::simDone) {
    // A simDone that was never signalled cannot be waited for, by the host or
    // the queue: the poll runs out its bound like any other wait.
    const auto signalled = [&] {
      return app.schedule.simSignal.has_value() && app.shared.simulation->isStepComplete();
    };
    if (!waitUntilReached(signalled, kWaitTimeoutNs)) stall(app, "simulation signal of simDone");
  }
}

// Before sim k's step: render k's signal. Timeline: the counter reaches 2k+1.
// Binary: the render's fence, which signals once the whole batch (its
// renderDone signal included) has completed.
void waitUntilRenderSignalled(const App& app, const StepSync& sync, bool renderSignalled) {
  if (sync.mode == SyncMode::timeline) {
    const auto reached = [&] {
      return readTimelineCounter(app.device, app.shared.semaphores) >= sync.waitValue;
    };
    if (!waitUntilReached(reached, kWaitTimeoutNs))
      stall(app, "render signal of timeline value " + std::to_string(sync.waitValue));
  } else {
    // The fence says the batch ran, not that it carried renderDone's signal.
    const auto signalled = [&] {
      return renderSignalled && isFenceSignalled(app.device, currentFrame(app).inFlight);
    };
    if (!waitUntilReached(signalled, kWaitTimeoutNs)) stall(app, "render signal of renderDone");
  }
}

// Frames in flight for this shared state (base/config.h). Two only where the
// queue alone orders every handover: a simulation in the render's own
// submission, zero-copy (the copy path's host staging buffer is rewritten
// every frame and would need one per frame).
uint32_t framesInFlight(const App& app) {
  return app.shared.queueSimulation && app.shared.transfer == TransferMode::zeroCopy ? kMaxFramesInFlight
                                                                                    : kFramesInFlight;
}

}  // namespace

void requestSyncMode(App& app, SyncMode mode) {
  // The OpenCL backend has binary semaphores only (cl_khr_semaphore): the
  // key and the overlay's choice ask in vain, and the overlay says why.
  if (app.devices.useOpenCl && mode == SyncMode::timeline) return;
  app.schedule.pendingMode = mode;
}

FrameStatus runFrame(App& app, RgbaImage* capture) {
  ScheduleState& schedule = app.schedule;
  const uint64_t k = schedule.scheduleFrame;
  const bool copyPath = app.shared.transfer == TransferMode::copy;
  // A simulation in the render's queue (--backend vulkan, cuda-nvx) rides in
  // the render's submission: sim k is its second batch.
  RenderQueueSimulation* const queueSimulation = app.shared.queueSimulation;
  // The copy path has no semaphores to poll: the host orders it anyway. A
  // step in the render's submission has no host handover to poll before.
  const bool poll = app.options.waitStrategy == WaitStrategy::poll && !copyPath && !queueSimulation;
  FrameTiming timing;
  timing.hostFrame.beginNs = hostNowNs();

  // 0. The frame's slot: the next one with two frames in flight, the same one
  //    otherwise (so that one frame in flight always waits for the frame
  //    submitted last, whatever the slot count was before).
  if (const uint32_t slots = framesInFlight(app); slots > 1) app.frameSlot = (app.frameSlot + 1) % slots;
  FrameResources& frame = currentFrame(app);

  // 1. The slot's previous frame must be done before its command buffer is
  //    recorded again. Its timestamps are then available. With one frame in
  //    flight (the single vertex buffer makes the two sides alternate
  //    anyway) that is the previous frame. With two (a render-queue
  //    simulation) it is the frame before: the previous frame's render and
  //    step are still queued, so the GPU has work while the host waits, wakes,
  //    records and submits this one, and the queue's own order (render k-1,
  //    sim k-1, render k) plus the schedule's semaphores keep the vertex
  //    buffer's reads and writes apart (docs/queue-backends.md).
  //    poll: the host saw that render's signal before it enqueued the previous
  //    sim step, so the fence is signalled or microseconds away; it spins
  //    rather than sleeping in vkWaitForFences, because a short sim step
  //    finishes before a sleeping thread would wake, and then the GPU would
  //    idle until the host submits the next render. enqueue: it blocks; the
  //    previous sim step is already queued behind that render and the next
  //    render cannot start before that step's signal, so the host's wake-up
  //    is off the GPU's path unless it exceeds the sim step plus the two GPU
  //    context switches around it (~0.33 ms on the H200, docs/benchmarks.md).
  const bool fenceSignalled =
      poll ? waitUntilReached([&] { return isFenceSignalled(app.device, frame.inFlight); }, kWaitTimeoutNs)
           : waitForFence(app.device, frame.inFlight, kWaitTimeoutNs);
  if (!fenceSignalled) stall(app, "render fence of the previous frame");
  // FAULT HOOK (--inject-fault device-lost): from FRAME on the device counts
  // as lost. This wait reports it, and so do teardown's waits (app/interop/teardown.h's seam,
  // after really waiting, so that nothing is destroyed while in use).
  if (faultActive(app.options.faults, FaultKind::deviceLost, schedule.totalFrames)) {
    app.deviceLoss.injectInTeardown = true;
    throw RuntimeFailure("device lost: the render fence of the previous frame (frame " + std::to_string(k) + ", " +
                         toString(schedule.mode) +
                         " mode) reported VK_ERROR_DEVICE_LOST (injected fault device-lost)");
  }
  reportFrameTag(app.shared.frameTags, app.sharedHooks);
  noteRenderSeenDone(app.timing, app.frameSlot, hostNowNs());
  collectGpuTimings(app.timing, app.device, app.gpuTimer, app.frameSlot, app.shared.simulation.get());
  if (!app.headless) collectDisplayTimes(app.timing, app.device, app.swapchain);

  // 2. A swapchain image (window only). Nothing has been submitted yet, so
  //    skipping here advances no semaphore value.
  uint32_t imageIndex = 0;
  VkFramebuffer framebuffer = app.offscreen.framebuffer;
  VkExtent2D extent = app.offscreen.extent;
  if (!app.headless) {
    const VkExtent2D size = windowFramebufferSize(app.window);
    if (size.width == 0 || size.height == 0) return FrameStatus::skipped;  // minimised
    if (app.window.framebufferResized || size.width != app.swapchain.extent.width ||
        size.height != app.swapchain.extent.height) {
      app.window.framebufferResized = false;
      VK_CHECK(vkDeviceWaitIdle(app.device.device));
      recreateSwapchainTarget(app.device, app.swapchain, size, app.options.vsync);
    }
    const SwapchainStatus acquired =
        acquireSwapchainImage(app.device, app.swapchain, frame.imageAvailable, kWaitTimeoutNs, &imageIndex);
    if (acquired == SwapchainStatus::timeout) stall(app, "swapchain image acquire");
    if (acquired == SwapchainStatus::outOfDate) {
      app.window.framebufferResized = true;
      return FrameStatus::skipped;
    }
    framebuffer = app.swapchain.framebuffers[imageIndex];
    extent = app.swapchain.extent;
  }

  // 3. Render k: waits for what sim k-1 signalled, signals for sim k. The copy
  //    path instead copies sim k-1's output into the staging buffer, and its
  //    command buffer uploads it: no semaphores.
  //    Render 0 waits on the initial write's simDone (value_schedule.h).
  if (copyPath && !stageSimulationOutput(app.shared, schedule)) stall(app, "simulation copy to host memory");
  const bool acquires = app.shared.vertexOwner == VertexOwner::external;
  const bool releases = app.shared.externalWriter;
  recordFrame(app, framebuffer, extent, acquires, releases);
  const RenderSync renderSync = nextRenderSync(schedule);
  std::array<SemaphoreWait, 2> waits{};
  uint32_t waitCount = 0;
  std::array<SemaphoreSignal, 2> signals{};
  uint32_t signalCount = 0;
  // FAULT HOOK (--inject-fault render-skips-signal): the schedule's signal is
  // left out of the submission (the swapchain's stays).
  const bool renderSignalled =
      !copyPath && !faultActive(app.options.faults, FaultKind::renderSkipsSignal, schedule.totalFrames);
  if (!copyPath) {
    const VkPipelineStageFlags waitStage = simulationWaitStage(acquires, app.shared.texture.writer == TextureWriter::hostUpload) | frameTagWaitStages(app.shared.frameTags);
    if (renderSync.wait == RenderSync::Wait::timeline)
      waits[waitCount++] = {app.shared.semaphores.timeline, renderSync.waitValue, waitStage};
    else if (renderSync.wait == RenderSync::Wait::simDone)
      waits[waitCount++] = {app.shared.semaphores.simDone, 0, waitStage};
    if (renderSignalled) {
      if (renderSync.signal == RenderSync::Signal::timeline)
        signals[signalCount++] = {app.shared.semaphores.timeline, renderSync.signalValue};
      else
        signals[signalCount++] = {app.shared.semaphores.renderDone, 0};
    }
  }
  if (!app.headless) {
    waits[waitCount++] = {frame.imageAvailable, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT};
    signals[signalCount++] = {app.swapchain.renderFinished[imageIndex], 0};
  }
  // Recording happened while sim k-1 ran; only now does the host wait for it.
  if (poll) waitUntilSimulationSignalled(app, renderSync);
  // A wait is handed to the queue only for a signal that was enqueued (the
  // ledger gives render k no wait otherwise). When the previous step left its
  // signal out (--inject-fault sim-skips-signal), submitting render k without
  // a wait would read that step's writes unordered: the host waits for the
  // missing signal instead, bounded like every wait, and nothing will end it
  // but the bound (a binary simDone that was never signalled cannot be
  // waited for by the queue: VUID-vkQueueSubmit-pWaitSemaphores-03238).
  if (schedule.skippedSimSignal) {
    RenderSync missing;
    missing.wait = schedule.skippedSimSignal->mode == SyncMode::timeline ? RenderSync::Wait::timeline
                                                                          : RenderSync::Wait::simDone;
    missing.waitValue = schedule.skippedSimSignal->value;
    waitUntilSimulationSignalled(app, missing);
    schedule.skippedSimSignal.reset();
  }
  // Sim k's step, recorded now for the second batch of the same submission.
  // Without render k's schedule signal (--inject-fault render-skips-signal)
  // the step's wait could never be satisfied (binary: it would even be
  // invalid), so the step is left out and the host's bounded wait for that
  // signal below ends the run, as with the other backends.
  StepSync simSync = simSyncForFrame(k, schedule.mode);
  // FAULT HOOK (--inject-fault sim-skips-signal / sim-stalls): what the step
  // is asked to do wrong; the backends act on it (sim/fault_plan.h).
  simSync.fault = stepFaultAt(app.options.faults, schedule.totalFrames);
  std::optional<RecordedStep> queuedStep;
  if (queueSimulation && renderSignalled) {
    queuedStep = queueSimulation->recordStep(simSync, !app.paused);
    if (!queuedStep->commandBuffer)
      throw RuntimeFailure("the " + queueSimulation->backendName() + " backend could not record step " +
                           std::to_string(k));
  }
  VK_CHECK(vkResetFences(app.device.device, 1, &frame.inFlight));
  if (queuedStep)
    submitRenderAndStep(app.device, frame.commandBuffer, std::span(waits.data(), waitCount),
                        std::span(signals.data(), signalCount), *queuedStep, simSync, app.shared.semaphores,
                        frame.inFlight);
  else
    submitToQueue(app.device, frame.commandBuffer, std::span(waits.data(), waitCount),
                  std::span(signals.data(), signalCount), frame.inFlight);
  // Recorded right after the submission succeeded: its wait consumed the
  // sim signal, its renderDone (if any) is outstanding, and the buffer is
  // EXTERNAL's again if the frame released it. A signal left out (the fault
  // hook above) is not outstanding.
  if (!copyPath) {
    const bool renderDoneBefore = schedule.renderDoneUnconsumed;
    noteRenderSubmitted(schedule, renderSync);
    if (!renderSignalled) schedule.renderDoneUnconsumed = renderDoneBefore;
  }
  if (releases)
    app.shared.vertexOwner = VertexOwner::external;
  else if (acquires)
    app.shared.vertexOwner = VertexOwner::vulkan;
  if (app.shared.simulation) noteWaitSubmitted(app.shared.frameTags, *app.shared.simulation);
  if (scheduleRecording(app.capture, schedule))
    recordRenderSubmission(app.scheduleLog, schedule, {app.shared.semaphores, frame.imageAvailable}, k,
                           schedule.mode, std::span(waits.data(), waitCount),
                           std::span(signals.data(), signalCount));
  // Headless there is no present: the end of the submission stands in for it
  // (docs/captures.md).
  timing.present.beginNs = timing.present.endNs = hostNowNs();

  if (capture) {
    if (!waitForFence(app.device, frame.inFlight, kWaitTimeoutNs)) stall(app, "render fence before the screenshot");
    *capture = app.headless ? readColorImage(app.device, app.offscreen.color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                             app.offscreen.colorFormat, extent)
                            : readColorImage(app.device, app.swapchain.images[imageIndex],
                                             VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, app.swapchain.colorFormat, extent);
  }
  if (!app.headless) {
    timing.presentId = nextPresentId(app.timing, app.headless, app.device, app.swapchain);
    timing.present.beginNs = hostNowNs();
    const SwapchainStatus presented = presentSwapchainImage(app.device, app.swapchain, imageIndex, timing.presentId);
    timing.present.endNs = hostNowNs();
    collectDisplayTimes(app.timing, app.device, app.swapchain);  // the frames before this one
    if (presented == SwapchainStatus::outOfDate || presented == SwapchainStatus::suboptimal)
      app.window.framebufferResized = true;
  }

  // 4. Sim k: waits for render k, writes state k+1, signals for render k+1.
  //    (Copy path: writes its own memory and copies it to the host; no waits.)
  // As for the render: the step's wait is handed over only once render k's
  // signal has been enqueued.
  if (poll || (!copyPath && !renderSignalled)) {
    waitUntilRenderSignalled(app, simSync, renderSignalled);
    timing.renderSeenDoneNs = hostNowNs();
  }
  // A step in the render's submission was handed over with it: its wait and
  // (unless left out) its signal are enqueued.
  StepResult step;
  if (queuedStep) {
    step.waitEnqueued = true;
    step.signalEnqueued = queuedStep->signals;
  } else {
    step = app.shared.simulation->step(simSync, !app.paused, kWaitTimeoutNs);
  }
  // What the step enqueued is recorded before its status is judged: a step
  // that failed after its wait, or before its signal, leaves exactly that for
  // the drain (value_schedule.h). An injected stall enqueued no wait, so a
  // renderDone stays for the drain to consume.
  if (!copyPath) noteSimulationTurn(schedule, simSync, step);
  // A step that ran but left its signal out (--inject-fault sim-skips-signal):
  // the next render must not run unordered after its writes (render k+1).
  if (!copyPath && step.status == StepStatus::ok && !step.signalEnqueued)
    schedule.skippedSimSignal = SimSignal{simSync.mode, simSync.signalValue};
  if (!copyPath && scheduleRecording(app.capture, schedule))
    recordSimStep(app.scheduleLog, schedule, k, simSync, step.waitEnqueued, step.signalEnqueued);
  if (copyPath && step.status == StepStatus::ok) schedule.hostOutputUnstaged = true;
  if (step.status == StepStatus::timeout)
    stall(app, schedule.mode == SyncMode::timeline
                   ? "simulation wait for timeline value " + std::to_string(simSync.waitValue)
                   : std::string("simulation wait for renderDone"));
  if (step.status == StepStatus::failed)
    throw RuntimeFailure("the simulation step failed (frame " + std::to_string(k) + ", " +
                         toString(schedule.mode) + " mode)");

  timing.frame = schedule.totalFrames;
  timing.scheduleFrame = k;
  timing.syncMode = schedule.mode;
  timing.copyPath = copyPath;
  timing.model = app.shared.simulation->params().model;
  timing.grid = app.shared.simulation->params().grid;
  if (!app.headless) {
    timing.swapchainHandle = uint64_t(app.swapchain.swapchain);
    timing.syncInterval = app.swapchain.presentMode == VK_PRESENT_MODE_FIFO_KHR ? 1 : 0;
  }
  if (!copyPath && schedule.mode == SyncMode::timeline) timing.timelineValue = simSync.signalValue;
  timing.hostFrame.endNs = hostNowNs();
  addFrameTiming(app.timing, app.gpuTimer, app.frameSlot, timing);

  // 5. Frame boundary: the only place the mode may change.
  advanceFrame(schedule);
  return FrameStatus::rendered;
}

}  // namespace vksim
