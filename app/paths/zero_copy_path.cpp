#include "app/paths/zero_copy_path.h"

#include "app/interop/grid_resources.h"
#include "app/interop/teardown.h"
#include "app/paths/frame_commands.h"
#include "app/paths/schedule_turns.h"
#include "shaders/shared_layout.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim {

// 1. Create and export, 2. the fds cross, 3. import.
void createZeroCopyGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                        ScheduleState& schedule) {
  const Device& device = setup.device;
  // Device-local memory that CUDA will write: allocated with
  // VkExportMemoryAllocateInfo (opaque fd), always a dedicated allocation.
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::deviceLocal, /*exportable=*/true);
  // The timeline semaphore and the two binary ones, exportable as opaque fds.
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/true);
  // The surface texture CUDA writes in the same turn as the vertices: an
  // exported image, mapped by CUDA as a mipmapped array (off: the placeholder).
  grid.texture =
      createSurfaceTexture(device, params, setup.config.texture ? TextureWriter::external : TextureWriter::placeholder);
  const SharedTexture* texture = grid.texture.writer == TextureWriter::external ? &grid.texture : nullptr;
  // On this path the fds cross from Vulkan to CUDA here, and only here (the
  // opaque-fd rule, app/interop/grid_resources.h). Export: each object gets a new
  // fd, which `handles` owns.
  ExportedHandles handles =
      exportSharedHandles(device, grid.vertices, grid.semaphores, setup.config.faults, texture, "CUDA backend");
  injectImportFailure(setup.config.faults, "CUDA backend: could not import the vertex buffer's memory");
  // Import: CUDA sets each fd it imported to -1 (the driver's from then on).
  Result<std::unique_ptr<Simulation>> imported =
      createCudaSimulation(params, setup.cudaOrdinal, handles.buffer, handles.semaphores,
                           texture ? &handles.texture : nullptr);
  grid.simulation = importedSimulation(std::move(imported), "CUDA backend");
  // `handles` closes whatever CUDA did not take when it goes, at the end of
  // this function, on success and failure alike.
  // CUDA writes the initial state into memory that Vulkan has not used yet:
  // Vulkan's first use must acquire it from EXTERNAL, as after any sim step.
  grid.externalWriter = true;
  grid.vertexOwner = VertexOwner::external;
  writeInitialState(*grid.simulation, schedule, setup.hooks);
}

// Render k's command buffer begins with the acquire (the buffer is
// EXTERNAL's after CUDA wrote it; not after a drain gave it back to Vulkan).
VkCommandBuffer beginZeroCopyRender(FrameContext& frame, bool acquires) {
  const bool maintenance8 = frame.device.maintenance8;  // narrow stages (rule M22)
  VkCommandBuffer commandBuffer = beginFrameCommands(frame);
  if (acquires)
    recordAcquireFromExternal(frame.grid, frame.device.queueFamily, commandBuffer,
                              VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT, maintenance8);
  return commandBuffer;
}

// ... and ends with the release (CUDA writes next).
void endZeroCopyRender(FrameContext& frame, VkCommandBuffer commandBuffer) {
  const bool maintenance8 = frame.device.maintenance8;  // narrow stages (rule M22)
  recordReleaseToExternal(frame.grid, frame.device.queueFamily, commandBuffer, maintenance8);
  endFrameCommands(frame, commandBuffer);
}

// 4. One frame.
void runZeroCopyFrame(FrameContext& frame) {
  GridResources& grid = frame.grid;
  // Render k: acquire, the mesh pass, release. Recording happens while sim
  // k-1 still runs.
  const bool acquires = grid.vertexOwner == VertexOwner::external;
  VkCommandBuffer commandBuffer = beginZeroCopyRender(frame, acquires);
  recordScenePass(frame, commandBuffer);
  endZeroCopyRender(frame, commandBuffer);
  RenderSync render = nextRenderSync(frame.schedule);  // waits 2k (or simDone), signals 2k+1 (or renderDone)
  // With an acquire behind the wait: externalAcquireWaitStage (ALL_COMMANDS,
  // or with VK_KHR_maintenance8 the acquire's own stages: rules M21, M22).
  const VkPipelineStageFlags waitStage =
      acquires ? externalAcquireWaitStage(grid, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, frame.device.maintenance8)
               : VkPipelineStageFlags{VK_PIPELINE_STAGE_VERTEX_INPUT_BIT};
  const RenderBatch batch = submitScheduledRender(frame, render, waitStage);
  // The render released the buffer: it is EXTERNAL's again once submitted.
  grid.vertexOwner = VertexOwner::external;
  finishRenderTurn(frame, batch);
  // Sim k: waits 2k+1 (or renderDone), writes state k+1, signals 2k+2 (or simDone).
  runSimulationTurn(frame, render);
}

// 5. The drain: the last sim signal consumed, the buffer acquired back.
void drainZeroCopyGrid(const GridTeardown& teardown, GridResources& grid) {
  drainSchedule(teardown.device, teardown.frame, grid, teardown.schedule, teardown.loss, teardown.hooks);
}

// 6. Teardown, CUDA first, then Vulkan.
void destroyZeroCopyGrid(const GridTeardown& teardown, GridResources& grid) {
  finishSimulation(teardown, grid);
  destroySharedObjects(teardown.device, grid, teardown.loss);
}

}  // namespace vksim
