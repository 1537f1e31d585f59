#include "app/interop/grid_resources.h"

#include <unistd.h>

#include <string>
#include <utility>

#include "renderer/debug_names.h"
#include "renderer/readback.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

// The barrier of a queue family ownership transfer of the vertex buffer
// between `queueFamily` and VK_QUEUE_FAMILY_EXTERNAL. The CUDA backend writes
// the vertex buffer from outside Vulkan. Resources shared with another API
// are handed over through queue family ownership transfers to and from
// VK_QUEUE_FAMILY_EXTERNAL, whatever their sharing mode (the external memory
// chapter); a Vulkan access without the acquire sees undefined contents (the
// synchronization chapter's queue family ownership transfer section; rule M21).
VkBufferMemoryBarrier externalOwnershipBarrier(const GridResources& grid, uint32_t queueFamily,
                                               bool acquire) {
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcQueueFamilyIndex = acquire ? VK_QUEUE_FAMILY_EXTERNAL : queueFamily;
  barrier.dstQueueFamilyIndex = acquire ? queueFamily : VK_QUEUE_FAMILY_EXTERNAL;
  barrier.buffer = grid.vertices.buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  return barrier;
}

// The stages that an external texture is acquired for: the frame's, and the
// fragment shader that samples it.
VkPipelineStageFlags textureConsumerStages(VkPipelineStageFlags dstStage) {
  return dstStage | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
}

// The texture's release in the frame. Its first scope has always been
// ALL_COMMANDS (one function served the frame and the creation's release,
// which follows a layout transition), and without maintenance8 it stays so;
// with it, the frame's only access to the texture: the fragment shader's
// sampling.
ExternalTransferStages textureReleaseStages(bool maintenance8) {
  return externalReleaseStages(maintenance8, maintenance8 ? VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT
                                                          : VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
}

}  // namespace

SimulationBackend* simulationOf(const GridResources& grid) {
  if (grid.simulation) return grid.simulation.get();
  return grid.queueSimulation;
}

// The initial write ends in a simDone signal that render 0 waits on; the
// schedule records what the write reports having enqueued, and restarts at
// frame 0.
void writeInitialState(SimulationBackend& simulation, ScheduleState& schedule, const GridResourceHooks& hooks) {
  const StepResult initial = simulation.writeInitialState();
  restartSchedule(schedule, initial, /*copyPath=*/false);
  if (hooks.initialWriteDone) hooks.initialWriteDone(initial.signalEnqueued);
  if (initial.status != StepStatus::ok)
    throw RuntimeFailure("the simulation could not write its initial state");
}

SharedTexture createSurfaceTexture(const Device& device, const ModelParams& params, TextureWriter writer) {
  return createSharedTexture(device, params.grid, params.grid, surfaceTextureLevelCount(params.grid), writer);
}

SharedTexture createPlaceholderTexture(const Device& device, const ModelParams& params) {
  return createSurfaceTexture(device, params, TextureWriter::placeholder);
}

std::vector<uint8_t> readSharedTexture(const Device& device, const GridResources& grid, uint32_t level) {
  // An external texture moves with the vertex buffer: the same rule.
  if (grid.texture.writer == TextureWriter::external && grid.vertexOwner != VertexOwner::vulkan)
    throw RuntimeFailure("the texture is still released to the other API; drain the schedule first");
  return readTextureLevel(device, grid.texture, level);
}

bool textureDrawn(const GridResources& grid) { return grid.texture.writer != TextureWriter::placeholder; }

std::vector<uint8_t> readSharedVertices(const Device& device, const GridResources& grid) {
  // A read of memory that another API wrote is defined only after an acquire
  // from VK_QUEUE_FAMILY_EXTERNAL (the drain's), never before.
  if (grid.vertexOwner != VertexOwner::vulkan)
    throw RuntimeFailure("the vertex buffer is still released to the other API; drain the schedule first");
  return readBuffer(device, grid.vertices.buffer, grid.vertices.size);
}

VkPipelineStageFlags externalAcquireWaitStage(const GridResources& grid, VkPipelineStageFlags dstStage,
                                              bool maintenance8) {
  VkPipelineStageFlags stage = externalAcquireStages(maintenance8, dstStage).semaphoreWaitStage;
  if (grid.texture.writer == TextureWriter::external)
    stage |= externalAcquireStages(maintenance8, textureConsumerStages(dstStage)).semaphoreWaitStage;
  return stage;
}

// The synchronization chapter's note on queue family ownership transfers
// (rule M21, docs/interop-reference.md): the transfer itself runs in
// no defined pipeline stage, so the semaphore wait that orders it after the
// other API's signal must wait at VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, and
// this barrier's srcStageMask must overlap that wait's second scope to chain
// with it: ALL_COMMANDS as well (TOP_OF_PIPE in a source mask is an empty
// first scope and would chain with nothing). With VK_KHR_maintenance8 (rule
// M22) the barrier's flag puts the acquire in its first scope, and the
// wait and both masks are the consumer's stage. externalAcquireStages
// decides both. srcAccessMask is 0: the other API's writes are made
// available by its own signal, not by Vulkan.
void recordAcquireFromExternal(const GridResources& grid, uint32_t queueFamily, VkCommandBuffer commandBuffer,
                               VkPipelineStageFlags dstStage, VkAccessFlags dstAccess, bool maintenance8) {
  const ScopedCommandLabel label(commandBuffer, "acquire from EXTERNAL");
  const ExternalTransferStages stages = externalAcquireStages(maintenance8, dstStage);
  VkBufferMemoryBarrier barrier = externalOwnershipBarrier(grid, queueFamily, true);
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(commandBuffer, stages.srcStageMask, stages.dstStageMask, stages.dependencyFlags, 0, nullptr,
                       1, &barrier, 0, nullptr);
  // The texture CUDA wrote in the same turn, under the same wait: sampled by
  // the fragment shader (and, for the drain's acquire, whatever follows).
  if (grid.texture.writer == TextureWriter::external)
    recordTextureAcquire(commandBuffer, grid.texture, queueFamily,
                         externalAcquireStages(maintenance8, textureConsumerStages(dstStage)),
                         VK_ACCESS_SHADER_READ_BIT |
                             (dstAccess & (VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT)));
}

// The release half of the queue family ownership transfer to
// VK_QUEUE_FAMILY_EXTERNAL (rules M21, M22), for the buffer and, with CUDA's
// texture, the image. The first scope is the stage that accessed the buffer
// (VERTEX_INPUT; reads need no availability operation, so srcAccessMask is 0). Without
// VK_KHR_maintenance8 a release's destination stage plays no part (it is
// BOTTOM_OF_PIPE); what orders the other API's writes after it is the
// semaphore signal later in the same submission, whose first scope is every
// command of the batch (ALL_COMMANDS), the release included. With it the
// destination stage is the source stage (externalReleaseStages).
void recordReleaseToExternal(const GridResources& grid, uint32_t queueFamily, VkCommandBuffer commandBuffer,
                             bool maintenance8) {
  const ScopedCommandLabel label(commandBuffer, "release to EXTERNAL");
  const ExternalTransferStages stages = externalReleaseStages(maintenance8, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT);
  VkBufferMemoryBarrier barrier = externalOwnershipBarrier(grid, queueFamily, false);
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = 0;
  vkCmdPipelineBarrier(commandBuffer, stages.srcStageMask, stages.dstStageMask, stages.dependencyFlags, 0, nullptr,
                       1, &barrier, 0, nullptr);
  if (grid.texture.writer == TextureWriter::external)
    recordTextureRelease(commandBuffer, grid.texture, queueFamily, textureReleaseStages(maintenance8));
}

// ---- The route of the exported fds (grid_resources.h).

namespace {

// Closes every fd of `handles` that is still >= 0 and sets it to -1: the
// fds that nobody imported are still the exporter's.
void closeRemainingFds(ExportedHandles& handles) {
  for (int* fd : {&handles.buffer.fd, &handles.semaphores.timelineFd, &handles.semaphores.renderDoneFd,
                  &handles.semaphores.simDoneFd, &handles.texture.fd, &handles.texels.fd}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

}  // namespace

ExportedHandles::ExportedHandles(ExportedHandles&& other) noexcept
    : buffer(std::exchange(other.buffer, ExternalBuffer{})),
      semaphores(std::exchange(other.semaphores, ExternalSemaphores{})),
      bufferExporter(other.bufferExporter),
      texture(std::exchange(other.texture, ExternalTexture{})),
      texels(std::exchange(other.texels, ExternalBuffer{})) {}

ExportedHandles& ExportedHandles::operator=(ExportedHandles&& other) noexcept {
  if (this != &other) {
    closeRemainingFds(*this);
    buffer = std::exchange(other.buffer, ExternalBuffer{});
    semaphores = std::exchange(other.semaphores, ExternalSemaphores{});
    bufferExporter = other.bufferExporter;
    texture = std::exchange(other.texture, ExternalTexture{});
    texels = std::exchange(other.texels, ExternalBuffer{});
  }
  return *this;
}

// The one ownership guard of the route: whatever nobody imported is closed
// when the handles go, whichever way that happens.
ExportedHandles::~ExportedHandles() {
  closeRemainingFds(*this);
}

namespace {

// The exports, in the order the walkthrough reads them: the memory, the
// semaphores, the texture.
ExportedHandles exportEach(const Device& device, const SharedVertexBuffer& vertices, const SyncSemaphores& semaphores,
                           const FaultPlan& faults, const SharedTexture* texture) {
  ExportedHandles handles;
  handles.buffer.fd = exportMemoryFd(device, vertices);
  handles.buffer.allocationSize = vertices.allocationSize;  // the importer must use the allocation's size
  handles.buffer.size = vertices.size;
  handles.buffer.dedicated = vertices.dedicated;
  // A test's export-fails: `handles` closes the memory's fd on the way out.
  if (hasFault(faults, FaultKind::exportFails))
    throw EnvironmentError(std::string("could not export the ") +
                           (semaphores.exportable ? "timeline semaphore" : "semaphores") +
                           " after the vertex memory (injected fault export-fails)");
  if (semaphores.exportable) {
    handles.semaphores.timelineFd = exportSemaphoreFd(device, semaphores.timeline);
    handles.semaphores.renderDoneFd = exportSemaphoreFd(device, semaphores.renderDone);
    handles.semaphores.simDoneFd = exportSemaphoreFd(device, semaphores.simDone);
  }
  if (texture) handles.texture = exportSurfaceTexture(device, *texture);
  return handles;
}

}  // namespace

ExternalTexture exportSurfaceTexture(const Device& device, const SharedTexture& texture) {
  // What the importer must repeat to map it as a mipmapped array: the
  // allocation's size and dedicated flag (as for the buffer), and the
  // image's extent and level count (its format is fixed: RGBA8).
  ExternalTexture exported;
  exported.fd = exportTextureMemoryFd(device, texture);
  exported.allocationSize = texture.allocationSize;
  exported.width = texture.width;
  exported.height = texture.height;
  exported.levels = texture.levels;
  exported.dedicated = texture.dedicated;
  return exported;
}

ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults,
                                    const SharedTexture* texture, const std::string& who) {
  try {
    return exportEach(device, vertices, semaphores, faults, texture);
  } catch (const EnvironmentError& error) {
    if (who.empty()) throw;
    throw EnvironmentError(who + ": " + error.what());
  }
}

// As the vertex memory's export: the allocation's size travels with the
// fd, and OpenCL's import spans it (rule M1, as CUDA's does). The dedicated
// flag is recorded as in every ExternalBuffer, though OpenCL, the texels'
// only importer, has no such flag: the fd alone says what it refers to.
void exportTexelBuffer(const Device& device, const SharedVertexBuffer& texels, ExportedHandles& handles) {
  handles.texels.fd = exportMemoryFd(device, texels);
  handles.texels.allocationSize = texels.allocationSize;
  handles.texels.size = texels.size;
  handles.texels.dedicated = texels.dedicated;
}

void injectImportFailure(const FaultPlan& faults, const std::string& what) {
  if (hasFault(faults, FaultKind::importFails)) throw EnvironmentError(what + " (injected fault import-fails)");
}

std::unique_ptr<Simulation> importedSimulation(Result<std::unique_ptr<Simulation>> imported, const std::string& who) {
  if (!imported) throw EnvironmentError(who + ": " + imported.error().message);
  return std::move(*imported);
}

}  // namespace vksim
