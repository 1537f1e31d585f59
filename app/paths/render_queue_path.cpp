#include "app/paths/render_queue_path.h"

#include <optional>
#include <string>

#include "app/interop/device_pairing.h"
#include "app/interop/queue_submission.h"
#include "app/paths/frame_commands.h"
#include "app/paths/schedule_turns.h"
#include "renderer/debug_names.h"
#include "shaders/shared_layout.h"

namespace vksim {

void createRenderQueueGrid(GridResources& grid, std::unique_ptr<RenderQueueSimulation>& simulation,
                           const GridSetup& setup, const ModelParams& params, ScheduleState& schedule) {
  const Device& device = setup.device;
  const Backend backend = setup.devices.backend;
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  bool deviceAddress = false;
  const VkBufferUsageFlags usage = queueVertexUsage(backend, &deviceAddress);
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::deviceLocal, /*exportable=*/false, usage,
                                           deviceAddress);
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/false);
  // With the texture on, the step writes every level of it in its own
  // command buffer: vulkan's with compute shaders (the ripple step writing
  // levels 0-3 itself), cuda-nvx's ripple with the CUDA kernels (levels 0-3
  // in the step kernel, then downsampleLevelsKernel), its sinewave and
  // initial state with the same shaders as vulkan's. Never exported:
  // the one queue orders its writes and the renders' reads, through pipeline
  // barriers inside the step (their scopes reach the earlier and later
  // submissions on the queue; sim/vulkan/surface_texture_writer.h), with no
  // ownership transfer. Off, the mesh binds the placeholder and takes its
  // colour from the height.
  grid.texture = createSurfaceTexture(
      device, params, setup.config.texture ? TextureWriter::queueCompute : TextureWriter::placeholder);
  simulation = createRenderQueueSimulation(device, backend, grid.vertices, grid.semaphores, params, grid.texture);
  grid.queueSimulation = simulation.get();
  grid.externalWriter = false;
  grid.vertexOwner = VertexOwner::vulkan;
  writeInitialState(*simulation, schedule, setup.hooks);
}

void runRenderQueueFrame(FrameContext& frame, RenderQueueSimulation& simulation) {
  GridResources& grid = frame.grid;
  ScheduleState& schedule = frame.schedule;
  const uint64_t k = schedule.scheduleFrame;
  VkCommandBuffer commandBuffer = beginFrameCommands(frame);
  recordScenePass(frame, commandBuffer);
  endFrameCommands(frame, commandBuffer);
  RenderSync render = nextRenderSync(schedule);
  render.signals = !frame.faults.renderLeavesOutSignal;
  // Vulkan owns the buffer throughout: the wait is at the first stage that
  // reads the vertices.
  const RenderBatch batch = scheduleRenderBatch(frame, render, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT);
  awaitSkippedSimSignal(frame.device, grid, schedule);
  // Sim k's step, recorded now for the second batch of the same submission.
  // Without render k's schedule signal (a test left it out) the step's wait
  // could never be satisfied (binary: it would even be invalid), so the step
  // is left out and the host's bounded wait for that signal below ends the run.
  StepSync step = simSyncForFrame(k, schedule.mode);
  step.fault = frame.faults.step;
  std::optional<RecordedStep> queuedStep;
  if (render.signals) {
    queuedStep = simulation.recordStep(step, frame.advance);
    if (!queuedStep->commandBuffer)
      throw RuntimeFailure("the " + simulation.backendName() + " backend could not record step " +
                           std::to_string(k));
    nameObject(frame.device.device, queuedStep->commandBuffer, "sim step (render queue)");
  }
  resetSlotFence(frame);
  if (queuedStep)
    submitRenderAndStep(frame.device, {frame.slot.commandBuffer, batch.waits(), batch.signals(), *queuedStep, step,
                                       grid.semaphores, frame.slot.inFlight});
  else
    submitToQueue(frame.device, frame.slot.commandBuffer, batch.waits(), batch.signals(), frame.slot.inFlight);
  noteRenderSubmitted(schedule, render);
  frame.observer.renderSubmitted(k, batch.waits(), batch.signals());
  frame.afterRenderSubmitted();

  // The step was handed over with the render: its wait and (unless left
  // out) its signal are enqueued. Without it, only the bounded wait is left.
  StepResult result;
  if (queuedStep) {
    result.waitEnqueued = true;
    result.signalEnqueued = queuedStep->signals;
  } else {
    waitUntilRenderSignalled(frame.device, grid, schedule, render, frame.slot.inFlight);
    frame.observer.renderSignalSeen();
    result.status = StepStatus::failed;  // the signal came after all: the step was still never submitted
  }
  noteSimulationTurn(schedule, step, result);
  noteSkippedSimSignal(schedule, step, result);
  frame.observer.simulationStepped(k, step, result);
  requireStepOk(schedule, step, result);
}

void drainRenderQueueGrid(const GridTeardown& teardown, GridResources& grid) {
  drainSchedule(teardown.device, teardown.frame, grid, teardown.schedule, teardown.loss, teardown.hooks);
}

void destroyRenderQueueGrid(const GridTeardown& teardown, GridResources& grid,
                            std::unique_ptr<RenderQueueSimulation>& simulation) {
  finishSimulation(teardown, grid);
  // The path's simulation where finishSimulation destroys the others:
  // finished, and before the vertex buffer and semaphores it records into.
  simulation.reset();
  destroySharedObjects(teardown.device, grid, teardown.loss);
}

}  // namespace vksim
