#include "app/interop/shared_state.h"

#include <unistd.h>

#include <cstring>
#include <utility>

#include "app/interop/wait_strategy.h"
#include "renderer/readback.h"
#include "renderer/vk_check.h"
#include "shaders/shared_layout.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim {
namespace {

// Closes every fd of `handles` that is still >= 0 and sets it to -1: the
// fds that nobody imported are still the exporter's.
void closeRemainingFds(ExportedHandles& handles) {
  for (int* fd : {&handles.buffer.fd, &handles.semaphores.timelineFd, &handles.semaphores.renderDoneFd,
                  &handles.semaphores.simDoneFd}) {
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
  return handOverSharedHandles(
      device, shared.vertices, shared.semaphores, faults, "CUDA backend", [&](ExportedHandles& handles) {
        return createCudaSimulation(params, cudaOrdinal, handles.buffer, handles.semaphores);
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
      semaphores(std::exchange(other.semaphores, ExternalSemaphores{})) {}

ExportedHandles& ExportedHandles::operator=(ExportedHandles&& other) noexcept {
  if (this != &other) {
    closeRemainingFds(*this);
    buffer = std::exchange(other.buffer, ExternalBuffer{});
    semaphores = std::exchange(other.semaphores, ExternalSemaphores{});
  }
  return *this;
}

// The one ownership guard of the route: whatever nobody imported is closed
// when the handles go, whichever way that happens.
ExportedHandles::~ExportedHandles() {
  closeRemainingFds(*this);
}

ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults) {
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
  return handles;
}

std::unique_ptr<Simulation> handOverSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                                  const SyncSemaphores& semaphores, const FaultPlan& faults,
                                                  const std::string& who,
                                                  const SimulationImporter& importer) {
  ExportedHandles handles;
  try {
    handles = exportSharedHandles(device, vertices, semaphores, faults);
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

void createSharedState(SharedState& shared, const Device& device, const DeviceChoice& devices,
                       const Options& options, const ModelParams& params, ScheduleState& schedule,
                       const SharedStateHooks& hooks) {
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  const bool cuda = devices.useCuda;
  shared.transfer = options.transfer;
  const bool copyPath = shared.transfer == TransferMode::copy;
  const bool exported = cuda && !copyPath;
  const bool rehearsedHandoff = !cuda && !copyPath && handoffFaultInjected(options.faults);
  // Zero-copy: CUDA writes exported device-local memory, the CPU backend
  // host-visible memory it maps. Copy: a plain device-local buffer that only
  // the frame's upload writes, fed by a host-visible staging buffer.
  shared.vertices = createSharedVertexBuffer(
      device, bytes, cuda || copyPath ? VertexMemory::deviceLocal : VertexMemory::hostVisible,
      /*exportable=*/exported || rehearsedHandoff);
  // The staging memory a program without interop would pick if it measured:
  // the host-visible type the host writes fastest on this machine.
  if (copyPath) shared.staging = createMeasuredStagingBuffer(device, bytes, &shared.stagingChoice);
  shared.semaphores = createSyncSemaphores(device, /*exportable=*/exported);
  shared.indices = createGridIndexBuffer(device, params.grid);
  if (copyPath) {
    shared.simulation = createCopySimulation(devices, params);
  } else if (cuda) {
    shared.simulation = importIntoCuda(device, shared, options.faults, params, devices.cuda->ordinal);
  } else if (rehearsedHandoff) {
    failInjectedHandoff(device, shared, options.faults);
  } else {
    shared.hostOps = std::make_unique<VulkanHostSemaphores>(device, shared.semaphores);
    shared.simulation =
        options.frameTags
            ? createFrameTagSimulation(device, shared.frameTags, shared.vertices.mapped, *shared.hostOps,
                                       params, options.waitStrategy == WaitStrategy::enqueue, kWaitTimeoutNs)
            : createCpuSimulation(params, shared.vertices.mapped, *shared.hostOps);
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
