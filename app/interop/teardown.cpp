#include "app/interop/teardown.h"

#include <array>
#include <cstdio>

#include "app/paths/copy_path.h"
#include "app/paths/path_factory.h"
#include "renderer/vk_check.h"
#include "sim/nvtx_ranges.h"

namespace vksim {
namespace {

// The copy path's drain: the last step's output uploaded as a frame would
// upload it, so that the vertex buffer ends, as on the zero-copy path, with
// the state after the last step. Once only: with nothing unstaged (a second
// drain, or the render already took it) there is nothing to do.
void drainCopyPath(const Device& device, FrameResources& frame, GridResources& grid, ScheduleState& schedule,
                   DeviceLoss& loss) {
  if (!schedule.hostOutputUnstaged || loss.lost) return;
  // The last render's upload must be done before the staging buffer is
  // written again, and the last step's copy to host memory before it is read.
  if (!waitForFenceInTeardown(device, frame.inFlight, loss))
    throwWaitTimeout(schedule, "render fence before the drain");
  if (loss.lost) return;
  if (!stageSimulationOutput(grid, schedule)) throwWaitTimeout(schedule, "simulation copy to host memory");
  runOneTimeCommands(device,
                     [&](VkCommandBuffer commandBuffer) { recordVertexUpload(grid, commandBuffer); });
}

}  // namespace

void drainSchedule(const Device& device, FrameResources& frame, GridResources& grid, ScheduleState& schedule,
                   DeviceLoss& loss, const GridResourceHooks& hooks) {
  if (grid.path == InteropPath::copy) {
    drainCopyPath(device, frame, grid, schedule, loss);
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
  const bool acquires = grid.vertexOwner == VertexOwner::external && plan.simSignal;
  if (plan.empty() && !acquires) return;

  if (!waitForFenceInTeardown(device, frame.inFlight, loss))
    throwWaitTimeout(schedule, "render fence before the drain");
  if (loss.lost) return;
  reportFrameTag(grid.frameTags, hooks.frameTagSeen);
  if (grid.simulation) finishFrameTagStep(grid.frameTags, *grid.simulation);
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

void destroyGridResources(const Device& device, FrameResources& frame, GridResources& grid,
                        ScheduleState& schedule, DeviceLoss& loss, const GridResourceHooks& hooks) {
  bool cudaWorkFinished = true;  // nothing of the simulation's can still write CUDA's vertex memory
  if (SimulationBackend* simulation = simulationOf(grid)) {
    // FAULT HOOK (--inject-fault sim-stalls): let a stalled step finish, so
    // that the drain and finish() below see the work end.
    simulation->releaseInjectedStall();
    // A no-op after the run's own drain: it consumes only what is outstanding.
    drainSchedule(device, frame, grid, schedule, loss, hooks);
    // CUDA first (design notes): no wait or signal outstanding, then the
    // imported objects go before Vulkan frees what they alias. With the
    // Vulkan device lost, a CUDA wait on one of its signals never ends: the
    // backend then keeps its imports (it says so), whose payloads outlive
    // Vulkan's objects, and the Vulkan side is destroyed all the same.
    cudaWorkFinished = simulation->finish(kWaitTimeoutNs);
    if (!cudaWorkFinished && !loss.lost) throw RuntimeFailure("timeout: the simulation did not finish");
    // Everything has completed: the last frames' timings are all there is.
    // (A lost device has none to give.)
    if (!loss.lost && hooks.workFinished) hooks.workFinished();
    grid.hostWrites = HostWrites{};
    grid.simulation.reset();
    grid.queueSimulation.reset();
  }
  grid.hostOps.reset();
  waitForDeviceIdleInTeardown(device, loss);
  // Reverse order of creation (app/paths/).
  destroyFrameTags(device, grid.frameTags);
  // CUDA has freed its mipmapped array and external memory by now (the
  // simulation went first): Vulkan's image and memory may go.
  destroyGpuBuffer(device, grid.textureStaging);
  destroySharedTexture(device, grid.texture);
  destroyGridIndexBuffer(device, grid.indices);
  destroySyncSemaphores(device, grid.semaphores);
  destroyGpuBuffer(device, grid.staging);
  destroySharedVertexBuffer(device, grid.vertices);
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
    destroyCudaVertexMemory(grid.cudaVertices);
  } else if (grid.cudaVertices.allocation != 0) {
    std::fprintf(stderr,
                 "vkcuda-sim: CUDA's vertex memory is left allocated: a CUDA stream that may write it did not "
                 "finish\n");
    grid.cudaVertices = CudaVertexMemory{};
  }
  grid.externalWriter = false;
  grid.vertexOwner = VertexOwner::vulkan;
}

void rebuildGridResources(const GridSetup& setup, const ModelParams& params, FrameResources& frame,
                          GridResources& grid, ScheduleState& schedule, DeviceLoss& loss) {
  const ProfileRange range("grid rebuild");
  destroyGridResources(setup.device, frame, grid, schedule, loss, setup.hooks);
  createGridResources(grid, setup, params, schedule);
}

}  // namespace vksim
