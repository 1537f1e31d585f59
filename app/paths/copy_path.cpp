#include "app/paths/copy_path.h"

#include <string>

#include "app/interop/device_pairing.h"
#include "app/interop/teardown.h"
#include "app/interop/host_wait.h"
#include "app/interop/wait_strategy.h"
#include "app/paths/frame_commands.h"
#include "app/paths/schedule_turns.h"
#include "shaders/shared_layout.h"
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

void createCopyGrid(GridResources& grid, CopyState& own, const GridSetup& setup, const ModelParams& params,
                    ScheduleState& schedule) {
  const Device& device = setup.device;
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  // A plain device-local buffer that only the frame's upload writes.
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::deviceLocal, /*exportable=*/false);
  // The staging memory a program without interop would pick if it measured:
  // the host-visible type the host writes fastest on this machine.
  own.staging = createMeasuredStagingBuffer(device, bytes, &own.stagingChoice);
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/false);
  // The copy path measures the vertex transfer alone: no texture.
  grid.texture = createPlaceholderTexture(device, params);
  grid.simulation = createCopySimulation(setup.devices, params);
  grid.externalWriter = false;
  grid.vertexOwner = VertexOwner::vulkan;
  // The initial write, into the simulation's own memory: the host stages it
  // for render 0; nothing is signalled.
  const StepResult initial = grid.simulation->writeInitialState();
  restartSchedule(schedule, initial, /*copyPath=*/true);
  if (initial.status != StepStatus::ok) throw RuntimeFailure("the simulation could not write its initial state");
}

void runCopyFrame(FrameContext& frame, CopyState& own) {
  GridResources& grid = frame.grid;
  ScheduleState& schedule = frame.schedule;
  const uint64_t k = schedule.scheduleFrame;
  // Render k: sim k-1's output into the staging buffer (the host waits for
  // it), then a command buffer that uploads and draws it. No semaphores: the
  // host has ordered the writes before the submission.
  if (!stageSimulationOutput(grid, own, schedule)) throwWaitTimeout(schedule, "simulation copy to host memory");
  VkCommandBuffer commandBuffer = beginFrameCommands(frame);
  recordVertexUpload(grid, own, commandBuffer);
  recordScenePass(frame, commandBuffer);
  endFrameCommands(frame, commandBuffer);
  const RenderBatch batch = windowRenderBatch(frame);
  resetSlotFence(frame);
  submitToQueue(frame.device, frame.slot.commandBuffer, batch.waits(), batch.signals(), frame.slot.inFlight);
  frame.observer.renderSubmitted(k, batch.waits(), batch.signals());
  frame.afterRenderSubmitted();

  // Sim k: writes its own memory and copies it to the host; no waits.
  StepSync step = simSyncForFrame(k, schedule.mode);
  step.fault = frame.faults.step;
  const StepResult result = grid.simulation->step(step, frame.advance, kWaitTimeoutNs);
  if (result.status == StepStatus::ok) schedule.hostOutputUnstaged = true;
  requireStepOk(schedule, step, result);
}

// Sim k-1's copy to host memory must be complete (bounded poll of its
// completion event); then the host copies it into the staging buffer, which
// the previous frame's upload no longer reads (its fence was waited for).
bool stageSimulationOutput(GridResources& grid, CopyState& own, ScheduleState& schedule) {
  Simulation& simulation = *grid.simulation;
  if (!waitUntilReached([&] { return simulation.isStepComplete(); }, kWaitTimeoutNs)) return false;
  copyIntoStaging(own.stagingChoice, own.staging.mapped, simulation.hostVertices(), grid.vertices.size);
  schedule.hostOutputUnstaged = false;
  return true;
}

// Two barriers: the copy may only overwrite the vertices once the previous
// frame's vertex reads are done (write after read: an execution dependency;
// a barrier's first scope covers earlier submissions on the queue too), and
// the draw may only read them once the copy's writes are available
// (TRANSFER_WRITE -> VERTEX_ATTRIBUTE_READ). The staging buffer's host writes
// need no barrier: vkQueueSubmit makes them visible (host write ordering).
void recordVertexUpload(const GridResources& grid, const CopyState& own, VkCommandBuffer commandBuffer) {
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                       0, nullptr, 0, nullptr, 0, nullptr);
  const VkBufferCopy region{0, 0, grid.vertices.size};
  vkCmdCopyBuffer(commandBuffer, own.staging.buffer, grid.vertices.buffer, 1, &region);
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

void drainCopyGrid(const GridTeardown& teardown, GridResources& grid, CopyState& own) {
  const Device& device = teardown.device;
  FrameResources& frame = teardown.frame;
  ScheduleState& schedule = teardown.schedule;
  DeviceLoss& loss = teardown.loss;
  if (!schedule.hostOutputUnstaged || loss.lost) return;
  // The last render's upload must be done before the staging buffer is
  // written again, and the last step's copy to host memory before it is read.
  if (!waitForFenceInTeardown(device, frame.inFlight, loss))
    throwWaitTimeout(schedule, "render fence before the drain");
  if (loss.lost) return;
  if (!stageSimulationOutput(grid, own, schedule)) throwWaitTimeout(schedule, "simulation copy to host memory");
  runOneTimeCommands(device,
                     [&](VkCommandBuffer commandBuffer) { recordVertexUpload(grid, own, commandBuffer); });
}

void destroyCopyGrid(const GridTeardown& teardown, GridResources& grid, CopyState& own) {
  finishSimulation(teardown, grid);
  destroySharedObjects(teardown.device, grid, teardown.loss);
  destroyGpuBuffer(teardown.device, own.staging);
  own.stagingChoice = StagingChoice{};
}

}  // namespace vksim
