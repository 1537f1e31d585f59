#include "app/paths/opencl_path.h"

#include <vector>

#include "app/interop/device_pairing.h"
#include "app/interop/grid_resources.h"
#include "app/paths/frame_commands.h"
#include "app/paths/schedule_turns.h"
#include "app/paths/zero_copy_path.h"
#include "renderer/debug_names.h"
#include "renderer/external_transfer_stages.h"
#include "shaders/shared_layout.h"
#include "sim/opencl/opencl_simulation.h"
#include "sim/surface_texture.h"

namespace vksim {

void createOpenClGrid(GridResources& grid, OpenClState& own, const GridSetup& setup, const ModelParams& params,
                      ScheduleState& schedule) {
  const Device& device = setup.device;
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::deviceLocal, /*exportable=*/true);
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/true);
  // The image is not shared: importing a mip chain into OpenCL rests on
  // behaviour that no specification gives (docs/design.md, "The surface
  // texture on OpenCL"). OpenCL writes the levels packed into a buffer
  // instead, exported as the vertex buffer is: the same kind of buffer,
  // whose usage has TRANSFER_SRC for the copy into the image and is the one
  // the device was asked to export (rule M19).
  const bool textured = setup.config.texture;
  grid.texture = createSurfaceTexture(device, params,
                                      textured ? TextureWriter::externalBufferCopy : TextureWriter::placeholder);
  if (textured) {
    own.texels = createSharedVertexBuffer(device, surfaceTextureBytes(params.grid), VertexMemory::deviceLocal,
                                          /*exportable=*/true);
    // createSharedVertexBuffer named both as the vertex buffer; a second
    // name replaces the first (vkSetDebugUtilsObjectNameEXT), so a debugger
    // tells the texels' memory from the vertices'.
    nameObject(device.device, own.texels.buffer, "surface texels (exported to OpenCL)");
    nameObject(device.device, own.texels.memory, "surface texels memory (exported as opaque fd)");
  }
  // The fds cross from Vulkan to OpenCL here, with the same rule as for
  // CUDA. OpenCL imports the vertex memory, the texel memory and the two
  // binary semaphores and sets each of those fds to -1; the timeline fd,
  // which it never imports (cl_khr_semaphore has no timeline type), stays in
  // `handles` and is closed with whatever else was not taken.
  ExportedHandles handles =
      exportSharedHandles(device, grid.vertices, grid.semaphores, setup.config.faults, nullptr, "OpenCL backend");
  if (textured) exportTexelBuffer(device, own.texels, handles);
  injectImportFailure(setup.config.faults, "OpenCL backend: could not import the vertex buffer's memory");
  Result<std::unique_ptr<Simulation>> imported = createOpenClSimulation(
      params, *setup.devices.opencl, handles.buffer, handles.semaphores, textured ? &handles.texels : nullptr);
  grid.simulation = importedSimulation(std::move(imported), "OpenCL backend");
  // OpenCL writes the initial state, texels included: Vulkan's first use of
  // either buffer acquires it from EXTERNAL.
  grid.externalWriter = true;
  grid.vertexOwner = VertexOwner::external;
  own.texelOwner = VertexOwner::external;
  writeInitialState(*grid.simulation, schedule, setup.hooks);
}

namespace {

// The texel buffer's queue family ownership transfers, the vertex buffer's
// rule (rules M21, M22; recordAcquireFromExternal): OpenCL writes it
// between its own acquire and release, Vulkan reads it only between an
// acquire from VK_QUEUE_FAMILY_EXTERNAL, ordered by the wait on OpenCL's
// signal, and a release back, ordered before the signal to OpenCL. Its one
// Vulkan access is the copy's read (TRANSFER); srcAccessMask is 0 both ways
// (OpenCL's signal made its writes available; a read needs no availability).
void recordTexelTransfer(const OpenClState& own, uint32_t queueFamily, VkCommandBuffer commandBuffer,
                         bool maintenance8, bool acquire) {
  const ExternalTransferStages stages = acquire
                                            ? externalAcquireStages(maintenance8, VK_PIPELINE_STAGE_TRANSFER_BIT)
                                            : externalReleaseStages(maintenance8, VK_PIPELINE_STAGE_TRANSFER_BIT);
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  // The transfer's two halves (rules M21, M22).
  barrier.srcQueueFamilyIndex = acquire ? VK_QUEUE_FAMILY_EXTERNAL : queueFamily;
  barrier.dstQueueFamilyIndex = acquire ? queueFamily : VK_QUEUE_FAMILY_EXTERNAL;
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = acquire ? VK_ACCESS_TRANSFER_READ_BIT : 0;
  barrier.buffer = own.texels.buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commandBuffer, stages.srcStageMask, stages.dstStageMask, stages.dependencyFlags, 0, nullptr,
                       1, &barrier, 0, nullptr);
}

// The texels OpenCL wrote in its last turn into every level of the image:
// acquire (when EXTERNAL holds them), copy, release. Before the render pass.
void recordTexelCopy(const GridResources& grid, const OpenClState& own, uint32_t queueFamily,
                     VkCommandBuffer commandBuffer, bool maintenance8) {
  const ScopedCommandLabel label(commandBuffer, "copy OpenCL's texels into the texture");
  if (own.texelOwner == VertexOwner::external)
    recordTexelTransfer(own, queueFamily, commandBuffer, maintenance8, /*acquire=*/true);
  // Where each level lies in what OpenCL wrote (sim/surface_texture.h).
  std::vector<TextureLevelCopy> levels;
  for (uint32_t level = 0; level < grid.texture.levels; ++level)
    levels.push_back({level, surfaceTextureLevel(grid.texture.width, level).offset});
  recordTextureUpload(commandBuffer, grid.texture, own.texels.buffer, levels);
  recordTexelTransfer(own, queueFamily, commandBuffer, maintenance8, /*acquire=*/false);
}

bool copiesTexels(const GridResources& grid) { return grid.texture.writer == TextureWriter::externalBufferCopy; }

}  // namespace

void runOpenClFrame(FrameContext& frame, OpenClState& own) {
  GridResources& grid = frame.grid;
  const bool maintenance8 = frame.device.maintenance8;  // narrow stages (rule M22)
  // Render k: the zero-copy render's command buffer, with the texels' copy
  // between the acquire and the mesh pass. Recording happens while sim k-1
  // still runs.
  const bool acquires = grid.vertexOwner == VertexOwner::external;
  VkCommandBuffer commandBuffer = beginZeroCopyRender(frame, acquires);
  if (copiesTexels(grid)) recordTexelCopy(grid, own, frame.device.queueFamily, commandBuffer, maintenance8);
  recordScenePass(frame, commandBuffer);
  endZeroCopyRender(frame, commandBuffer);
  RenderSync render = nextRenderSync(frame.schedule);  // waits simDone (render 0: the initial write's), signals renderDone
  // The wait orders both acquires (rules M21, M22: externalAcquireWaitStage
  // for the vertices, the texels' own for the copy) and, without an
  // acquire, the vertex input and the copy themselves.
  VkPipelineStageFlags waitStage =
      acquires ? externalAcquireWaitStage(grid, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, maintenance8)
               : VkPipelineStageFlags{VK_PIPELINE_STAGE_VERTEX_INPUT_BIT};
  if (copiesTexels(grid))
    waitStage |= own.texelOwner == VertexOwner::external
                     ? externalAcquireStages(maintenance8, VK_PIPELINE_STAGE_TRANSFER_BIT).semaphoreWaitStage
                     : VkPipelineStageFlags{VK_PIPELINE_STAGE_TRANSFER_BIT};
  const RenderBatch batch = submitScheduledRender(frame, render, waitStage);
  // The render released both buffers: they are EXTERNAL's again once submitted.
  grid.vertexOwner = VertexOwner::external;
  if (copiesTexels(grid)) own.texelOwner = VertexOwner::external;
  finishRenderTurn(frame, batch);
  // Sim k: waits renderDone, writes state k+1 and its texels, signals simDone.
  runSimulationTurn(frame, render);
}

void destroyOpenClGrid(const GridTeardown& teardown, GridResources& grid, OpenClState& own) {
  // OpenCL released its import of the texels with the simulation, and the
  // device is idle (destroyZeroCopyGrid): Vulkan's buffer may go (rule M14).
  destroyZeroCopyGrid(teardown, grid);
  destroySharedVertexBuffer(teardown.device, own.texels);
  own.texelOwner = VertexOwner::vulkan;
}

}  // namespace vksim
