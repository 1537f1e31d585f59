#include "app/frame_loop.h"

#include <GLFW/glfw3.h>

#include <array>
#include <chrono>
#include <cstring>
#include <string>

#include "app/value_schedule.h"
#include "app/wait_strategy.h"
#include "renderer/readback.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

[[noreturn]] void stall(const App& app, const std::string& what) {
  throw RuntimeFailure("timeout: " + what + " (frame " + std::to_string(app.schedule.scheduleFrame) + ", " +
                       toString(app.schedule.mode) + " mode) did not complete within " +
                       std::to_string(kWaitTimeoutNs / 1'000'000'000ull) + " s");
}

// The CUDA backend writes the vertex buffer from outside Vulkan. The spec
// requires exclusive-sharing resources used by an external API to be acquired
// from VK_QUEUE_FAMILY_EXTERNAL before use and released back afterwards;
// without it their contents are undefined for the other side.
void recordExternalOwnership(const App& app, VkCommandBuffer commandBuffer, bool acquire) {
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcQueueFamilyIndex = acquire ? VK_QUEUE_FAMILY_EXTERNAL : app.device.queueFamily;
  barrier.dstQueueFamilyIndex = acquire ? app.device.queueFamily : VK_QUEUE_FAMILY_EXTERNAL;
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = acquire ? VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT : 0;
  barrier.buffer = app.shared.vertices.buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  const VkPipelineStageFlags src = acquire ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;
  const VkPipelineStageFlags dst = acquire ? VK_PIPELINE_STAGE_VERTEX_INPUT_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
  vkCmdPipelineBarrier(commandBuffer, src, dst, 0, 0, nullptr, 1, &barrier, 0, nullptr);
}

// The copy path's upload, before the render pass: staging -> vertex buffer.
// Two barriers: the copy may only overwrite the vertices once the previous
// frame's vertex reads are done (write after read: an execution dependency;
// a barrier's first scope covers earlier submissions on the queue too), and
// the draw may only read them once the copy's writes are available
// (TRANSFER_WRITE -> VERTEX_ATTRIBUTE_READ). The staging buffer's host writes
// need no barrier: vkQueueSubmit makes them visible (host write ordering).
void recordVertexUpload(const App& app, VkCommandBuffer commandBuffer) {
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                       0, nullptr, 0, nullptr, 0, nullptr);
  const VkBufferCopy region{0, 0, app.shared.vertices.size};
  vkCmdCopyBuffer(commandBuffer, app.shared.staging.buffer, app.shared.vertices.buffer, 1, &region);
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
  barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = app.shared.vertices.buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0,
                       0, nullptr, 1, &barrier, 0, nullptr);
}

void recordFrame(App& app, VkFramebuffer framebuffer, VkExtent2D extent) {
  VkCommandBuffer commandBuffer = app.frame.commandBuffer;
  VK_CHECK(vkResetCommandBuffer(commandBuffer, 0));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(commandBuffer, &begin));
  // The timed region is the whole command buffer (the copy path's upload
  // included). Slot 0: one frame in flight, whose fence the caller waited for.
  beginGpuTimer(app.device, app.gpuTimer, 0, commandBuffer);
  const bool copyPath = app.shared.transfer == TransferMode::copy;
  const bool external = app.devices.useCuda && !copyPath;
  if (external) recordExternalOwnership(app, commandBuffer, true);
  if (copyPath) recordVertexUpload(app, commandBuffer);

  std::array<VkClearValue, 2> clears{};
  clears[0].color = {{0.06f, 0.07f, 0.09f, 1.0f}};
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo pass{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  pass.renderPass = app.renderPass;
  pass.framebuffer = framebuffer;
  pass.renderArea.extent = extent;
  pass.clearValueCount = uint32_t(clears.size());
  pass.pClearValues = clears.data();
  vkCmdBeginRenderPass(commandBuffer, &pass, VK_SUBPASS_CONTENTS_INLINE);
  recordMeshDraw(commandBuffer, app.pipeline, app.shared.vertices.buffer, app.shared.indices,
                 makeMeshPushConstants(app.camera, extent.width, extent.height), extent);
  recordOverlay(app, commandBuffer);  // same pass, after the mesh: ImGui draws over it without depth
  vkCmdEndRenderPass(commandBuffer);

  if (external) recordExternalOwnership(app, commandBuffer, false);
  endGpuTimer(app.gpuTimer, 0, commandBuffer);
  VK_CHECK(vkEndCommandBuffer(commandBuffer));
}

// The poll strategy's two host waits (app/wait_strategy.h): each side's wait
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
    if (!waitUntilReached([&] { return app.shared.simulation->isStepComplete(); }, kWaitTimeoutNs))
      stall(app, "simulation signal of simDone");
  }
}

// Before sim k's step: render k's signal. Timeline: the counter reaches 2k+1.
// Binary: the render's fence, which signals once the whole batch (its
// renderDone signal included) has completed.
void waitUntilRenderSignalled(const App& app, const StepSync& sync) {
  if (sync.mode == SyncMode::timeline) {
    const auto reached = [&] {
      return readTimelineCounter(app.device, app.shared.semaphores) >= sync.waitValue;
    };
    if (!waitUntilReached(reached, kWaitTimeoutNs))
      stall(app, "render signal of timeline value " + std::to_string(sync.waitValue));
  } else {
    if (!waitUntilReached([&] { return isFenceSignalled(app.device, app.frame.inFlight); }, kWaitTimeoutNs))
      stall(app, "render fence before the simulation's renderDone wait");
  }
}

// The copy path's host step before render k: sim k-1's copy to host memory
// must be complete (bounded poll of its completion event), then the host
// copies it into the staging buffer, which the previous frame's upload no
// longer reads (its fence was waited for at the top of the frame).
void stageSimulationOutput(const App& app) {
  Simulation& simulation = *app.shared.simulation;
  if (!waitUntilReached([&] { return simulation.isStepComplete(); }, kWaitTimeoutNs))
    stall(app, "simulation copy to host memory");
  std::memcpy(app.shared.staging.mapped, simulation.hostVertices(), app.shared.vertices.size);
}

// The copy path's drain: the last step's output uploaded as a frame would
// upload it, so that the vertex buffer ends, as on the zero-copy path, with
// the state after the last step. The last render's upload must be done before
// the staging buffer is written again.
void drainCopyPath(App& app) {
  // The last render's upload must be done before the staging buffer is
  // written again, and the last step's copy to host memory before it is read.
  if (!waitForFence(app.device, app.frame.inFlight, kWaitTimeoutNs))
    stall(app, "render fence before the drain");
  stageSimulationOutput(app);
  runOneTimeCommands(app.device,
                     [&](VkCommandBuffer commandBuffer) { recordVertexUpload(app, commandBuffer); });
}

}  // namespace

void requestSyncMode(App& app, SyncMode mode) { app.schedule.pendingMode = mode; }

FrameStatus runFrame(App& app, RgbaImage* capture) {
  ScheduleState& schedule = app.schedule;
  const uint64_t k = schedule.scheduleFrame;
  const bool copyPath = app.shared.transfer == TransferMode::copy;
  // The copy path has no semaphores to poll: the host orders it anyway.
  const bool poll = app.options.waitStrategy == WaitStrategy::poll && !copyPath;
  FrameTiming timing;
  timing.hostFrame.beginNs = hostNowNs();

  // 1. The previous frame's render must be done before its command buffer is
  //    recorded again (one frame in flight: the single vertex buffer makes the
  //    two sides alternate anyway). Its timestamps are then available.
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
      poll ? waitUntilReached([&] { return isFenceSignalled(app.device, app.frame.inFlight); }, kWaitTimeoutNs)
           : waitForFence(app.device, app.frame.inFlight, kWaitTimeoutNs);
  if (!fenceSignalled) stall(app, "render fence of the previous frame");
  noteRenderSeenDone(app, hostNowNs());
  collectGpuTimings(app);

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
        acquireSwapchainImage(app.device, app.swapchain, app.frame.imageAvailable, kWaitTimeoutNs, &imageIndex);
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
  if (copyPath) stageSimulationOutput(app);
  recordFrame(app, framebuffer, extent);
  const RenderSync renderSync = renderSyncForFrame(k, schedule.mode, schedule.previousSimMode);
  std::array<SemaphoreWait, 2> waits{};
  uint32_t waitCount = 0;
  std::array<SemaphoreSignal, 2> signals{};
  uint32_t signalCount = 0;
  if (!copyPath) {
    if (renderSync.wait == RenderSync::Wait::timeline)
      waits[waitCount++] = {app.shared.semaphores.timeline, renderSync.waitValue,
                            VK_PIPELINE_STAGE_VERTEX_INPUT_BIT};
    else if (renderSync.wait == RenderSync::Wait::simDone)
      waits[waitCount++] = {app.shared.semaphores.simDone, 0, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT};
    if (renderSync.signal == RenderSync::Signal::timeline)
      signals[signalCount++] = {app.shared.semaphores.timeline, renderSync.signalValue};
    else
      signals[signalCount++] = {app.shared.semaphores.renderDone, 0};
  }
  if (!app.headless) {
    waits[waitCount++] = {app.frame.imageAvailable, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT};
    signals[signalCount++] = {app.swapchain.renderFinished[imageIndex], 0};
  }
  // Recording happened while sim k-1 ran; only now does the host wait for it.
  if (poll) waitUntilSimulationSignalled(app, renderSync);
  VK_CHECK(vkResetFences(app.device.device, 1, &app.frame.inFlight));
  submitToQueue(app.device, app.frame.commandBuffer, std::span(waits.data(), waitCount),
                std::span(signals.data(), signalCount), app.frame.inFlight);
  // Headless there is no present: the end of the submission stands in for it
  // (docs/captures.md).
  timing.present.beginNs = timing.present.endNs = hostNowNs();

  if (capture) {
    if (!waitForFence(app.device, app.frame.inFlight, kWaitTimeoutNs)) stall(app, "render fence before the screenshot");
    *capture = app.headless ? readColorImage(app.device, app.offscreen.color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                             app.offscreen.colorFormat, extent)
                            : readColorImage(app.device, app.swapchain.images[imageIndex],
                                             VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, app.swapchain.colorFormat, extent);
  }
  if (!app.headless) {
    timing.present.beginNs = hostNowNs();
    const SwapchainStatus presented = presentSwapchainImage(app.device, app.swapchain, imageIndex);
    timing.present.endNs = hostNowNs();
    if (presented == SwapchainStatus::outOfDate || presented == SwapchainStatus::suboptimal)
      app.window.framebufferResized = true;
  }

  // 4. Sim k: waits for render k, writes state k+1, signals for render k+1.
  //    (Copy path: writes its own memory and copies it to the host; no waits.)
  const StepSync simSync = simSyncForFrame(k, schedule.mode);
  if (poll) {
    waitUntilRenderSignalled(app, simSync);
    timing.renderSeenDoneNs = hostNowNs();
  }
  const StepStatus status = app.shared.simulation->step(simSync, !app.paused, kWaitTimeoutNs);
  if (status == StepStatus::timeout)
    stall(app, schedule.mode == SyncMode::timeline
                   ? "simulation wait for timeline value " + std::to_string(simSync.waitValue)
                   : std::string("simulation wait for renderDone"));
  if (status == StepStatus::failed) throw RuntimeFailure("the simulation step failed");

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
  addFrameTiming(app, timing);

  // 5. Frame boundary: the only place the mode may change. The copy path
  //    leaves no signal for a drain to consume.
  if (!copyPath) schedule.previousSimMode = schedule.mode;
  ++schedule.scheduleFrame;
  ++schedule.totalFrames;
  if (schedule.switchEvery > 0 && schedule.totalFrames % schedule.switchEvery == 0)
    schedule.pendingMode = schedule.mode == SyncMode::timeline ? SyncMode::binary : SyncMode::timeline;
  if (schedule.pendingMode) {
    if (*schedule.pendingMode != schedule.mode) ++schedule.switches;
    schedule.mode = *schedule.pendingMode;
    schedule.pendingMode.reset();
  }
  return FrameStatus::rendered;
}

void drainSchedule(App& app) {
  if (app.shared.transfer == TransferMode::copy) {
    drainCopyPath(app);
    return;
  }
  if (!app.schedule.previousSimMode) return;  // no sim step since the initial state
  // A submission that only waits: it consumes the last binary simDone signal
  // (a binary semaphore must not be left signalled with nobody to wait) and
  // orders the last simulation writes before anything Vulkan does next.
  SemaphoreWait wait{};
  if (lastSimSignal(*app.schedule.previousSimMode) == RenderSync::Wait::timeline)
    wait = {app.shared.semaphores.timeline, 2 * app.schedule.scheduleFrame, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
  else
    wait = {app.shared.semaphores.simDone, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
  if (!waitForFence(app.device, app.frame.inFlight, kWaitTimeoutNs)) stall(app, "render fence before the drain");
  VK_CHECK(vkResetFences(app.device.device, 1, &app.frame.inFlight));
  submitToQueue(app.device, VK_NULL_HANDLE, std::span(&wait, 1), {}, app.frame.inFlight);
  if (!waitForFence(app.device, app.frame.inFlight, kWaitTimeoutNs)) stall(app, "drain of the last simulation signal");
  app.schedule.previousSimMode.reset();
}

}  // namespace vksim
