// The grid resources: what Vulkan and the simulation share for one grid
// size (the vertex buffer, the surface texture, the semaphores, the index
// buffer and the simulation itself), rebuilt together when the grid or the
// model changes. Which path built them (InteropPath) is one value; each path
// builds them in its own file (app/paths/), and the fds cross between the
// APIs only through ExportedHandles (app/interop/exported_handles.h).
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
#include "app/testing/frame_tags.h"
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

// The one way the vertices travel and the simulation runs, for one grid
// (docs/design.md, "Paths"). Each has its own file in app/paths/, and
// app/paths/path_factory.h chooses one from the backend and the InteropConfig:
//   zeroCopy:        CUDA writes the renderer's exported memory in place (the lesson);
//   cudaOwnedMemory: as zeroCopy, but CUDA allocates and exports, Vulkan imports;
//   openCl:          as zeroCopy, with OpenCL importing (binary semaphores only);
//   cpuHost:         the CPU writes host-visible memory through a mapping, ordered
//                    by the same semaphores through host operations;
//   copy:            the simulation writes memory of its own, the host copies it;
//   renderQueue:     the step rides in the render's own submission (vulkan, cuda-nvx).
enum class InteropPath { zeroCopy, cudaOwnedMemory, openCl, cpuHost, copy, renderQueue };
const char* toString(InteropPath path);

// How the vertices reach the renderer on `path`.
TransferMode transferOf(InteropPath path);

// What a path adds to the zero-copy frame beyond the schedule itself: the
// CPU host path uploads the texels its simulation wrote, and with
// --frame-tags copies the frame tag, before the draw. Empty for the paths
// where another API writes the buffer (its writes reach Vulkan through the
// acquire alone).
struct HostWrites {
  // Stages the render's wait on the simulation's signal must also cover
  // (TRANSFER for a texture upload or a tag copy); 0 when nothing is added.
  VkPipelineStageFlags waitStages = 0;
  // Records the additions before the render pass of frame `frame`.
  std::function<void(VkCommandBuffer commandBuffer, uint64_t frame)> recordBeforeDraw;
  // Heard right after a render's submission (the frame-tag worker may write).
  std::function<void()> renderSubmitted;
};

// The resources that belong to one grid size: rebuilt together when the grid
// or model changes (CUDA first on the way down, as the design notes require).
struct GridResources {
  InteropPath path = InteropPath::cpuHost;  // the path that built them
  SharedVertexBuffer vertices;              // copy path: device-local, not exported
  // Whether another API (CUDA, OpenCL) writes `vertices`: only then do
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
  std::unique_ptr<VulkanHostSemaphores> hostOps;  // CPU host path only
  // The simulation: one that submits its own step (every path but the render
  // queue), or one whose step rides in the render's submission.
  std::unique_ptr<Simulation> simulation;
  std::unique_ptr<RenderQueueSimulation> queueSimulation;
  HostWrites hostWrites;  // CPU host path only
  FrameTags frameTags;    // --frame-tags only (app/testing/frame_tags.h)
  // --memory-owner cuda: the allocation behind `vertices`, which CUDA made
  // and exported and Vulkan imported. The simulation borrows its mapping. It
  // goes last, after the simulation and after Vulkan has freed its import
  // (destroyGridResources); empty otherwise.
  CudaVertexMemory cudaVertices;
};

// The simulation of `grid`, whichever kind it is; null when there is none.
SimulationBackend* simulationOf(const GridResources& grid);

// What the rest of the run records of the grid resources' life: the capture
// room's trace and frame timings. Each may be empty (nothing is recorded).
struct GridResourceHooks {
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

// What every grid of a run is built from (only the model's parameters change
// between rebuilds).
struct GridSetup {
  const Device& device;
  const DeviceChoice& devices;
  const InteropConfig& config;
  const GridResourceHooks& hooks;
};

// The common end of every path's creation: the initial write, after which
// `schedule` restarts at frame 0 and hooks.initialWriteDone hears of it (not
// on the copy path, which signals nothing). Throws RuntimeFailure when the
// write fails.
void writeInitialState(SimulationBackend& simulation, InteropPath path, ScheduleState& schedule,
                       const GridResourceHooks& hooks);

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

}  // namespace vksim
