// The copy path (--transfer copy): what a program without interop does. The
// simulation writes memory of its own; the host copies its output into a
// host-visible staging buffer, and the frame's command buffer copies that
// into a plain device-local vertex buffer. Nothing is exported, no semaphore
// is shared, and the host orders everything: it is the baseline the
// zero-copy path is measured against (docs/benchmarks.md).
#pragma once
#include "app/interop/device_loss.h"
#include "app/interop/grid_resources.h"
#include "app/interop/teardown.h"
#include "app/paths/frame_context.h"
#include "renderer/gpu_buffer.h"
#include "renderer/staging_memory.h"

namespace vksim {

// What the copy path keeps beside the shared grid resources: the
// host-visible buffer the simulation's vertices land in first, and the
// memory type it is in, chosen by measured host write speed
// (renderer/staging_memory.h), with what was measured.
struct CopyState {
  GpuBuffer staging;
  StagingChoice stagingChoice;
};

// Builds `grid` and `own` (empty) for `params`: the vertex buffer, the
// staging buffer in the memory type the host writes fastest (measured), and
// the simulation (CUDA's copy backend, or the CPU's). Throws
// EnvironmentError / RuntimeFailure; what was built stays for the teardown.
void createCopyGrid(GridResources& grid, CopyState& own, const GridSetup& setup, const ModelParams& params,
                    ScheduleState& schedule);

// One frame: stage sim k-1's output, render k (upload, draw), sim k writes
// its own memory and copies it to the host. Throws RuntimeFailure when a
// wait runs out.
void runCopyFrame(FrameContext& frame, CopyState& own);

// The copy path's drain: the last step's output uploaded as a frame would
// upload it, so that the vertex buffer ends, as on the zero-copy path, with
// the state after the last step. Once only: with nothing unstaged (a second
// drain, or the render already took it) there is nothing to do. Throws
// RuntimeFailure on a timeout.
void drainCopyGrid(const GridTeardown& teardown, GridResources& grid, CopyState& own);

// Tears down `grid` and `own`, drained or never run: the simulation first
// (finishSimulation), then the shared Vulkan objects once the device is idle
// (destroySharedObjects), then the staging buffer. Throws RuntimeFailure when
// the simulation does not finish in time.
void destroyCopyGrid(const GridTeardown& teardown, GridResources& grid, CopyState& own);

// The host's step before a render (and before the drain's upload): waits
// (bounded by kWaitTimeoutNs) until the simulation's last copy to host memory
// is complete, then copies it into own.staging and marks the output staged
// in `schedule`. False on a timeout (nothing staged). The staging buffer must
// be free: the previous upload's fence has signalled.
bool stageSimulationOutput(GridResources& grid, CopyState& own, ScheduleState& schedule);

// The upload, recorded before the render pass: staging -> vertex buffer,
// ordered after the previous frame's vertex reads and before this frame's.
void recordVertexUpload(const GridResources& grid, const CopyState& own, VkCommandBuffer commandBuffer);

}  // namespace vksim
