// The OpenCL path (--backend opencl): the zero-copy path with OpenCL in
// CUDA's place. OpenCL imports the vertex memory and the two binary
// semaphores (cl_khr_external_memory, cl_khr_external_semaphore); it has no
// timeline semaphore, so the schedule runs in binary mode only. With the
// texture on, OpenCL also writes the surface texture, every level packed,
// into a second exported buffer in the same turn, and each render copies
// that buffer into the image's levels (docs/design.md, "The surface texture
// on OpenCL"): hence a frame of its own. The drain is the zero-copy path's
// (drainZeroCopyGrid, app/paths/zero_copy_path.h); the teardown is too, with
// the texel buffer after it.
#pragma once
#include "app/interop/grid_resources.h"
#include "app/interop/teardown.h"
#include "app/paths/frame_context.h"

namespace vksim {

// What the path keeps beside the shared grid resources.
struct OpenClState {
  // Exported, device-local, surfaceTextureBytes(grid) bytes: OpenCL writes
  // every level into it, packed (sim/surface_texture.h), and each render
  // copies it into grid.texture. Empty with the texture off.
  SharedVertexBuffer texels;
  // Who owns `texels` in the sense of queue family ownership. EXTERNAL from
  // the initial write on; each render acquires it and releases it back.
  // Kept apart from grid.vertexOwner: the drain acquires the vertex buffer
  // alone (nothing in Vulkan reads the texels after it), so a render after
  // a drain acquires the texels and not the vertices.
  VertexOwner texelOwner = VertexOwner::vulkan;
};

// Builds `grid` and `own` (both empty) for `params`, handing the fds to
// OpenCL: the vertex memory, the two binary semaphores and, with the
// texture on, the texel buffer. Throws EnvironmentError / RuntimeFailure;
// what was built stays in `grid` and `own` for destroyOpenClGrid.
void createOpenClGrid(GridResources& grid, OpenClState& own, const GridSetup& setup, const ModelParams& params,
                      ScheduleState& schedule);

// One frame: runZeroCopyFrame's schedule (app/paths/zero_copy_path.h), and
// with the texture on, in render k after the acquires, the copy of the
// texels that sim k-1 wrote into every level of grid.texture; the texel
// buffer goes back to EXTERNAL with the vertex buffer. Throws RuntimeFailure
// (throwWaitTimeout) when a wait runs out.
void runOpenClFrame(FrameContext& frame, OpenClState& own);

// Tears down `grid` and `own`, drained (drainZeroCopyGrid) or never run:
// destroyZeroCopyGrid (OpenCL first: its queue finished, its imports
// released; then the device idles and the shared Vulkan objects go), then
// the texel buffer. Throws RuntimeFailure when the simulation does not
// finish in time.
void destroyOpenClGrid(const GridTeardown& teardown, GridResources& grid, OpenClState& own);

}  // namespace vksim
