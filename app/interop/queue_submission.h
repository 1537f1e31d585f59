// The simulations that run in the render's own queue (--backend vulkan and
// cuda-nvx, sim/vulkan/render_queue_simulation.h): their creation on the
// render's device, and the one place that builds the frame's two-batch
// submission. Nothing crosses to another API here: no export, no import, no
// ownership transfer to VK_QUEUE_FAMILY_EXTERNAL (docs/queue-backends.md).
#pragma once
#include <volk.h>

#include <memory>
#include <span>

#include "app/interop/device_pairing.h"
#include "renderer/frame_sync.h"
#include "renderer/shared_resources.h"
#include "renderer/shared_texture.h"
#include "renderer/vulkan_context.h"
#include "sim/vulkan/render_queue_simulation.h"

namespace vksim {

// The vertex buffer's extra usage for `backend` (createSharedVertexBuffer):
// STORAGE_BUFFER for compute shaders (both backends: the texture's read the
// vertices); device-address usage and memory for cuda-nvx (deviceAddress set).
VkBufferUsageFlags queueVertexUsage(Backend backend, bool* deviceAddress);

// Creates the backend's simulation on `device` for `vertices` (which
// outlive it). Its initial write is submitted on device.queue with a signal
// of semaphores.simDone, as every backend's initial write ends. Throws
// EnvironmentError (exit 3) with the backend's one sentence when it cannot be
// made (cuda-nvx: the driver refused the module or a kernel). With a
// queueCompute `texture` (which outlives it too), every step also writes
// every level of it; with any other, the step writes the vertices only.
std::unique_ptr<RenderQueueSimulation> createRenderQueueSimulation(const Device& device, Backend backend,
                                                                   const SharedVertexBuffer& vertices,
                                                                   const SyncSemaphores& semaphores,
                                                                   const ModelParams& params,
                                                                   const SharedTexture& texture);

// Frame k in one vkQueueSubmit: batch 1 is render k (renderCommands with
// renderWaits and renderSignals, as for every backend), batch 2 is sim k
// (step.commandBuffer), which waits on render k's schedule signal
// (timeline 2k+1, or renderDone) at COMPUTE_SHADER and signals sim k's
// (timeline 2k+2, or simDone) unless step.signals is false. `fence`
// signals once both batches have completed.
struct RenderAndStep {
  VkCommandBuffer renderCommands = VK_NULL_HANDLE;
  std::span<const SemaphoreWait> renderWaits;
  std::span<const SemaphoreSignal> renderSignals;
  const RecordedStep& step;
  const StepSync& sync;
  const SyncSemaphores& semaphores;
  VkFence fence = VK_NULL_HANDLE;
};
void submitRenderAndStep(const Device& device, const RenderAndStep& frame);

}  // namespace vksim
