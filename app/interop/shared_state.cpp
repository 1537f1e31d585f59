#include "app/interop/shared_state.h"

#include <unistd.h>

#include <cstring>
#include <utility>

#include "app/interop/queue_submission.h"
#include "app/interop/wait_strategy.h"
#include "renderer/readback.h"
#include "renderer/vk_check.h"
#include "shaders/shared_layout.h"
#include "sim/cuda/cuda_simulation.h"
#include "sim/surface_texture.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim {
namespace {

// Closes every fd of `handles` that is still >= 0 and sets it to -1: the
// fds that nobody imported are still the exporter's.
void closeRemainingFds(ExportedHandles& handles) {
  for (int* fd : {&handles.buffer.fd, &handles.semaphores.timelineFd, &handles.semaphores.renderDoneFd,
                  &handles.semaphores.simDoneFd, &handles.texture.fd}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

// The CUDA backend's import: the fds cross from Vulkan to CUDA here. CUDA
// sets each fd it imported to -1 (the driver's from then on) and leaves the
// rest to `handles`, whose owner closes them (the opaque-fd rule).
std::unique_ptr<Simulation> importIntoCuda(const Device& device, const SharedState& shared,
                                           const FaultPlan& faults, const ModelParams& params,
                                           int cudaOrdinal) {
  const bool textured = shared.texture.writer == TextureWriter::external;
  return handOverSharedHandles(
      device, shared.vertices, shared.semaphores, faults, "CUDA backend",
      [&](ExportedHandles& handles) {
        return createCudaSimulation(params, cudaOrdinal, handles.buffer, handles.semaphores,
                                    textured ? &handles.texture : nullptr);
      },
      textured ? &shared.texture : nullptr);
}

// The reverse direction (--memory-owner cuda): CUDA allocates the vertex
// memory and exports it, Vulkan imports it; the semaphores still cross from
// Vulkan to CUDA. One ExportedHandles guards every fd on the way, as on the
// other route: the renderer sets the memory fd to -1 once its import
// succeeded (from then on Vulkan's: VkImportMemoryFdInfoKHR), the
// simulation each semaphore fd it imported (CUDA's), and whatever is left
// is closed when `handles` goes. A failed Vulkan import leaves the memory fd
// with us, so `handles` closes it; closing it never frees CUDA's
// allocation, which shared.cudaVertices keeps until destroySharedState.
std::unique_ptr<Simulation> importCudaOwnedMemory(const Device& device, SharedState& shared,
                                                  const FaultPlan& faults, const ModelParams& params,
                                                  int cudaOrdinal) {
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  Result<CudaVertexMemory> memory = createCudaVertexMemory(cudaOrdinal, bytes);
  if (!memory) throw EnvironmentError("CUDA backend: " + memory.error().message);
  shared.cudaVertices = *memory;

  ExportedHandles handles;
  handles.bufferExporter = MemoryOwner::cuda;
  Result<ExternalBuffer> exported = exportCudaVertexMemory(shared.cudaVertices);
  if (!exported) throw EnvironmentError("CUDA backend: " + exported.error().message);
  handles.buffer = *exported;
  handles.semaphores.timelineFd = exportSemaphoreFd(device, shared.semaphores.timeline);
  handles.semaphores.renderDoneFd = exportSemaphoreFd(device, shared.semaphores.renderDone);
  handles.semaphores.simDoneFd = exportSemaphoreFd(device, shared.semaphores.simDone);

  // FAULT HOOK (--inject-fault import-fails): Vulkan's import of CUDA's
  // memory fails. The fd is still ours: `handles` closes it.
  if (hasFault(faults, FaultKind::importFails))
    throw EnvironmentError("CUDA backend: could not import CUDA's vertex memory into Vulkan (injected fault import-fails)");
  // The import names the exporter's size (the granularity-rounded
  // allocation), and memory of the same physical device: the pairing by
  // UUID (device_pairing.h) is what makes the opaque fd meaningful here.
  try {
    shared.vertices = importSharedVertexBuffer(device, bytes, handles.buffer.fd, handles.buffer.allocationSize);
  } catch (const EnvironmentError& error) {
    throw EnvironmentError(std::string("CUDA backend: ") + error.what());
  }
  Result<std::unique_ptr<Simulation>> simulation =
      createCudaSimulationOnCudaMemory(params, cudaOrdinal, shared.cudaVertices, handles.semaphores);
  if (!simulation) throw EnvironmentError("CUDA backend: " + simulation.error().message);
  return std::move(*simulation);
}

// The OpenCL backend's import: the fds cross from Vulkan to OpenCL here, with
// the same rule as for CUDA. OpenCL imports the vertex memory and the two
// binary semaphores and sets each of those fds to -1; the timeline fd, which
// it never imports (cl_khr_semaphore has no timeline type), stays in
// `handles` and is closed with whatever else was not taken.
std::unique_ptr<Simulation> importIntoOpenCl(const Device& device, const SharedState& shared,
                                             const FaultPlan& faults, const ModelParams& params,
                                             const OpenClDeviceInfo& opencl) {
  return handOverSharedHandles(
      device, shared.vertices, shared.semaphores, faults, "OpenCL backend", [&](ExportedHandles& handles) {
        return createOpenClSimulation(params, opencl, handles.buffer, handles.semaphores);
      });
}

// Test facility (--inject-fault import-fails / export-fails with the CPU
// backend, which imports nothing): the vertex memory is exported as the CUDA
// backend would have it, and the handoff fails where that backend's import
// would run, so the fd ownership path runs in CI on lavapipe.
[[noreturn]] void failInjectedHandoff(const Device& device, const SharedState& shared,
                                      const FaultPlan& faults) {
  handOverSharedHandles(device, shared.vertices, shared.semaphores, faults, "cpu backend",
                        [](ExportedHandles&) -> Result<std::unique_ptr<Simulation>> {
                          return fail("the CPU backend imports nothing", kExitEnvironment);
                        });
  throw EnvironmentError("cpu backend: an injected handoff fault did not fail");  // unreachable
}

// The copy path: nothing crosses between the APIs but bytes through the host.
std::unique_ptr<Simulation> createCopySimulation(const DeviceChoice& devices, const ModelParams& params) {
  if (!devices.useCuda) return createCpuCopySimulation(params);
  Result<std::unique_ptr<Simulation>> simulation = createCudaCopySimulation(params, devices.cuda->ordinal);
  if (!simulation) throw EnvironmentError("CUDA backend (copy path): " + simulation.error().message);
  return std::move(*simulation);
}

// The barrier of a queue family ownership transfer of the vertex buffer
// between `queueFamily` and VK_QUEUE_FAMILY_EXTERNAL. The CUDA backend writes
// the vertex buffer from outside Vulkan. Resources shared with another API
// are handed over through queue family ownership transfers to and from
// VK_QUEUE_FAMILY_EXTERNAL, whatever their sharing mode (the external memory
// chapter); a Vulkan access without the acquire sees undefined contents (the
// synchronization chapter's queue family ownership transfer section).
VkBufferMemoryBarrier externalOwnershipBarrier(const SharedState& shared, uint32_t queueFamily,
                                               bool acquire) {
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcQueueFamilyIndex = acquire ? VK_QUEUE_FAMILY_EXTERNAL : queueFamily;
  barrier.dstQueueFamilyIndex = acquire ? queueFamily : VK_QUEUE_FAMILY_EXTERNAL;
  barrier.buffer = shared.vertices.buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  return barrier;
}

}  // namespace

void reportFrameTag(FrameTags& tags, const SharedStateHooks& hooks) {
  if (const std::optional<SeenFrameTag> seen = readFrameTag(tags); seen && hooks.frameTagSeen)
    hooks.frameTagSeen(*seen);
}

bool handoffFaultInjected(const FaultPlan& faults) {
  return hasFault(faults, FaultKind::importFails) || hasFault(faults, FaultKind::exportFails);
}

ExportedHandles::ExportedHandles(ExportedHandles&& other) noexcept
    : buffer(std::exchange(other.buffer, ExternalBuffer{})),
      semaphores(std::exchange(other.semaphores, ExternalSemaphores{})),
      bufferExporter(other.bufferExporter),
      texture(std::exchange(other.texture, ExternalTexture{})) {}

ExportedHandles& ExportedHandles::operator=(ExportedHandles&& other) noexcept {
  if (this != &other) {
    closeRemainingFds(*this);
    buffer = std::exchange(other.buffer, ExternalBuffer{});
    semaphores = std::exchange(other.semaphores, ExternalSemaphores{});
    bufferExporter = other.bufferExporter;
    texture = std::exchange(other.texture, ExternalTexture{});
  }
  return *this;
}

// The one ownership guard of the route: whatever nobody imported is closed
// when the handles go, whichever way that happens.
ExportedHandles::~ExportedHandles() {
  closeRemainingFds(*this);
}

ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults,
                                    const SharedTexture* texture) {
  ExportedHandles handles;
  handles.buffer.fd = exportMemoryFd(device, vertices);
  handles.buffer.allocationSize = vertices.allocationSize;  // the importer must use the allocation's size
  handles.buffer.size = vertices.size;
  handles.buffer.dedicated = vertices.dedicated;
  // FAULT HOOK (--inject-fault export-fails): the next export fails after the
  // vertex memory's succeeded; `handles` closes that fd on the way out.
  if (hasFault(faults, FaultKind::exportFails))
    throw EnvironmentError(std::string("could not export the ") +
                           (semaphores.exportable ? "timeline semaphore" : "semaphores") +
                           " after the vertex memory (injected fault export-fails)");
  if (semaphores.exportable) {
    handles.semaphores.timelineFd = exportSemaphoreFd(device, semaphores.timeline);
    handles.semaphores.renderDoneFd = exportSemaphoreFd(device, semaphores.renderDone);
    handles.semaphores.simDoneFd = exportSemaphoreFd(device, semaphores.simDone);
  }
  if (texture) {
    // What the importer must repeat to map it as a mipmapped array: the
    // allocation's size and dedicated flag (as for the buffer), and the
    // image's extent and level count (its format is fixed: RGBA8).
    handles.texture.fd = exportTextureMemoryFd(device, *texture);
    handles.texture.allocationSize = texture->allocationSize;
    handles.texture.width = texture->width;
    handles.texture.height = texture->height;
    handles.texture.levels = texture->levels;
    handles.texture.dedicated = texture->dedicated;
  }
  return handles;
}

std::unique_ptr<Simulation> handOverSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                                  const SyncSemaphores& semaphores, const FaultPlan& faults,
                                                  const std::string& who, const SimulationImporter& importer,
                                                  const SharedTexture* texture) {
  ExportedHandles handles;
  try {
    handles = exportSharedHandles(device, vertices, semaphores, faults, texture);
  } catch (const EnvironmentError& error) {
    throw EnvironmentError(who + ": " + error.what());
  }
  // FAULT HOOK (--inject-fault import-fails): the vertex memory's import
  // fails. Nothing was imported, so every fd is still ours: `handles` closes
  // them.
  if (hasFault(faults, FaultKind::importFails))
    throw EnvironmentError(who +
                           ": could not import the vertex buffer's memory (injected fault import-fails)");
  Result<std::unique_ptr<Simulation>> simulation = importer(handles);
  // What the importer took is -1 now; `handles` closes the rest either way.
  if (!simulation) throw EnvironmentError(who + ": " + simulation.error().message);
  return std::move(*simulation);
}

namespace {

// A simulation in the render's own queue: its vertex buffer is device-local
// and never exported (nothing outside the VkDevice touches it), its
// semaphores are plain ones, and Vulkan owns the buffer throughout: no queue
// family ownership transfer to or from EXTERNAL, no fd, no import. The
// schedule and the initial simDone signal are those of every backend.
void createQueueSharedState(SharedState& shared, const Device& device, QueueBackend backend,
                            const ModelParams& params, ScheduleState& schedule, const SharedStateHooks& hooks) {
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  bool deviceAddress = false;
  const VkBufferUsageFlags usage = queueVertexUsage(backend, &deviceAddress);
  shared.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::deviceLocal, /*exportable=*/false, usage,
                                             deviceAddress);
  shared.semaphores = createSyncSemaphores(device, /*exportable=*/false);
  shared.indices = createGridIndexBuffer(device, params.grid);
  // The render-queue backends write no texture: the mesh binds the
  // placeholder and takes its colour from the height.
  shared.texture = createSharedTexture(device, params.grid, params.grid, surfaceTextureLevelCount(params.grid),
                                       TextureWriter::placeholder);
  std::unique_ptr<RenderQueueSimulation> simulation =
      createRenderQueueSimulation(device, backend, shared.vertices, shared.semaphores, params);
  shared.queueSimulation = simulation.get();
  shared.simulation = std::move(simulation);
  shared.externalWriter = false;
  shared.vertexOwner = VertexOwner::vulkan;
  const StepResult initial = shared.simulation->writeInitialState();
  restartSchedule(schedule, initial, /*copyPath=*/false);
  if (hooks.initialWriteDone) hooks.initialWriteDone(initial.signalEnqueued);
  if (initial.status != StepStatus::ok)
    throw RuntimeFailure("the simulation could not write its initial state");
}

}  // namespace

void createSharedState(SharedState& shared, const Device& device, const DeviceChoice& devices,
                       const InteropConfig& config, const ModelParams& params, ScheduleState& schedule,
                       const SharedStateHooks& hooks) {
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  const bool cuda = devices.useCuda;
  // Another API writes the vertex buffer: CUDA or OpenCL (copy path: CUDA only).
  const bool external = importsSharedHandles(devices);
  shared.transfer = config.transfer;
  const bool copyPath = shared.transfer == TransferMode::copy;
  const bool exported = external && !copyPath;
  const bool rehearsedHandoff = !external && !copyPath && handoffFaultInjected(config.faults);
  if (devices.queueBackend != QueueBackend::none) {
    createQueueSharedState(shared, device, devices.queueBackend, params, schedule, hooks);
    return;
  }
  // Zero-copy: CUDA or OpenCL writes exported device-local memory, the CPU
  // backend host-visible memory it maps. Copy: a plain device-local buffer
  // that only the frame's upload writes, fed by a host-visible staging buffer.
  // --memory-owner cuda: the vertex buffer comes later, imported from CUDA's
  // allocation (importCudaOwnedMemory).
  const bool cudaOwned = cuda && exported && config.memoryOwner == MemoryOwner::cuda;
  if (!cudaOwned)
    shared.vertices = createSharedVertexBuffer(
        device, bytes, external || copyPath ? VertexMemory::deviceLocal : VertexMemory::hostVisible,
        /*exportable=*/exported || rehearsedHandoff);
  // The staging memory a program without interop would pick if it measured:
  // the host-visible type the host writes fastest on this machine.
  if (copyPath) shared.staging = createMeasuredStagingBuffer(device, bytes, &shared.stagingChoice);
  shared.semaphores = createSyncSemaphores(device, /*exportable=*/exported);
  shared.indices = createGridIndexBuffer(device, params.grid);
  // The texture: CUDA writes an exported one; the CPU backend's turn writes
  // the staging buffer that every render uploads. Off, on the copy path (it
  // measures the vertex transfer alone), with --frame-tags (its own
  // simulation writes no texels), with --memory-owner cuda (that route
  // shows the buffer's reverse direction alone; its simulation imports no
  // image) and with OpenCL (its backend imports the buffer alone): the
  // placeholder, and the height colour.
  const bool textured = config.texture && !copyPath && !rehearsedHandoff && !(config.frameTags && !cuda) &&
                        !cudaOwned && !devices.useOpenCl;
  const uint32_t levels = surfaceTextureLevelCount(params.grid);
  shared.texture =
      createSharedTexture(device, params.grid, params.grid, levels,
                          !textured ? TextureWriter::placeholder
                                    : (exported ? TextureWriter::external : TextureWriter::hostUpload));
  if (shared.texture.writer == TextureWriter::hostUpload)
    shared.textureStaging =
        createGpuBuffer(device, surfaceTextureBytes(params.grid), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                        VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (copyPath) {
    shared.simulation = createCopySimulation(devices, params);
  } else if (cuda) {
    shared.simulation = cudaOwned ? importCudaOwnedMemory(device, shared, config.faults, params, devices.cuda->ordinal)
                                  : importIntoCuda(device, shared, config.faults, params, devices.cuda->ordinal);
  } else if (devices.useOpenCl) {
    shared.simulation = importIntoOpenCl(device, shared, config.faults, params, *devices.opencl);
  } else if (rehearsedHandoff) {
    failInjectedHandoff(device, shared, config.faults);
  } else {
    shared.hostOps = std::make_unique<VulkanHostSemaphores>(device, shared.semaphores);
    shared.simulation =
        config.frameTags
            ? createFrameTagSimulation(device, shared.frameTags, shared.vertices.mapped, *shared.hostOps,
                                       params, config.waitStrategy == WaitStrategy::enqueue, kWaitTimeoutNs)
            : createCpuSimulation(params, shared.vertices.mapped, *shared.hostOps, shared.textureStaging.mapped);
  }
  // CUDA writes the initial state into memory that Vulkan has not used yet:
  // Vulkan's first use must acquire it from EXTERNAL, as after any sim step.
  shared.externalWriter = exported;
  shared.vertexOwner = exported ? VertexOwner::external : VertexOwner::vulkan;
  // The initial write ends in a simDone signal that render 0 waits on (the
  // copy path: in host memory that render 0 stages); the schedule records
  // what the write reports having enqueued, and restarts at frame 0.
  const StepResult initial = shared.simulation->writeInitialState();
  restartSchedule(schedule, initial, copyPath);
  if (!copyPath && hooks.initialWriteDone) hooks.initialWriteDone(initial.signalEnqueued);
  if (initial.status != StepStatus::ok)
    throw RuntimeFailure("the simulation could not write its initial state");
}

std::vector<uint8_t> readSharedTexture(const Device& device, const SharedState& shared, uint32_t level) {
  // An external texture moves with the vertex buffer: the same rule.
  if (shared.texture.writer == TextureWriter::external && shared.vertexOwner != VertexOwner::vulkan)
    throw RuntimeFailure("the texture is still released to the other API; drain the schedule first");
  return readTextureLevel(device, shared.texture, level);
}

bool textureDrawn(const SharedState& shared) { return shared.texture.writer != TextureWriter::placeholder; }

void recordSurfaceTextureUpload(const SharedState& shared, VkCommandBuffer commandBuffer) {
  if (shared.texture.writer != TextureWriter::hostUpload) return;
  // Where each level lies in what the simulation wrote (sim/surface_texture.h).
  std::vector<TextureLevelCopy> levels;
  for (uint32_t level = 0; level < shared.texture.levels; ++level)
    levels.push_back({level, surfaceTextureLevel(shared.texture.width, level).offset});
  recordTextureUpload(commandBuffer, shared.texture, shared.textureStaging.buffer, levels);
}

std::vector<uint8_t> readSharedVertices(const Device& device, const SharedState& shared) {
  // A read of memory that another API wrote is defined only after an acquire
  // from VK_QUEUE_FAMILY_EXTERNAL (the drain's), never before.
  if (shared.vertexOwner != VertexOwner::vulkan)
    throw RuntimeFailure("the vertex buffer is still released to the other API; drain the schedule first");
  return readBuffer(device, shared.vertices.buffer, shared.vertices.size);
}

// The synchronization chapter's note on queue family ownership transfers:
// the transfer itself runs in no defined pipeline stage, so the semaphore
// wait that orders it after the other API's signal must wait at
// VK_PIPELINE_STAGE_ALL_COMMANDS_BIT (kExternalAcquireWaitStage), and this
// barrier's srcStageMask must overlap that wait's second scope to chain with
// it: ALL_COMMANDS as well (TOP_OF_PIPE in a source mask is an empty first
// scope and would chain with nothing). srcAccessMask is 0: the other API's
// writes are made available by its own signal, not by Vulkan.
void recordAcquireFromExternal(const SharedState& shared, uint32_t queueFamily, VkCommandBuffer commandBuffer,
                               VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
  VkBufferMemoryBarrier barrier = externalOwnershipBarrier(shared, queueFamily, true);
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, dstStage, 0, 0, nullptr, 1,
                       &barrier, 0, nullptr);
  // The texture CUDA wrote in the same turn, under the same wait: sampled by
  // the fragment shader (and, for the drain's acquire, whatever follows).
  if (shared.texture.writer == TextureWriter::external)
    recordTextureAcquire(commandBuffer, shared.texture, queueFamily, dstStage | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                         VK_ACCESS_SHADER_READ_BIT |
                             (dstAccess & (VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT)));
}

// The first scope is the stage that accessed the buffer (VERTEX_INPUT; reads
// need no availability operation, so srcAccessMask is 0). A release's
// destination masks play no part on the other side; what orders the other
// API's writes after it is the semaphore signal later in the same
// submission, whose first scope is every command of the batch
// (ALL_COMMANDS), the release included.
void recordReleaseToExternal(const SharedState& shared, uint32_t queueFamily, VkCommandBuffer commandBuffer) {
  VkBufferMemoryBarrier barrier = externalOwnershipBarrier(shared, queueFamily, false);
  barrier.srcAccessMask = 0;
  barrier.dstAccessMask = 0;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                       VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 1, &barrier, 0, nullptr);
  if (shared.texture.writer == TextureWriter::external)
    recordTextureRelease(commandBuffer, shared.texture, queueFamily);
}

// Sim k-1's copy to host memory must be complete (bounded poll of its
// completion event); then the host copies it into the staging buffer, which
// the previous frame's upload no longer reads (its fence was waited for).
bool stageSimulationOutput(SharedState& shared, ScheduleState& schedule) {
  Simulation& simulation = *shared.simulation;
  if (!waitUntilReached([&] { return simulation.isStepComplete(); }, kWaitTimeoutNs)) return false;
  copyIntoStaging(shared.stagingChoice, shared.staging.mapped, simulation.hostVertices(), shared.vertices.size);
  schedule.hostOutputUnstaged = false;
  return true;
}

// Two barriers: the copy may only overwrite the vertices once the previous
// frame's vertex reads are done (write after read: an execution dependency;
// a barrier's first scope covers earlier submissions on the queue too), and
// the draw may only read them once the copy's writes are available
// (TRANSFER_WRITE -> VERTEX_ATTRIBUTE_READ). The staging buffer's host writes
// need no barrier: vkQueueSubmit makes them visible (host write ordering).
void recordVertexUpload(const SharedState& shared, VkCommandBuffer commandBuffer) {
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                       0, nullptr, 0, nullptr, 0, nullptr);
  const VkBufferCopy region{0, 0, shared.vertices.size};
  vkCmdCopyBuffer(commandBuffer, shared.staging.buffer, shared.vertices.buffer, 1, &region);
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
  barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = shared.vertices.buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0,
                       0, nullptr, 1, &barrier, 0, nullptr);
}

}  // namespace vksim
