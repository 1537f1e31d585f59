#include "app/interop/teardown.h"

#include <array>
#include <cstdio>

#include "renderer/vk_check.h"

namespace vksim {
namespace {

// The copy path's drain: the last step's output uploaded as a frame would
// upload it, so that the vertex buffer ends, as on the zero-copy path, with
// the state after the last step. Once only: with nothing unstaged (a second
// drain, or the render already took it) there is nothing to do.
void drainCopyPath(const Device& device, FrameResources& frame, SharedState& shared, ScheduleState& schedule,
                   DeviceLoss& loss) {
  if (!schedule.hostOutputUnstaged || loss.lost) return;
  // The last render's upload must be done before the staging buffer is
  // written again, and the last step's copy to host memory before it is read.
  if (!waitForFenceInTeardown(device, frame.inFlight, loss))
    throwWaitTimeout(schedule, "render fence before the drain");
  if (loss.lost) return;
  if (!stageSimulationOutput(shared, schedule)) throwWaitTimeout(schedule, "simulation copy to host memory");
  runOneTimeCommands(device,
                     [&](VkCommandBuffer commandBuffer) { recordVertexUpload(shared, commandBuffer); });
}

}  // namespace

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

void drainSchedule(const Device& device, FrameResources& frame, SharedState& shared, ScheduleState& schedule,
                   DeviceLoss& loss, const SharedStateHooks& hooks) {
  if (shared.transfer == TransferMode::copy) {
    drainCopyPath(device, frame, shared, schedule, loss);
    return;
  }
  if (loss.lost) return;  // nothing more is submitted to a lost device
  // Exactly what is outstanding (value_schedule.h), nothing that was never
  // enqueued: after a step that failed before its signal there is no sim
  // signal to wait for, and a renderDone that no simulation wait took is
  // consumed here.
  const DrainPlan plan = planDrain(schedule);
  // The acquire is ordered by the wait on the sim signal; without one (a
  // failed step) the other API's writes have no defined end, the run has
  // failed, and the buffer stays EXTERNAL's: nothing reads it any more.
  const bool acquires = shared.vertexOwner == VertexOwner::external && plan.simSignal;
  if (plan.empty() && !acquires) return;

  if (!waitForFenceInTeardown(device, frame.inFlight, loss))
    throwWaitTimeout(schedule, "render fence before the drain");
  if (loss.lost) return;
  reportFrameTag(shared.frameTags, hooks);
  finishFrameTagStep(shared.frameTags, *shared.simulation);
  std::array<SemaphoreWait, 2> waits{};
  uint32_t waitCount = 0;
  // The waits are at ALL_COMMANDS: the acquire behind them runs in no defined
  // stage (recordAcquireFromExternal), and whatever Vulkan does after the
  // drain (read-backs, teardown) comes after the simulation's writes. A
  // semaphore wait's second scope also covers batches submitted later.
  if (plan.simSignal) {
    if (plan.simSignal->mode == SyncMode::timeline)
      waits[waitCount++] = {shared.semaphores.timeline, plan.simSignal->value, kExternalAcquireWaitStage};
    else
      waits[waitCount++] = {shared.semaphores.simDone, 0, kExternalAcquireWaitStage};
  }
  // A binary wait consumes the one renderDone signal, which was submitted
  // earlier (VUID-vkQueueSubmit-pWaitSemaphores-03238): none is left pending.
  if (plan.consumeRenderDone)
    waits[waitCount++] = {shared.semaphores.renderDone, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};

  // The frame's command buffer, free now that its fence has signalled.
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
  if (acquires) {
    commandBuffer = frame.commandBuffer;
    restartCommandBuffer(commandBuffer);
    // Whatever comes next (a transfer read-back, a future render) may read
    // or write it: every stage and access is in the second scope.
    recordAcquireFromExternal(shared, device.queueFamily, commandBuffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                              VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    VK_CHECK(vkEndCommandBuffer(commandBuffer));
  }
  VK_CHECK(vkResetFences(device.device, 1, &frame.inFlight));
  submitToQueue(device, commandBuffer, std::span(waits.data(), waitCount), {}, frame.inFlight);
  noteDrained(schedule);
  if (hooks.drainSubmitted) hooks.drainSubmitted(std::span<const SemaphoreWait>(waits.data(), waitCount));
  if (acquires) shared.vertexOwner = VertexOwner::vulkan;
  if (!waitForFenceInTeardown(device, frame.inFlight, loss))
    throwWaitTimeout(schedule, "drain of the last simulation signal");
}

void destroySharedState(const Device& device, FrameResources& frame, SharedState& shared,
                        ScheduleState& schedule, DeviceLoss& loss, const SharedStateHooks& hooks) {
  bool cudaWorkFinished = true;  // nothing of the simulation's can still write CUDA's vertex memory
  if (shared.simulation) {
    // FAULT HOOK (--inject-fault sim-stalls): let a stalled step finish, so
    // that the drain and finish() below see the work end.
    shared.simulation->releaseInjectedStall();
    // A no-op after the run's own drain: it consumes only what is outstanding.
    drainSchedule(device, frame, shared, schedule, loss, hooks);
    // CUDA first (design notes): no wait or signal outstanding, then the
    // imported objects go before Vulkan frees what they alias. With the
    // Vulkan device lost, a CUDA wait on one of its signals never ends: the
    // backend then keeps its imports (it says so), whose payloads outlive
    // Vulkan's objects, and the Vulkan side is destroyed all the same.
    cudaWorkFinished = shared.simulation->finish(kWaitTimeoutNs);
    if (!cudaWorkFinished && !loss.lost) throw RuntimeFailure("timeout: the simulation did not finish");
    // Everything has completed: the last frames' timings are all there is.
    // (A lost device has none to give.)
    if (!loss.lost && hooks.workFinished) hooks.workFinished();
    shared.queueSimulation = nullptr;
    shared.simulation.reset();
  }
  shared.hostOps.reset();
  waitForDeviceIdleInTeardown(device, loss);
  // Reverse order of createSharedState.
  destroyFrameTags(device, shared.frameTags);
  // CUDA has freed its mipmapped array and external memory by now (the
  // simulation went first): Vulkan's image and memory may go.
  destroyGpuBuffer(device, shared.textureStaging);
  destroySharedTexture(device, shared.texture);
  destroyGridIndexBuffer(device, shared.indices);
  destroySyncSemaphores(device, shared.semaphores);
  destroyGpuBuffer(device, shared.staging);
  destroySharedVertexBuffer(device, shared.vertices);
  // --memory-owner cuda: CUDA's allocation goes last. Vulkan's import holds
  // a reference to it, so releasing it first would also be allowed
  // (cuMemRelease frees the memory only when no mapping and no handle,
  // shareable ones included, is left) and the memory would live on under
  // the VkDeviceMemory; but then its lifetime would hang on an import that
  // CUDA cannot see. The order chosen leaves nothing to that rule: the
  // device idle (above), Vulkan's memory freed, then cuMemUnmap,
  // cuMemAddressFree, cuMemRelease. A CUDA stream that did not finish may
  // still write through the mapping: then the allocation is left until the
  // process ends, as the simulation leaves its imports.
  if (cudaWorkFinished) {
    destroyCudaVertexMemory(shared.cudaVertices);
  } else if (shared.cudaVertices.allocation != 0) {
    std::fprintf(stderr,
                 "vkcuda-sim: CUDA's vertex memory is left allocated: a CUDA stream that may write it did not "
                 "finish\n");
    shared.cudaVertices = CudaVertexMemory{};
  }
  shared.externalWriter = false;
  shared.vertexOwner = VertexOwner::vulkan;
}

void rebuildSharedState(const Device& device, const DeviceChoice& devices, const InteropConfig& config,
                        const ModelParams& params, FrameResources& frame, SharedState& shared,
                        ScheduleState& schedule, DeviceLoss& loss, const SharedStateHooks& hooks) {
  destroySharedState(device, frame, shared, schedule, loss, hooks);
  createSharedState(shared, device, devices, config, params, schedule, hooks);
}

}  // namespace vksim
