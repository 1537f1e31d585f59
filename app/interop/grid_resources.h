// The grid resources: what Vulkan and the simulation share for one grid
// size, whichever path built them: the vertex buffer, the surface texture,
// the semaphores, the index buffer and the simulation itself, rebuilt
// together when the grid or the model changes. Each path builds them in its
// own file (app/paths/) and keeps there whatever else it needs (a staging
// buffer, CUDA's allocation, host semaphore operations: app/paths/path_factory.h);
// the fds cross between the APIs only through ExportedHandles
// (app/interop/exported_handles.h).
//
// Also here: who owns the vertex buffer in the sense of queue family
// ownership, and the barriers that hand it over to and from the other API.
#pragma once
#include <volk.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "app/interop/interop_config.h"
#include "app/interop/value_schedule.h"
#include "renderer/frame_sync.h"
#include "renderer/mesh_renderer.h"
#include "renderer/shared_resources.h"
#include "renderer/shared_texture.h"
#include "renderer/vulkan_context.h"
#include "sim/simulation.h"

namespace vksim {

struct DeviceChoice;           // app/interop/device_pairing.h
class RenderQueueSimulation;  // sim/vulkan/render_queue_simulation.h

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
  GridResources();
  ~GridResources();  // out of line: where RenderQueueSimulation is a complete type
  SharedVertexBuffer vertices;  // the copy path's: device-local, not exported
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
  // from what the CPU backend wrote in its turn (hostUpload), or a
  // placeholder when the texture is off or the path writes no texels.
  SharedTexture texture;
  SyncSemaphores semaphores;
  GridIndexBuffer indices;
  // The simulation: one that submits its own step (every path but the render
  // queue), or one whose step rides in the render's submission.
  std::unique_ptr<Simulation> simulation;
  std::unique_ptr<RenderQueueSimulation> queueSimulation;
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
};

// The common end of the creation of every path whose simulation meets
// Vulkan through the semaphores: the initial write, after which `schedule`
// restarts at frame 0 and hooks.initialWriteDone hears of it. Throws
// RuntimeFailure when the write fails.
void writeInitialState(SimulationBackend& simulation, ScheduleState& schedule, const GridResourceHooks& hooks);

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
