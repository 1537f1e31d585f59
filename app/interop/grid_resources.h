// The grid resources: what Vulkan and the simulation share for one grid
// size, whichever path built them: the vertex buffer, the surface texture,
// the semaphores and the simulation itself, rebuilt
// together when the grid or the model changes. Each path builds them in its
// own file (app/paths/) and keeps there whatever else it needs (a staging
// buffer, CUDA's allocation, host semaphore operations: app/paths/path_factory.h);
// the fds cross between the APIs only through ExportedHandles (below).
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
#include "app/interop/value_schedule.h"
#include "base/result.h"
#include "renderer/frame_sync.h"
#include "renderer/shared_resources.h"
#include "renderer/shared_texture.h"
#include "renderer/vulkan_context.h"
#include "sim/fault_plan.h"
#include "sim/simulation.h"

namespace vksim {

struct DeviceChoice;           // app/interop/device_pairing.h

// Which side may access the shared vertex buffer now, in the sense of queue
// family ownership: the render queue's family (Vulkan), or
// VK_QUEUE_FAMILY_EXTERNAL (the other API). Memory that another API writes
// must be acquired from EXTERNAL before Vulkan touches it, or its contents are
// undefined for Vulkan (the synchronization chapter's queue family ownership
// transfers, and the external memory chapter's rule for shared resources).
enum class VertexOwner { vulkan, external };

// The resources that belong to one grid size: rebuilt together when the grid
// or model changes (CUDA first on the way down, as the design notes require).
struct GridResources {
  // Exported (zero copy, OpenCL), imported (CUDA-owned), host-visible (CPU
  // host) or device-local and not shared (copy, render queue).
  SharedVertexBuffer vertices;
  // Whether another API (CUDA, OpenCL) writes `vertices`: only then do
  // ownership transfers happen. The CPU backend writes host-visible memory
  // through a mapping, which needs none; the copy path's buffer is Vulkan's.
  bool externalWriter = false;
  // Who owns `vertices` now. EXTERNAL from the start when another API writes
  // the initial state; every render acquires it (if EXTERNAL) and releases it
  // back; the drain acquires it, so that read-backs after it are defined.
  VertexOwner vertexOwner = VertexOwner::vulkan;
  // The surface texture the mesh samples (renderer/shared_texture.h): written
  // by CUDA (external: exported with the vertex buffer, its ownership moves
  // with vertexOwner, under the same semaphores), uploaded by every render
  // from the buffer that the CPU backend (hostUpload) or OpenCL
  // (externalBufferCopy) wrote in its turn, written by compute shaders in each
  // render-queue step (queueCompute), or a placeholder when the texture is off or the path writes no texels.
  SharedTexture texture;
  SyncSemaphores semaphores;
  // The simulation: one that submits its own step (every path but the render
  // queue), or one whose step rides in the render's submission. The latter
  // is the render-queue path's own (PathResources::renderQueue,
  // app/paths/path_factory.h): here only so that the teardown and the
  // controls find whichever simulation runs (simulationOf).
  std::unique_ptr<Simulation> simulation;
  SimulationBackend* queueSimulation = nullptr;
};

// The simulation of `grid`, whichever kind it is; null when there is none.
SimulationBackend* simulationOf(const GridResources& grid);

// What the rest of the run records of the grid resources' life: the capture
// room's trace and frame timings. Each may be empty (nothing is recorded).
struct GridResourceHooks {
  // The initial write ran; `signalledSimDone` says whether it enqueued the
  // simDone signal that render 0 waits on.
  std::function<void(bool signalledSimDone)> initialWriteDone;
  // Once the drain has waited for the last render's fence, before its
  // submission (the CPU host path reads its last frame tag here).
  std::function<void()> beforeDrainSubmitted;
  // The drain's submission, as submitted (its waits; it signals nothing).
  std::function<void(std::span<const SemaphoreWait> waits)> drainSubmitted;
  // Every frame's work has completed (the simulation finished): the last
  // frames' timings are all there will be.
  std::function<void()> workFinished;
};

// What every grid of a run is built from (only the model's parameters change
// between rebuilds).
struct GridSetup {
  const Device& device;
  const DeviceChoice& devices;
  const InteropConfig& config;
  const GridResourceHooks& hooks;
  int cudaOrdinal = -1;  // the paired CUDA device (devices.cuda), -1 without one
};

// The common end of the creation of every path whose simulation meets
// Vulkan through the semaphores: the initial write, after which `schedule`
// restarts at frame 0 and hooks.initialWriteDone hears of it. Throws
// RuntimeFailure when the write fails.
void writeInitialState(SimulationBackend& simulation, ScheduleState& schedule, const GridResourceHooks& hooks);

// The surface texture of a grid: one texel per vertex, with every mip level
// (sim/surface_texture.h), written as `writer` says.
SharedTexture createSurfaceTexture(const Device& device, const ModelParams& params, TextureWriter writer);

// The placeholder texture (the mesh takes its colour from the height): for
// the paths whose simulation writes no texels.
SharedTexture createPlaceholderTexture(const Device& device, const ModelParams& params);

// The shared vertex buffer's bytes as Vulkan reads them (a blocking, bounded
// read-back on device.queue). Only once Vulkan owns the buffer (after
// drainSchedule); throws RuntimeFailure while it is released to the other API.
std::vector<uint8_t> readSharedVertices(const Device& device, const GridResources& grid);

// Level `level` of the surface texture as Vulkan reads it (blocking, bounded);
// as readSharedVertices, only once Vulkan owns it (an external texture's
// ownership follows the vertex buffer's).
std::vector<uint8_t> readSharedTexture(const Device& device, const GridResources& grid, uint32_t level);

// Whether the mesh samples the texture (else the placeholder is bound and
// the height colour is drawn).
bool textureDrawn(const GridResources& grid);

// The stage at which every semaphore wait that orders
// recordAcquireFromExternal(grid, ..., dstStage, ..., maintenance8) must
// wait: ALL_COMMANDS without VK_KHR_maintenance8 (ownership transfers belong
// to no pipeline stage, so no narrower stage is sure to come before them);
// with it, dstStage, and the fragment shader too when an external texture is
// acquired with the buffer (externalAcquireStages,
// renderer/external_transfer_stages.h).
VkPipelineStageFlags externalAcquireWaitStage(const GridResources& grid, VkPipelineStageFlags dstStage,
                                              bool maintenance8);

// Records the acquire of grid.vertices from VK_QUEUE_FAMILY_EXTERNAL into
// `queueFamily`, for Vulkan accesses at dstStage/dstAccess, and of an
// external grid.texture with it (for the fragment shader's reads as well);
// maintenance8: the device has VK_KHR_maintenance8 enabled (Device::maintenance8).
// The submission's semaphore wait on the other API's signal must be at
// externalAcquireWaitStage(grid, dstStage, maintenance8).
void recordAcquireFromExternal(const GridResources& grid, uint32_t queueFamily, VkCommandBuffer commandBuffer,
                               VkPipelineStageFlags dstStage, VkAccessFlags dstAccess, bool maintenance8);

// Records the release of grid.vertices from `queueFamily` to
// VK_QUEUE_FAMILY_EXTERNAL after the frame's vertex reads, and of an external
// grid.texture after its fragment reads; the submission's signal (later in
// the same batch) hands both to the other API.
void recordReleaseToExternal(const GridResources& grid, uint32_t queueFamily, VkCommandBuffer commandBuffer,
                             bool maintenance8);

// ---- The route of the exported fds.
// The one route of the exported fds between Vulkan and the simulation, and
// its one owner (ExportedHandles). The rule for opaque POSIX fds: an fd whose
// import succeeded belongs to the importer from then on (closing it is
// undefined); an fd that was not imported, because its import failed or never
// ran, is still the exporter's, which must close it. A path that shares
// memory (app/paths/) reads as the route runs: exportSharedHandles, then the
// importer (which sets each fd it took to -1), then importedSimulation, and
// `handles` closes what is left when it goes. Tests count /proc/self/fd
// around these calls (tests/integration/test_fd_handoff.cpp).

// The fds of one grid on their way between Vulkan and the
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
  ExternalBuffer texels;    // packed texels (exportTexelBuffer); fd -1 when none is exported

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
// closed and the exception goes on (EnvironmentError or RuntimeFailure, its
// message led by `who` when given: "CUDA backend"): nothing stays open. With
// export-fails in `faults` (the test facility's, docs/testing.md), the export
// after the vertex memory's fails that way. With `texture` (an external one),
// its memory is exported last.
ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults,
                                    const SharedTexture* texture = nullptr, const std::string& who = "");

// The surface texture's memory (an external one) as a new opaque fd, with
// what an importer must repeat to map it as a mipmapped array (allocation
// size, dedicated flag, extent, level count). The fd is the caller's until an
// import takes it: store it in an ExportedHandles at once. Throws as
// exportSharedHandles. exportSharedHandles uses it; so does --memory-owner
// cuda, whose memory goes the other way but whose texture does not.
ExternalTexture exportSurfaceTexture(const Device& device, const SharedTexture& texture);

// A buffer that the simulation fills with the surface texture's packed
// texels (sim/surface_texture.h) and Vulkan copies into the image: its
// memory exported as a new fd into handles.texels, which owns it from then
// on as it owns the others (the route's rule above). Called after
// exportSharedHandles, before the import. Throws as that export does.
void exportTexelBuffer(const Device& device, const SharedVertexBuffer& texels, ExportedHandles& handles);

// import-fails (the test facility's, docs/testing.md): the import that `what`
// names ("CUDA backend: could not import ...") fails before it runs, with
// EnvironmentError; every fd is still the exporter's. Nothing without it.
void injectImportFailure(const FaultPlan& faults, const std::string& what);

// What an importer returned, as the path keeps it: the simulation, or
// EnvironmentError (exit 3) "who: <the importer's sentence>". Either way the
// fds it did not take (still >= 0) are the caller's handles' to close.
std::unique_ptr<Simulation> importedSimulation(Result<std::unique_ptr<Simulation>> imported, const std::string& who);

}  // namespace vksim
