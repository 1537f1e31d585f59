// Steps 2 to 4 of docs/interop-walkthrough.md: the shared state, the
// resources that Vulkan and the simulation share for one grid size. Its
// creation is where the exported fds cross from Vulkan to the simulation, and
// only there: export -> the fds cross -> import, with ONE owner of every fd
// on the way (ExportedHandles).
//
// The rule for opaque POSIX fds: an fd whose import succeeded belongs to the
// importer from then on (closing it is undefined); an fd that was not
// imported, because its import failed or never ran, is still the exporter's,
// which must close it. Tests count /proc/self/fd around these calls
// (tests/integration/test_fd_handoff.cpp).
//
// Also here: who owns the vertex buffer in the sense of queue family
// ownership, and the barriers that hand it over to and from the other API.
#pragma once
#include <volk.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "app/interop/interop_config.h"
#include "app/interop/device_pairing.h"
#include "app/interop/frame_tags.h"
#include "app/interop/host_semaphores.h"
#include "app/interop/value_schedule.h"
#include "base/result.h"
#include "renderer/frame_sync.h"
#include "renderer/gpu_buffer.h"
#include "renderer/mesh_renderer.h"
#include "renderer/shared_resources.h"
#include "renderer/shared_texture.h"
#include "renderer/staging_memory.h"
#include "renderer/vulkan_context.h"
#include "sim/cuda/cuda_owned_memory.h"
#include "sim/fault_plan.h"
#include "sim/simulation.h"
#include "sim/vulkan/render_queue_simulation.h"

namespace vksim {

// Which side may access the shared vertex buffer now, in the sense of queue
// family ownership: the render queue's family (Vulkan), or
// VK_QUEUE_FAMILY_EXTERNAL (the other API). Memory that another API writes
// must be acquired from EXTERNAL before Vulkan touches it, or its contents are
// undefined for Vulkan (the synchronization chapter's queue family ownership
// transfers, and the external memory chapter's rule for shared resources).
enum class VertexOwner { vulkan, external };

// The resources that belong to one grid size: rebuilt together when the grid
// or model changes (CUDA first on the way down, as the design notes require).
struct SharedState {
  TransferMode transfer = TransferMode::zeroCopy;  // InteropConfig::transfer when it was built
  SharedVertexBuffer vertices;                     // copy path: device-local, not exported
  // Whether another API (CUDA, zero-copy) writes `vertices`: only then do
  // ownership transfers happen. The CPU backend writes host-visible memory
  // through a mapping, which needs none; the copy path's buffer is Vulkan's.
  bool externalWriter = false;
  // Who owns `vertices` now. EXTERNAL from the start when another API writes
  // the initial state; every render acquires it (if EXTERNAL) and releases it
  // back; the drain acquires it, so that read-backs after it are defined.
  VertexOwner vertexOwner = VertexOwner::vulkan;
  GpuBuffer staging;  // copy path only: host-visible, the simulation's vertices land here first
  // The surface texture the mesh samples (renderer/shared_texture.h): written
  // by CUDA (external: exported with the vertex buffer, its ownership moves
  // with vertexOwner, under the same semaphores), uploaded from
  // textureStaging by every render (the CPU backend writes the texels there
  // in its turn), or a placeholder when the texture is off, on the copy path
  // and with --frame-tags.
  SharedTexture texture;
  GpuBuffer textureStaging;  // hostUpload only: every level packed (sim/surface_texture.h)
  // Copy path only: the memory type staging is in, chosen by measured host
  // write speed (renderer/staging_memory.h), and what was measured.
  StagingChoice stagingChoice;
  SyncSemaphores semaphores;
  GridIndexBuffer indices;
  std::unique_ptr<VulkanHostSemaphores> hostOps;  // CPU backend, zero-copy only
  std::unique_ptr<Simulation> simulation;
  // --backend vulkan or cuda-nvx: `simulation` seen as what it is, a step
  // recorded into the render's own submission (app/interop/queue_submission.h);
  // null for the other backends.
  RenderQueueSimulation* queueSimulation = nullptr;
  FrameTags frameTags;  // --frame-tags only (app/interop/frame_tags.h)
  // --memory-owner cuda: the allocation behind `vertices`, which CUDA made
  // and exported and Vulkan imported. The simulation borrows its mapping. It
  // goes last, after the simulation and after Vulkan has freed its import
  // (destroySharedState); empty otherwise.
  CudaVertexMemory cudaVertices;
};

// What the rest of the run records of the shared state's life: the capture
// room's trace and frame timings. Each may be empty (nothing is recorded).
struct SharedStateHooks {
  // The initial write ran; `signalledSimDone` says whether it enqueued the
  // simDone signal that render 0 waits on.
  std::function<void(bool signalledSimDone)> initialWriteDone;
  // The drain's submission, as submitted (its waits; it signals nothing).
  std::function<void(std::span<const SemaphoreWait> waits)> drainSubmitted;
  // A render's frame tag, read back once its fence signalled (--frame-tags).
  std::function<void(const SeenFrameTag& seen)> frameTagSeen;
  // Every frame's work has completed (the simulation finished): the last
  // frames' timings are all there will be.
  std::function<void()> workFinished;
};

// The fds of one shared state on their way between Vulkan and the
// simulation, and their one owner on that way: every fd still >= 0 when an
// ExportedHandles goes (an exception between two exports, an importer that
// took some of the fds or none) is closed then. An importer sets each fd it
// imported to -1: from then on it is the importer's. The semaphores always
// go from Vulkan to the simulation; the memory goes the same way, or, with
// --memory-owner cuda, from CUDA to Vulkan (bufferExporter says which; the
// rule for the fd is the same either way). Move-only.
struct ExportedHandles {
  ExternalBuffer buffer;
  ExternalSemaphores semaphores;
  MemoryOwner bufferExporter = MemoryOwner::vulkan;  // who exported buffer.fd (the other side imports it)
  ExternalTexture texture;  // fd -1 when no texture is exported

  ExportedHandles() = default;
  ExportedHandles(ExportedHandles&& other) noexcept;
  ExportedHandles& operator=(ExportedHandles&& other) noexcept;
  ExportedHandles(const ExportedHandles&) = delete;
  ExportedHandles& operator=(const ExportedHandles&) = delete;
  ~ExportedHandles();
};

// Exports the vertex buffer's memory (which must be exportable) and, when
// semaphores.exportable, the three semaphores: each a new opaque fd that the
// returned handles own. If an export fails, every fd exported before it is
// closed and the exception goes on (EnvironmentError or RuntimeFailure):
// nothing stays open. With export-fails in `faults`, the export after the
// vertex memory's fails that way (EnvironmentError). With `texture` (an
// external one), its memory is exported last.
ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults,
                                    const SharedTexture* texture = nullptr);

// Imports the handles into a simulation: sets each fd that it imported
// successfully to -1 in `handles` (the importer's now); whatever it leaves
// >= 0 is still the caller's. On failure the Error's message is one sentence.
using SimulationImporter = std::function<Result<std::unique_ptr<Simulation>>(ExportedHandles& handles)>;

// The whole route of the fds: exportSharedHandles, then `importer`, then
// every fd the importer did not take is closed, on success and failure alike.
// With import-fails in `faults`, the import of the vertex memory fails before
// the importer runs (its fd, still ours, is closed like the others). Throws
// EnvironmentError (exit 3) naming what failed; `who` begins the sentence
// ("CUDA backend").
std::unique_ptr<Simulation> handOverSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                                  const SyncSemaphores& semaphores, const FaultPlan& faults,
                                                  const std::string& who, const SimulationImporter& importer,
                                                  const SharedTexture* texture = nullptr);

// Whether `faults` holds import-fails or export-fails: then the CPU backend's
// vertex memory is exported too (the device needs exportMemory), and the
// handoff fails where the CUDA backend's import would run.
bool handoffFaultInjected(const FaultPlan& faults);

// Builds `shared` (empty) for `params`: the vertex buffer, the surface
// texture (config.texture; a placeholder when off or on the copy path), the semaphores,
// the index buffer and the simulation of the backend that `devices` chose,
// handing the exported fds to CUDA when that backend runs (with
// config.memoryOwner == cuda, CUDA allocates and exports the vertex memory
// and Vulkan imports it; the semaphores still go from Vulkan to CUDA); then the initial
// write, after which `schedule` restarts at frame 0 and
// hooks.initialWriteDone hears of it. With config.transfer == copy nothing
// is exported: the vertex buffer is a plain device-local one with a staging
// buffer, and the simulation writes host memory of its own (the copy path).
// Throws EnvironmentError / RuntimeFailure; what was built stays in `shared`
// for destroySharedState (app/interop/teardown.h).
void createSharedState(SharedState& shared, const Device& device, const DeviceChoice& devices,
                       const InteropConfig& config, const ModelParams& params, ScheduleState& schedule,
                       const SharedStateHooks& hooks);

// The shared vertex buffer's bytes as Vulkan reads them (a blocking, bounded
// read-back on device.queue). Only once Vulkan owns the buffer (after
// drainSchedule); throws RuntimeFailure while it is released to the other API.
std::vector<uint8_t> readSharedVertices(const Device& device, const SharedState& shared);

// Level `level` of the surface texture as Vulkan reads it (blocking, bounded);
// as readSharedVertices, only once Vulkan owns it (an external texture's
// ownership follows the vertex buffer's).
std::vector<uint8_t> readSharedTexture(const Device& device, const SharedState& shared, uint32_t level);

// Whether the mesh samples the texture (else the placeholder is bound and
// the height colour is drawn).
bool textureDrawn(const SharedState& shared);

// The CPU backend's texture upload, recorded before the render pass: every
// level from shared.textureStaging (what the simulation's last turn wrote)
// into shared.texture. Nothing unless the texture is hostUpload.
void recordSurfaceTextureUpload(const SharedState& shared, VkCommandBuffer commandBuffer);

// Every semaphore wait that orders an acquire from VK_QUEUE_FAMILY_EXTERNAL
// waits at this stage: ownership transfers belong to no pipeline stage, so
// no narrower stage is guaranteed to come before them.
// VK_KHR_maintenance8's VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR
// would say the same on the barrier, but Debian 12's headers (1.3.239) lack it.
inline constexpr VkPipelineStageFlags kExternalAcquireWaitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;

// Records the acquire of shared.vertices from VK_QUEUE_FAMILY_EXTERNAL into
// `queueFamily`, for Vulkan accesses at dstStage/dstAccess, and of an
// external shared.texture with it (for the fragment shader's reads as well).
// The submission's semaphore wait on the other API's signal must be at
// kExternalAcquireWaitStage.
void recordAcquireFromExternal(const SharedState& shared, uint32_t queueFamily, VkCommandBuffer commandBuffer,
                               VkPipelineStageFlags dstStage, VkAccessFlags dstAccess);

// Records the release of shared.vertices from `queueFamily` to
// VK_QUEUE_FAMILY_EXTERNAL after the frame's vertex reads, and of an external
// shared.texture after its fragment reads; the submission's signal (later in
// the same batch) hands both to the other API.
void recordReleaseToExternal(const SharedState& shared, uint32_t queueFamily, VkCommandBuffer commandBuffer);

// The copy path's host step before a render: waits (bounded by
// kWaitTimeoutNs) until the simulation's last copy to host memory is
// complete, then copies it into shared.staging, and marks the output staged
// in `schedule`. False on a timeout (nothing staged). The staging buffer must
// be free: the previous upload's fence has signalled.
bool stageSimulationOutput(SharedState& shared, ScheduleState& schedule);

// The copy path's upload, recorded before the render pass: staging ->
// vertex buffer, ordered after the previous frame's vertex reads and before
// this frame's.
void recordVertexUpload(const SharedState& shared, VkCommandBuffer commandBuffer);

// Reads back the frame tag of the last render (--frame-tags), once its fence
// has signalled, and hands it to hooks.frameTagSeen. Nothing when no tag
// copy is outstanding.
void reportFrameTag(FrameTags& tags, const SharedStateHooks& hooks);

}  // namespace vksim
