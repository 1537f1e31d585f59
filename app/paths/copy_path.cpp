#include "app/paths/copy_path.h"

#include <string>

#include "app/interop/schedule_waits.h"
#include "app/interop/wait_strategy.h"
#include "app/paths/frame_commands.h"
#include "app/testing/fault_hooks.h"
#include "renderer/vk_check.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim {
namespace {

// The copy path: nothing crosses between the APIs but bytes through the host.
std::unique_ptr<Simulation> createCopySimulation(const DeviceChoice& devices, const ModelParams& params) {
  if (devices.backend != Backend::cuda) return createCpuCopySimulation(params);
  Result<std::unique_ptr<Simulation>> simulation = createCudaCopySimulation(params, devices.cuda->ordinal);
  if (!simulation) throw EnvironmentError("CUDA backend (copy path): " + simulation.error().message);
  return std::move(*simulation);
}

}  // namespace

void createCopyGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                    ScheduleState& schedule) {
  const Device& device = setup.device;
  grid.path = InteropPath::copy;
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  // A plain device-local buffer that only the frame's upload writes.
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::deviceLocal, /*exportable=*/false);
  // The staging memory a program without interop would pick if it measured:
  // the host-visible type the host writes fastest on this machine.
  grid.staging = createMeasuredStagingBuffer(device, bytes, &grid.stagingChoice);
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/false);
  grid.indices = createGridIndexBuffer(device, params.grid);
  // The copy path measures the vertex transfer alone: no texture.
  grid.texture = createPlaceholderTexture(device, params);
  grid.simulation = createCopySimulation(setup.devices, params);
  grid.externalWriter = false;
  grid.vertexOwner = VertexOwner::vulkan;
  writeInitialState(*grid.simulation, grid.path, schedule, setup.hooks);
}

void runCopyFrame(FrameContext& frame) {
  GridResources& grid = frame.grid;
  ScheduleState& schedule = frame.schedule;
  const uint64_t k = schedule.scheduleFrame;
  // Render k: sim k-1's output into the staging buffer (the host waits for
  // it), then a command buffer that uploads and draws it. No semaphores: the
  // host has ordered the writes before the submission.
  if (!stageSimulationOutput(grid, schedule)) throwWaitTimeout(schedule, "simulation copy to host memory");
  VkCommandBuffer commandBuffer = beginFrameCommands(frame);
  recordVertexUpload(grid, commandBuffer);
  recordScenePass(frame, commandBuffer);
  endFrameCommands(frame, commandBuffer);
  const RenderBatch batch = windowRenderBatch(frame);
  VK_CHECK(vkResetFences(frame.device.device, 1, &frame.slot.inFlight));
  submitToQueue(frame.device, frame.slot.commandBuffer, batch.waits(), batch.signals(), frame.slot.inFlight);
  frame.observer.renderSubmitted(k, batch.waits(), batch.signals());
  frame.afterRenderSubmitted();

  // Sim k: writes its own memory and copies it to the host; no waits.
  const StepSync step = withStepFault(simSyncForFrame(k, schedule.mode), frame.faults, schedule);
  const StepResult result = grid.simulation->step(step, frame.advance, kWaitTimeoutNs);
  if (result.status == StepStatus::ok) schedule.hostOutputUnstaged = true;
  requireStepOk(schedule, step, result);
}

// Sim k-1's copy to host memory must be complete (bounded poll of its
// completion event); then the host copies it into the staging buffer, which
// the previous frame's upload no longer reads (its fence was waited for).
bool stageSimulationOutput(GridResources& grid, ScheduleState& schedule) {
  Simulation& simulation = *grid.simulation;
  if (!waitUntilReached([&] { return simulation.isStepComplete(); }, kWaitTimeoutNs)) return false;
  copyIntoStaging(grid.stagingChoice, grid.staging.mapped, simulation.hostVertices(), grid.vertices.size);
  schedule.hostOutputUnstaged = false;
  return true;
}

// Two barriers: the copy may only overwrite the vertices once the previous
// frame's vertex reads are done (write after read: an execution dependency;
// a barrier's first scope covers earlier submissions on the queue too), and
// the draw may only read them once the copy's writes are available
// (TRANSFER_WRITE -> VERTEX_ATTRIBUTE_READ). The staging buffer's host writes
// need no barrier: vkQueueSubmit makes them visible (host write ordering).
void recordVertexUpload(const GridResources& grid, VkCommandBuffer commandBuffer) {
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                       0, nullptr, 0, nullptr, 0, nullptr);
  const VkBufferCopy region{0, 0, grid.vertices.size};
  vkCmdCopyBuffer(commandBuffer, grid.staging.buffer, grid.vertices.buffer, 1, &region);
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
  barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = grid.vertices.buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0,
                       0, nullptr, 1, &barrier, 0, nullptr);
}

}  // namespace vksim
