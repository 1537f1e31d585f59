// The paths, one row each, and the one place that chooses one: from the
// backend that runs and the InteropConfig, a PathDescriptor says how the grid
// resources are built (create), how one frame runs (frame), how the schedule
// ends (drain), how the grid is torn down (destroy) and what the path offers
// (sync modes, transfer, frames in flight, the overlay's words). Each of
// those four functions is in the path's own file; the table only points at
// them. Whatever a path needs beyond the grid resources that every path
// shares (app/interop/grid_resources.h) it keeps in PathResources, next to
// its own code. The rest of the app asks the descriptor; nothing else
// switches on the path or the backend to run one.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "app/interop/device_loss.h"
#include "app/interop/device_pairing.h"
#include "app/interop/grid_resources.h"
#include "app/interop/teardown.h"
#include "app/paths/copy_path.h"
#include "app/paths/cpu_host_path.h"
#include "app/paths/cuda_owned_memory_path.h"
#include "app/paths/frame_context.h"
#include "app/paths/opencl_path.h"
#include "app/paths/render_queue_path.h"
#include "app/testing/frame_tags.h"
#include "renderer/mesh_renderer.h"

namespace vksim {

// The one way the vertices travel and the simulation runs, for one grid
// (docs/design.md, "Paths"). Each has its own file in app/paths/:
//   zeroCopy:        CUDA writes the renderer's exported memory in place (the lesson);
//   cudaOwnedMemory: as zeroCopy, but CUDA allocates and exports, Vulkan imports;
//   openCl:          as zeroCopy, with OpenCL importing (binary semaphores only);
//   cpuHost:         the CPU writes host-visible memory through a mapping, ordered
//                    by the same semaphores through host operations;
//   copy:            the simulation writes memory of its own, the host copies it;
//   renderQueue:     the step rides in the render's own submission (vulkan, cuda-nvx).
enum class InteropPath { zeroCopy, cudaOwnedMemory, openCl, cpuHost, copy, renderQueue };

struct PathDescriptor;

// One path's own state, beside the shared grid resources: only the member of
// the path that runs is ever filled. The frame-tag hook is the capture
// room's (set once by the app).
struct PathResources {
  const PathDescriptor* descriptor = nullptr;  // the path that built the grid resources
  // The mesh's index buffer: the same on every path, and no part of the
  // interop (the frame's SceneDraw points at it).
  GridIndexBuffer indices;
  CpuHostState cpuHost;
  CopyState copy;
  CudaOwnedState cudaOwned;
  OpenClState openCl;
  // The render-queue path's simulation (grid.queueSimulation points at it).
  std::unique_ptr<RenderQueueSimulation> renderQueue;
  // A render's frame tag, read back once its fence signalled (--frame-tags).
  std::function<void(const SeenFrameTag& seen)> frameTagSeen;
  // The grid's schedule has been drained (drainPathGrid) and no frame has
  // run since: the teardown that follows does not drain it again.
  bool drained = false;
};

struct PathDescriptor {
  InteropPath path;
  const char* name;  // "zero-copy", ... (reports)
  TransferMode transfer;
  bool timeline;    // offers timeline semaphores (OpenCL: binary only)
  bool hostOrdered; // the host orders every handover: nothing to poll (waits as enqueue)
  // Frames in flight (base/config.h). Two only where the queue alone orders
  // every handover: a simulation in the render's own submission (the copy
  // path's host staging buffer is rewritten every frame and would need one
  // per frame; every other path has one shared buffer that the two sides
  // take turns on).
  uint32_t framesInFlight;
  // The overlay's words for where the semaphores and the vertex buffer go.
  const char* semaphoreSharing;
  const char* bufferSharing;
  // Builds `grid` and `own` (both empty) for `params`. Throws
  // EnvironmentError / RuntimeFailure; what was built stays for destroy.
  void (*create)(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                 ScheduleState& schedule);
  // One frame of the path's schedule (app/paths/*_path.h).
  void (*frame)(FrameContext& frame, PathResources& own);
  // Ends the schedule after the last frame (drainSchedule,
  // app/interop/teardown.h, or the path's own).
  void (*drain)(const GridTeardown& teardown, GridResources& grid, PathResources& own);
  // Tears down `grid` and `own`, drained or never run: the simulation
  // first, then the shared Vulkan objects, then the path's own.
  void (*destroy)(const GridTeardown& teardown, GridResources& grid, PathResources& own);
};

// The path for `backend` under `config`: renderQueue for vulkan and
// cuda-nvx; copy for --transfer copy; cudaOwnedMemory for cuda with
// --memory-owner cuda; zeroCopy for cuda; openCl; cpuHost for cpu.
InteropPath choosePath(Backend backend, const InteropConfig& config);

// The row of `path` in the table.
const PathDescriptor& describePath(InteropPath path);

// The path's name ("zero-copy", ...).
const char* toString(InteropPath path);

// describePath(path).framesInFlight.
uint32_t framesInFlight(InteropPath path);

// Builds the grid resources for `params` on the path that choosePath gives.
void createPathGrid(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                    ScheduleState& schedule);

// What the path reads back once the slot's fence has signalled, at the top
// of every frame (the frame tag of the render before, --frame-tags).
void noteSlotDone(PathResources& own);

// Ends the schedule after the last frame: the path's drain, once (own.drained
// says it ran; a frame since clears it). Throws RuntimeFailure on a timeout.
void drainPathGrid(const GridTeardown& teardown, GridResources& grid, PathResources& own);

// Tears down the grid resources and the path's own, once drained
// (drainPathGrid) or never run: the path's destroy (CUDA first,
// app/interop/teardown.h; the path's own last: CUDA's memory after Vulkan's
// import of it), then the mesh's index buffer.
void destroyPathGrid(const GridTeardown& teardown, GridResources& grid, PathResources& own);

}  // namespace vksim
