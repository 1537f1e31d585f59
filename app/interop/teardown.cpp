#include "app/interop/teardown.h"

#include <array>

#include "app/interop/device_loss.h"
#include "renderer/frame_sync.h"
#include "renderer/vk_check.h"

namespace vksim {

// ---- The teardown's two device waits (app/interop/device_loss.h).

bool waitForFenceInTeardown(const Device& device, VkFence fence, DeviceLoss& loss) {
  VkResult result = waitForFenceOrLoss(device, fence, kWaitTimeoutNs);
  if (result == VK_SUCCESS && loss.injectInTeardown) {
    VK_CHECK(vkDeviceWaitIdle(device.device));
    result = VK_ERROR_DEVICE_LOST;
  }
  // The spec's Lost Device section: a lost device's work is as good as
  // complete, and its objects may still be destroyed.
  if (result == VK_ERROR_DEVICE_LOST) {
    loss.lost = true;
    return true;
  }
  return result == VK_SUCCESS;
}

void waitForDeviceIdleInTeardown(const Device& device, DeviceLoss& loss) {
  if (!device.device || loss.lost) return;
  VkResult result = vkDeviceWaitIdle(device.device);
  // The seam's loss is reported after the real wait, so that nothing is
  // destroyed while it is in use.
  if (result == VK_SUCCESS && loss.injectInTeardown) result = VK_ERROR_DEVICE_LOST;
  if (result == VK_ERROR_DEVICE_LOST) {
    loss.lost = true;
    return;
  }
  if (result != VK_SUCCESS) failVulkanCall("vkDeviceWaitIdle", result, __FILE__, __LINE__);
}

// ---- The drain, then CUDA first, then Vulkan.

void drainSchedule(const Device& device, FrameResources& frame, GridResources& grid, ScheduleState& schedule,
                   DeviceLoss& loss, const GridResourceHooks& hooks) {
  if (loss.lost) return;  // nothing more is submitted to a lost device
  // Exactly what is outstanding (value_schedule.h), nothing that was never
  // enqueued: after a step that failed before its signal there is no sim
  // signal to wait for, and a renderDone that no simulation wait took is
  // consumed here.
  const DrainPlan plan = planDrain(schedule);
  // The acquire is ordered by the wait on the sim signal; without one (a
  // failed step) the other API's writes have no defined end, the run has
  // failed, and the buffer stays EXTERNAL's: nothing reads it any more.
  const bool acquires = grid.vertexOwner == VertexOwner::external && plan.simSignal;
  if (plan.empty() && !acquires) return;

  if (!waitForFenceInTeardown(device, frame.inFlight, loss))
    throwWaitTimeout(schedule, "render fence before the drain");
  if (loss.lost) return;
  if (hooks.beforeDrainSubmitted) hooks.beforeDrainSubmitted();
  std::array<SemaphoreWait, 2> waits{};
  uint32_t waitCount = 0;
  // The waits are at ALL_COMMANDS: whatever Vulkan does after the drain
  // (read-backs, teardown) comes after the simulation's writes, and without
  // VK_KHR_maintenance8 the acquire behind them runs in no defined stage
  // (rule M21); with it the acquire's stages are ALL_COMMANDS too
  // (externalAcquireWaitStage). A semaphore wait's second scope also covers
  // batches submitted later.
  const VkPipelineStageFlags simWaitStage =
      externalAcquireWaitStage(grid, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, device.maintenance8);
  if (plan.simSignal) {
    if (plan.simSignal->mode == SyncMode::timeline)
      waits[waitCount++] = {grid.semaphores.timeline, plan.simSignal->value, simWaitStage};
    else
      waits[waitCount++] = {grid.semaphores.simDone, 0, simWaitStage};
  }
  // A binary wait consumes the one renderDone signal, which was submitted
  // earlier (VUID-vkQueueSubmit-pWaitSemaphores-03238): none is left pending.
  if (plan.consumeRenderDone)
    waits[waitCount++] = {grid.semaphores.renderDone, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};

  // The frame's command buffer, free now that its fence has signalled.
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
  if (acquires) {
    commandBuffer = frame.commandBuffer;
    restartCommandBuffer(commandBuffer);
    // Whatever comes next (a transfer read-back, a future render) may read
    // or write it: every stage and access is in the second scope.
    recordAcquireFromExternal(grid, device.queueFamily, commandBuffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                              VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, device.maintenance8);
    VK_CHECK(vkEndCommandBuffer(commandBuffer));
  }
  VK_CHECK(vkResetFences(device.device, 1, &frame.inFlight));
  submitToQueue(device, commandBuffer, std::span(waits.data(), waitCount), {}, frame.inFlight);
  noteDrained(schedule);
  if (hooks.drainSubmitted) hooks.drainSubmitted(std::span<const SemaphoreWait>(waits.data(), waitCount));
  if (acquires) grid.vertexOwner = VertexOwner::vulkan;
  if (!waitForFenceInTeardown(device, frame.inFlight, loss))
    throwWaitTimeout(schedule, "drain of the last simulation signal");
}

bool finishSimulation(const GridTeardown& teardown, GridResources& grid) {
  SimulationBackend* simulation = simulationOf(grid);
  if (!simulation) return true;
  // CUDA first (design notes): no wait or signal outstanding (the drain
  // consumed them), then the imported objects go before Vulkan frees what
  // they alias. With the Vulkan device lost, a CUDA wait on one of its
  // signals never ends: the backend then keeps its imports (it says so),
  // whose payloads outlive Vulkan's objects, and the Vulkan side is
  // destroyed all the same.
  const bool finished = simulation->finish(kWaitTimeoutNs);
  if (!finished && !teardown.loss.lost) throw RuntimeFailure("timeout: the simulation did not finish");
  // Everything has completed: the last frames' timings are all there is.
  // (A lost device has none to give.)
  if (!teardown.loss.lost && teardown.hooks.workFinished) teardown.hooks.workFinished();
  grid.simulation.reset();
  grid.queueSimulation = nullptr;  // its path destroys it next (app/paths/render_queue_path.h)
  return finished;
}

void destroySharedObjects(const Device& device, GridResources& grid, DeviceLoss& loss) {
  waitForDeviceIdleInTeardown(device, loss);
  // Reverse order of creation (app/paths/). CUDA has freed its mipmapped
  // array and external memory by now (the simulation went first): Vulkan's
  // image and memory may go.
  destroySharedTexture(device, grid.texture);
  destroySyncSemaphores(device, grid.semaphores);
  destroySharedVertexBuffer(device, grid.vertices);
  grid.externalWriter = false;
  grid.vertexOwner = VertexOwner::vulkan;
}

}  // namespace vksim
