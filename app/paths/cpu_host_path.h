// The CPU host path (--backend cpu): the simulation runs on the host and
// writes the vertex buffer through a mapping of host-visible memory, taking
// part in the same value schedule as CUDA through host semaphore operations
// (app/interop/host_semaphores.h). Nothing is exported and no ownership moves;
// its frame uploads the texels and, with --frame-tags, copies the frame tag
// before the draw, and takes the same two turns as the zero-copy frame
// (app/paths/schedule_turns.h).
#pragma once
#include <memory>

#include "app/interop/grid_resources.h"
#include "app/interop/host_semaphores.h"
#include "app/interop/teardown.h"
#include "app/paths/frame_context.h"
#include "app/testing/frame_tags.h"
#include "renderer/gpu_buffer.h"

namespace vksim {

// What the CPU host path keeps beside the shared grid resources.
struct CpuHostState {
  GpuBuffer textureStaging;  // hostUpload only: every level packed (sim/surface_texture.h)
  // The host's semaphore operations the simulation signals and waits with;
  // they outlive the simulation.
  std::unique_ptr<VulkanHostSemaphores> hostOps;
  FrameTags frameTags;  // --frame-tags only (app/testing/frame_tags.h)
};

// Builds `grid` and `own` (empty) for `params`; with import-fails or
// export-fails planned, rehearses the CUDA backend's handoff instead and
// fails where its import would run (app/testing/fault_hooks.h). Throws
// EnvironmentError / RuntimeFailure; what was built stays for the teardown.
void createCpuHostGrid(GridResources& grid, CpuHostState& own, const GridSetup& setup, const ModelParams& params,
                       ScheduleState& schedule);

// One frame: render k (the texels' upload and the frame tag's copy, then the
// mesh; no ownership transfer) and sim k, on the value schedule.
void runCpuHostFrame(FrameContext& frame, CpuHostState& own);

// The frame tag of the last render, read back once its fence signalled
// (a no-op without --frame-tags); `seen` hears of it.
void reportCpuHostFrameTag(CpuHostState& own, const std::function<void(const SeenFrameTag& seen)>& seen);

// Ends the schedule after the last frame, once per grid: drainSchedule
// (app/interop/teardown.h) through host operations' semaphores, and, once
// the last render's fence has signalled and before the drain's submission,
// the frame tag of that render (`seen` hears of it) and the tagging worker's
// last step (--frame-tags; nothing otherwise). Throws RuntimeFailure on a
// timeout.
void drainCpuHostGrid(const GridTeardown& teardown, GridResources& grid, CpuHostState& own,
                      const std::function<void(const SeenFrameTag& seen)>& seen);

// Tears down `grid` and `own`, drained or never run: the simulation first
// (finishSimulation), then the shared Vulkan objects once the device is idle
// (destroySharedObjects), then what createCpuHostGrid put in `own`. Throws
// RuntimeFailure when the simulation does not finish in time.
void destroyCpuHostGrid(const GridTeardown& teardown, GridResources& grid, CpuHostState& own);

}  // namespace vksim
