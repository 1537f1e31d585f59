#include "app/paths/cpu_host_path.h"

#include <string>
#include <vector>

#include "app/interop/device_pairing.h"
#include "app/interop/grid_resources.h"
#include "app/paths/frame_commands.h"
#include "app/paths/schedule_turns.h"
#include "app/testing/fault_hooks.h"
#include "renderer/debug_names.h"
#include "shaders/shared_layout.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

// The simulation of each backend whose step runs on the host
// (BackendTraits::stepsOnHost, app/interop/interop_config.h), one row each.
struct HostSimulation {
  Backend backend;
  std::unique_ptr<Simulation> (*create)(const ModelParams& params, void* mappedVertices, HostSemaphoreOps& hostOps,
                                        void* mappedTexels);
};
const HostSimulation kHostSimulations[] = {
    {Backend::cpu, createCpuSimulation},
};

std::unique_ptr<Simulation> createHostSimulation(Backend backend, const ModelParams& params, void* mappedVertices,
                                                 HostSemaphoreOps& hostOps, void* mappedTexels) {
  for (const HostSimulation& row : kHostSimulations)
    if (row.backend == backend) return row.create(params, mappedVertices, hostOps, mappedTexels);
  throw RuntimeFailure(std::string("backend ") + toString(backend) + " has no host simulation (kHostSimulations)");
}

// Every level from the texture staging buffer (what the simulation's last
// turn wrote) into grid.texture, before the render pass. Nothing unless the
// texture is hostUpload.
void recordSurfaceTextureUpload(const GridResources& grid, const CpuHostState& own, VkCommandBuffer commandBuffer) {
  if (grid.texture.writer != TextureWriter::hostUpload) return;
  // Where each level lies in what the simulation wrote (sim/surface_texture.h).
  std::vector<TextureLevelCopy> levels;
  for (uint32_t level = 0; level < grid.texture.levels; ++level)
    levels.push_back({level, surfaceTextureLevel(grid.texture.width, level).offset});
  recordTextureUpload(commandBuffer, grid.texture, own.textureStaging.buffer, levels);
}

// Render k's command buffer: what the host wrote reaches the render through
// the render's own commands (the texels' upload, the frame tag's copy), then
// the mesh pass. The mapped vertex writes need no barrier: the submission
// makes host writes visible (host write ordering). The ownership transfers
// follow the rule whichever backend this is: none while Vulkan owns the
// buffer and nobody else writes it, which is the CPU backend's case.
void recordCpuHostRender(FrameContext& frame, CpuHostState& own, bool acquires, bool releases) {
  GridResources& grid = frame.grid;
  const uint32_t queueFamily = frame.device.queueFamily;
  VkCommandBuffer commandBuffer = beginFrameCommands(frame);
  if (acquires)
    recordAcquireFromExternal(grid, queueFamily, commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                              VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT, frame.device.maintenance8);
  {
    const ScopedCommandLabel label(commandBuffer, "upload the host's writes");
    recordSurfaceTextureUpload(grid, own, commandBuffer);
    recordFrameTagCopy(own.frameTags, grid.vertices.buffer, frame.schedule.totalFrames, commandBuffer);
  }
  recordScenePass(frame, commandBuffer);
  if (releases) recordReleaseToExternal(grid, queueFamily, commandBuffer, frame.device.maintenance8);
  endFrameCommands(frame, commandBuffer);
}

// A test's import-fails or export-fails with the CPU backend, which imports
// nothing: the vertex memory is exported as the CUDA backend would have it,
// and the handoff fails where that backend's import would run, so the fd
// ownership route runs in CI on lavapipe.
[[noreturn]] void failInjectedHandoff(const Device& device, const GridResources& grid, const FaultPlan& faults) {
  ExportedHandles handles =
      exportSharedHandles(device, grid.vertices, grid.semaphores, faults, nullptr, "cpu backend");
  injectImportFailure(faults, "cpu backend: could not import the vertex buffer's memory");
  importedSimulation(fail("the CPU backend imports nothing", kExitEnvironment), "cpu backend");
  throw EnvironmentError("cpu backend: an injected handoff fault did not fail");  // unreachable
}

}  // namespace

void createCpuHostGrid(GridResources& grid, CpuHostState& own, const GridSetup& setup, const ModelParams& params,
                       ScheduleState& schedule) {
  const Device& device = setup.device;
  const InteropConfig& config = setup.config;
  const bool rehearsedHandoff = handoffFaultInjected(config.faults);
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::hostVisible, rehearsedHandoff);
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/false);
  // The simulation's turn writes the texels into textureStaging, which every
  // render uploads. Not with --frame-tags (its simulation writes no texels)
  // nor in a rehearsed handoff.
  const bool textured = config.texture && !rehearsedHandoff && !config.frameTags;
  grid.texture = createSurfaceTexture(device, params, textured ? TextureWriter::hostUpload : TextureWriter::placeholder);
  if (textured)
    own.textureStaging =
        createGpuBuffer(device, surfaceTextureBytes(params.grid), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                        VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (rehearsedHandoff) failInjectedHandoff(device, grid, config.faults);
  own.hostOps = std::make_unique<VulkanHostSemaphores>(device, grid.semaphores);
  grid.simulation =
      config.frameTags
          ? createFrameTagSimulation(device, own.frameTags, grid.vertices.mapped, *own.hostOps, params,
                                     config.waitStrategy == WaitStrategy::enqueue)
          : createHostSimulation(setup.devices.backend, params, grid.vertices.mapped, *own.hostOps,
                                 own.textureStaging.mapped);
  grid.externalWriter = false;
  grid.vertexOwner = VertexOwner::vulkan;
  writeInitialState(*grid.simulation, schedule, setup.hooks);
}

void runCpuHostFrame(FrameContext& frame, CpuHostState& own) {
  GridResources& grid = frame.grid;
  // Render k. Recording happens while sim k-1 still runs.
  const bool acquires = grid.vertexOwner == VertexOwner::external;
  const bool releases = grid.externalWriter;
  recordCpuHostRender(frame, own, acquires, releases);
  RenderSync render = nextRenderSync(frame.schedule);  // waits 2k (or simDone), signals 2k+1 (or renderDone)
  // Without an acquire behind the wait (the mapped writes are made visible
  // by the submission itself): the vertex input; with one,
  // externalAcquireWaitStage (rules M21, M22); and TRANSFER for the texels'
  // upload and the tag's copy.
  const VkPipelineStageFlags waitStage =
      (acquires ? externalAcquireWaitStage(grid, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, frame.device.maintenance8)
                : VkPipelineStageFlags{VK_PIPELINE_STAGE_VERTEX_INPUT_BIT}) |
      (grid.texture.writer == TextureWriter::hostUpload ? VK_PIPELINE_STAGE_TRANSFER_BIT : 0) |
      frameTagWaitStages(own.frameTags);
  const RenderBatch batch = submitScheduledRender(frame, render, waitStage);
  if (releases)
    grid.vertexOwner = VertexOwner::external;
  else if (acquires)
    grid.vertexOwner = VertexOwner::vulkan;
  noteWaitSubmitted(own.frameTags, *grid.simulation);  // the frame-tag worker may write
  finishRenderTurn(frame, batch);
  runSimulationTurn(frame, render);
}

void reportCpuHostFrameTag(CpuHostState& own, const std::function<void(const SeenFrameTag& seen)>& seen) {
  reportFrameTag(own.frameTags, seen);
}

void drainCpuHostGrid(const GridTeardown& teardown, GridResources& grid, CpuHostState& own,
                      const std::function<void(const SeenFrameTag& seen)>& seen) {
  // The last render's frame tag is read, and the tagging worker's step
  // ended, once the drain has waited for that render's fence (--frame-tags).
  GridResourceHooks hooks = teardown.hooks;
  hooks.beforeDrainSubmitted = [&] {
    if (!grid.simulation) return;
    reportFrameTag(own.frameTags, seen);
    finishFrameTagStep(own.frameTags, *grid.simulation);
  };
  drainSchedule(teardown.device, teardown.frame, grid, teardown.schedule, teardown.loss, hooks);
}

void destroyCpuHostGrid(const GridTeardown& teardown, GridResources& grid, CpuHostState& own) {
  finishSimulation(teardown, grid);
  destroySharedObjects(teardown.device, grid, teardown.loss);
  own.hostOps.reset();
  destroyFrameTags(teardown.device, own.frameTags);
  destroyGpuBuffer(teardown.device, own.textureStaging);
}

}  // namespace vksim
