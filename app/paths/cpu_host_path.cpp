#include "app/paths/cpu_host_path.h"

#include <vector>

#include "app/interop/exported_handles.h"
#include "app/testing/fault_hooks.h"
#include "app/testing/frame_tags.h"
#include "renderer/debug_names.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

// Every level from grid.textureStaging (what the simulation's last turn
// wrote) into grid.texture, before the render pass. Nothing unless the
// texture is hostUpload.
void recordSurfaceTextureUpload(const GridResources& grid, VkCommandBuffer commandBuffer) {
  if (grid.texture.writer != TextureWriter::hostUpload) return;
  // Where each level lies in what the simulation wrote (sim/surface_texture.h).
  std::vector<TextureLevelCopy> levels;
  for (uint32_t level = 0; level < grid.texture.levels; ++level)
    levels.push_back({level, surfaceTextureLevel(grid.texture.width, level).offset});
  recordTextureUpload(commandBuffer, grid.texture, grid.textureStaging.buffer, levels);
}

// What the host wrote reaches the render through the render's own commands:
// the texels are copied at TRANSFER, before the vertex reads, so the render's
// wait covers TRANSFER too; so does the frame tag's copy (--frame-tags).
HostWrites hostWritesOf(GridResources& grid) {
  HostWrites writes;
  writes.waitStages = (grid.texture.writer == TextureWriter::hostUpload ? VK_PIPELINE_STAGE_TRANSFER_BIT : 0) |
                      frameTagWaitStages(grid.frameTags);
  writes.recordBeforeDraw = [&grid](VkCommandBuffer commandBuffer, uint64_t frame) {
    const ScopedCommandLabel label(commandBuffer, "upload the host's writes");
    recordSurfaceTextureUpload(grid, commandBuffer);
    recordFrameTagCopy(grid.frameTags, grid.vertices.buffer, frame, commandBuffer);
  };
  writes.renderSubmitted = [&grid] { noteWaitSubmitted(grid.frameTags, *grid.simulation); };
  return writes;
}

// A test's import-fails or export-fails with the CPU backend, which imports
// nothing: the vertex memory is exported as the CUDA backend would have it,
// and the handoff fails where that backend's import would run, so the fd
// ownership route runs in CI on lavapipe.
[[noreturn]] void failInjectedHandoff(const Device& device, const GridResources& grid, const FaultPlan& faults) {
  handOverSharedHandles({device, grid.vertices, grid.semaphores, faults, "cpu backend"},
                        [](ExportedHandles&) -> Result<std::unique_ptr<Simulation>> {
                          return fail("the CPU backend imports nothing", kExitEnvironment);
                        });
  throw EnvironmentError("cpu backend: an injected handoff fault did not fail");  // unreachable
}

}  // namespace

void createCpuHostGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                       ScheduleState& schedule) {
  const Device& device = setup.device;
  const InteropConfig& config = setup.config;
  grid.path = InteropPath::cpuHost;
  const bool rehearsedHandoff = handoffFaultInjected(config.faults);
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::hostVisible, rehearsedHandoff);
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/false);
  grid.indices = createGridIndexBuffer(device, params.grid);
  // The simulation's turn writes the texels into textureStaging, which every
  // render uploads. Not with --frame-tags (its simulation writes no texels)
  // nor in a rehearsed handoff.
  const bool textured = config.texture && !rehearsedHandoff && !config.frameTags;
  grid.texture = createSharedTexture(device, params.grid, params.grid, surfaceTextureLevelCount(params.grid),
                                     textured ? TextureWriter::hostUpload : TextureWriter::placeholder);
  if (textured)
    grid.textureStaging =
        createGpuBuffer(device, surfaceTextureBytes(params.grid), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                        VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (rehearsedHandoff) failInjectedHandoff(device, grid, config.faults);
  grid.hostOps = std::make_unique<VulkanHostSemaphores>(device, grid.semaphores);
  grid.simulation =
      config.frameTags
          ? createFrameTagSimulation(device, grid.frameTags, grid.vertices.mapped, *grid.hostOps, params,
                                     config.waitStrategy == WaitStrategy::enqueue)
          : createCpuSimulation(params, grid.vertices.mapped, *grid.hostOps, grid.textureStaging.mapped);
  grid.hostWrites = hostWritesOf(grid);
  grid.externalWriter = false;
  grid.vertexOwner = VertexOwner::vulkan;
  writeInitialState(*grid.simulation, grid.path, schedule, setup.hooks);
}

}  // namespace vksim
