// The copy path (--transfer copy): what a program without interop does. The
// simulation writes memory of its own; the host copies its output into a
// host-visible staging buffer, and the frame's command buffer copies that
// into a plain device-local vertex buffer. Nothing is exported, no semaphore
// is shared, and the host orders everything: it is the baseline the
// zero-copy path is measured against (docs/benchmarks.md).
#pragma once
#include "app/interop/grid_resources.h"
#include "app/paths/frame_context.h"

namespace vksim {

// Builds `grid` (empty) for `params`: the vertex buffer, the staging buffer
// in the memory type the host writes fastest (measured), and the simulation
// (CUDA's copy backend, or the CPU's). Throws EnvironmentError /
// RuntimeFailure; what was built stays in `grid` for destroyGridResources.
void createCopyGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                    ScheduleState& schedule);

// One frame: stage sim k-1's output, render k (upload, draw), sim k writes
// its own memory and copies it to the host. Throws RuntimeFailure when a
// wait runs out.
void runCopyFrame(FrameContext& frame);

// The host's step before a render (and before the drain's upload): waits
// (bounded by kWaitTimeoutNs) until the simulation's last copy to host memory
// is complete, then copies it into grid.staging and marks the output staged
// in `schedule`. False on a timeout (nothing staged). The staging buffer must
// be free: the previous upload's fence has signalled.
bool stageSimulationOutput(GridResources& grid, ScheduleState& schedule);

// The upload, recorded before the render pass: staging -> vertex buffer,
// ordered after the previous frame's vertex reads and before this frame's.
void recordVertexUpload(const GridResources& grid, VkCommandBuffer commandBuffer);

}  // namespace vksim
