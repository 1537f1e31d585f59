#include "app/paths/zero_copy_path.h"

#include <string>

#include "app/capture/profiling_marks.h"
#include "app/interop/exported_handles.h"
#include "app/interop/schedule_waits.h"
#include "app/paths/frame_commands.h"
#include "app/testing/fault_hooks.h"
#include "renderer/vk_check.h"
#include "sim/cuda/cuda_simulation.h"
#include "sim/nvtx_ranges.h"
#include "sim/surface_texture.h"

namespace vksim {

// 1. Create and export, 2. hand over, 3. import.
void createZeroCopyGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                        ScheduleState& schedule) {
  const Device& device = setup.device;
  grid.path = InteropPath::zeroCopy;
  // Device-local memory that CUDA will write: allocated with
  // VkExportMemoryAllocateInfo (opaque fd), dedicated when the driver asks.
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::deviceLocal, /*exportable=*/true);
  // The timeline semaphore and the two binary ones, exportable as opaque fds.
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/true);
  grid.indices = createGridIndexBuffer(device, params.grid);
  // The surface texture CUDA writes in the same turn as the vertices: an
  // exported image, mapped by CUDA as a mipmapped array (off: the placeholder).
  grid.texture = createSharedTexture(device, params.grid, params.grid, surfaceTextureLevelCount(params.grid),
                                     setup.config.texture ? TextureWriter::external : TextureWriter::placeholder);
  const bool textured = grid.texture.writer == TextureWriter::external;
  // The fds cross from Vulkan to CUDA here, and only here. CUDA sets each fd
  // it imported to -1 (the driver's from then on) and leaves the rest to the
  // handles' one owner, which closes them (the opaque-fd rule,
  // app/interop/exported_handles.h).
  const int cudaOrdinal = setup.devices.cuda->ordinal;
  grid.simulation = handOverSharedHandles(
      {device, grid.vertices, grid.semaphores, setup.config.faults, "CUDA backend",
       textured ? &grid.texture : nullptr},
      [&](ExportedHandles& handles) {
        return createCudaSimulation(params, cudaOrdinal, handles.buffer, handles.semaphores,
                                    textured ? &handles.texture : nullptr);
      });
  // CUDA writes the initial state into memory that Vulkan has not used yet:
  // Vulkan's first use must acquire it from EXTERNAL, as after any sim step.
  grid.externalWriter = true;
  grid.vertexOwner = VertexOwner::external;
  writeInitialState(*grid.simulation, grid.path, schedule, setup.hooks);
}

namespace {

// Render k's command buffer: acquire (the buffer is EXTERNAL's after the
// other API wrote it), whatever the host wrote for this render, the mesh
// pass, release (the other API writes next).
void recordZeroCopyRender(FrameContext& frame, bool acquires, bool releases) {
  GridResources& grid = frame.grid;
  const uint32_t queueFamily = frame.device.queueFamily;
  const bool maintenance8 = frame.device.maintenance8;  // narrow stages (rule M22)
  VkCommandBuffer commandBuffer = beginFrameCommands(frame);
  if (acquires)
    recordAcquireFromExternal(grid, queueFamily, commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                              VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT, maintenance8);
  if (grid.hostWrites.recordBeforeDraw) grid.hostWrites.recordBeforeDraw(commandBuffer, frame.schedule.totalFrames);
  recordScenePass(frame, commandBuffer);
  if (releases) recordReleaseToExternal(grid, queueFamily, commandBuffer, maintenance8);
  endFrameCommands(frame, commandBuffer);
}

}  // namespace

// 4. One frame.
void runZeroCopyFrame(FrameContext& frame) {
  GridResources& grid = frame.grid;
  ScheduleState& schedule = frame.schedule;
  const uint64_t k = schedule.scheduleFrame;
  const bool poll = frame.waitStrategy == WaitStrategy::poll;

  // Render k. Recording happens while sim k-1 still runs.
  const bool acquires = grid.vertexOwner == VertexOwner::external;
  const bool releases = grid.externalWriter;
  recordZeroCopyRender(frame, acquires, releases);
  RenderSync render = nextRenderSync(schedule);  // waits 2k (or simDone), signals 2k+1 (or renderDone)
  render.signals = !renderLeavesOutSignal(frame.faults, schedule);
  // With an acquire behind the wait: externalAcquireWaitStage (ALL_COMMANDS,
  // or with VK_KHR_maintenance8 the acquire's own stages: rules M21, M22).
  // Without one (the CPU host's mapped writes, made visible by the submission
  // itself): the vertex input, and any stage the host path adds.
  const VkPipelineStageFlags waitStage =
      (acquires ? externalAcquireWaitStage(grid, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, frame.device.maintenance8)
                : VkPipelineStageFlags{VK_PIPELINE_STAGE_VERTEX_INPUT_BIT}) |
      grid.hostWrites.waitStages;
  const RenderBatch batch = scheduleRenderBatch(frame, render, waitStage);
  // Poll: only now does the host wait for sim k-1, and hands the render's
  // wait over once it is reached (app/interop/wait_strategy.h).
  if (poll) waitUntilSimulationSignalled(frame.device, grid, schedule, render);
  awaitSkippedSimSignal(frame.device, grid, schedule);
  VK_CHECK(vkResetFences(frame.device.device, 1, &frame.slot.inFlight));
  {
    const ProfileRange submission([&] { return renderName(k, render); });  // NVTX: "render k: wait 2k, signal 2k+1"
    submitToQueue(frame.device, frame.slot.commandBuffer, batch.waits(), batch.signals(), frame.slot.inFlight);
  }
  // Noted right after the submission succeeded: its wait consumed the sim
  // signal, its signal is outstanding, and the buffer is EXTERNAL's again if
  // the frame released it.
  noteRenderSubmitted(schedule, render);
  if (releases)
    grid.vertexOwner = VertexOwner::external;
  else if (acquires)
    grid.vertexOwner = VertexOwner::vulkan;
  if (grid.hostWrites.renderSubmitted) grid.hostWrites.renderSubmitted();
  frame.observer.renderSubmitted(k, batch.waits(), batch.signals());
  frame.afterRenderSubmitted();

  // Sim k: waits 2k+1 (or renderDone), writes state k+1, signals 2k+2 (or
  // simDone). As for the render, the step's wait is handed over only once
  // render k's signal has been reached (poll), or must be awaited because a
  // test left it out.
  const StepSync step = withStepFault(simSyncForFrame(k, schedule.mode), frame.faults, schedule);
  if (poll || !render.signals) {
    waitUntilRenderSignalled(frame.device, grid, schedule, render, frame.slot.inFlight);
    frame.observer.renderSignalSeen();
  }
  const StepResult result = grid.simulation->step(step, frame.advance, kWaitTimeoutNs);
  // What the step enqueued is noted before its status is judged: a step that
  // failed after its wait, or before its signal, leaves exactly that for the
  // drain (app/interop/value_schedule.h).
  noteSimulationTurn(schedule, step, result);
  noteSkippedSimSignal(schedule, step, result);
  frame.observer.simulationStepped(k, step, result);
  requireStepOk(schedule, step, result);
}

}  // namespace vksim
