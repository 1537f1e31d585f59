#include "app/interop/queue_submission.h"

#include <cstdio>

#include "base/config.h"
#include "base/host_clock.h"
#include "renderer/gpu_timer.h"
#include "renderer/vk_check.h"

namespace vksim {

VkBufferUsageFlags queueVertexUsage(Backend backend, bool* deviceAddress) {
  *deviceAddress = backend == Backend::cudaNvx;
  // Both: the texture's compute shaders read the vertices as a storage buffer
  // (sim/vulkan/surface_texture_writer.h), the Vulkan backend's also write them.
  return VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
}

std::unique_ptr<RenderQueueSimulation> createRenderQueueSimulation(const Device& device, Backend backend,
                                                                   const SharedVertexBuffer& vertices,
                                                                   const SyncSemaphores& semaphores,
                                                                   const ModelParams& params,
                                                                   const SharedTexture& texture) {
  RenderQueueContext context;
  context.device = device.device;
  context.deviceName = device.info.name;
  context.physical = device.physical;
  context.memoryProperties = device.memoryProperties;
  context.queueFamily = device.queueFamily;
  context.vertexBuffer = vertices.buffer;
  context.vertexBytes = vertices.size;
  if (texture.writer == TextureWriter::queueCompute) {
    context.textureImage = texture.image;
    context.textureLevels = texture.levels;
  }
  context.timestamps = device.timestampValidBits > 0;
  const Device* owner = &device;
  const VkSemaphore simDone = semaphores.simDone;
  // Render 0 waits on simDone whatever the backend (app/interop/value_schedule.h):
  // the initial write's submission signals it, so its writes reach render 0
  // through a semaphore, which makes them available and visible to the
  // stages that the wait names.
  context.submitInitialWrite = [owner, simDone](VkCommandBuffer commandBuffer) {
    const SemaphoreSignal signal{simDone, 0};
    submitToQueue(*owner, commandBuffer, {}, std::span(&signal, 1), VK_NULL_HANDLE);
  };
  // A fence on an empty submission signals once everything submitted before
  // it on the queue has completed (submission order), so the wait is bounded
  // where vkQueueWaitIdle is not. On a timeout the fence may still be
  // pending: it is left to vkDestroyDevice rather than destroyed in use.
  context.waitForQueue = [owner](uint64_t timeoutNs) {
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    VK_CHECK(vkCreateFence(owner->device, &fenceInfo, nullptr, &fence));
    submitToQueue(*owner, VK_NULL_HANDLE, {}, {}, fence);
    const VkResult result = waitForFenceOrLoss(*owner, fence, timeoutNs);
    if (result == VK_TIMEOUT) return false;
    vkDestroyFence(owner->device, fence, nullptr);
    return result == VK_SUCCESS;
  };
  // The step's timestamps on the host clock, through the same kind of
  // calibration as the render's (renderer/gpu_timer.h), kept between frames;
  // none without it.
  struct StepClock {
    GpuTimer timer;
    CachedGpuClockCalibration calibration;
  };
  auto clock = std::make_shared<StepClock>(StepClock{createGpuTimer(device, 0), {}});
  context.ticksToHostNs = [owner, clock](uint64_t ticks) -> std::optional<int64_t> {
    const std::optional<GpuClockCalibration>& calibration =
        currentGpuClockCalibration(clock->calibration, *owner, clock->timer, hostNowNs());
    if (!calibration) return std::nullopt;
    return gpuTicksToHostNanoseconds(clock->timer, *calibration, ticks & clock->timer.validMask);
  };
  Result<std::unique_ptr<RenderQueueSimulation>> simulation =
      backend == Backend::cudaNvx ? createCudaNvxSimulation(params, context)
                                       : createVulkanComputeSimulation(params, context);
  if (!simulation) throw EnvironmentError(simulation.error().message);
  if (const std::string line = (*simulation)->startLine(); !line.empty()) std::printf("%s\n", line.c_str());
  return std::move(*simulation);
}

void submitRenderAndStep(const Device& device, const RenderAndStep& frame) {
  const StepSync& sync = frame.sync;
  const SyncSemaphores& semaphores = frame.semaphores;
  const RecordedStep& step = frame.step;
  // Sim k waits for render k: the same semaphore and value as a CUDA step
  // (docs/value-schedule.md). Its wait is at COMPUTE_SHADER, the first stage
  // the step's shaders or kernels use; the render's signal covers all of its
  // commands, so the vertex reads are done before the step overwrites them.
  // A binary wait comes after its signal in submission order (batch 1 before
  // batch 2 of one vkQueueSubmit), as VUID-vkQueueSubmit-pWaitSemaphores-03238
  // requires.
  const bool timeline = sync.mode == SyncMode::timeline;
  const SemaphoreWait wait{timeline ? semaphores.timeline : semaphores.renderDone, timeline ? sync.waitValue : 0,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT};
  // Sim k signals for render k+1 (timeline 2k+2, or simDone); the signal's
  // first scope is every command of the batch, so render k+1's wait orders
  // its vertex reads after the step's writes.
  const SemaphoreSignal signal{timeline ? semaphores.timeline : semaphores.simDone, timeline ? sync.signalValue : 0};
  const std::array<SubmitBatch, 2> batches{
      SubmitBatch{frame.renderCommands, frame.renderWaits, frame.renderSignals},
      SubmitBatch{step.commandBuffer, std::span(&wait, 1),
                  step.signals ? std::span(&signal, 1) : std::span<const SemaphoreSignal>()}};
  submitBatchesToQueue(device, batches, frame.fence);
}

}  // namespace vksim
