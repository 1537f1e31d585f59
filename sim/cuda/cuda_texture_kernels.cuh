// The surface texture's kernels (sim/surface_texture.h): level 0 from the
// vertices just written, then each lower level from the one above, all
// through surface objects on the levels of the mipmapped array mapped from
// the renderer's image. The arithmetic is sim/model_math.h's, the CPU
// reference's. Internal to sim/cuda/ (cuda_model_launches.cu) and to the
// lab's kernel bench (lab/cuda/cuda_kernel_bench.cu), which times them as the
// backend launches them.
#pragma once
#include <cuda_runtime.h>

#include "sim/cuda/cuda_kernels.cuh"
#include "sim/model_math.h"

namespace vksim {
namespace {

// Surface coordinates: x in bytes, y in rows (the surface functions' rule).
constexpr uint32_t kTexelBytes = sizeof(uchar4);

__device__ inline Texel loadTexel(cudaSurfaceObject_t surface, uint32_t x, uint32_t y) {
  const uchar4 value = surf2Dread<uchar4>(surface, int(x * kTexelBytes), int(y));
  return {value.x, value.y, value.z, value.w};
}
__device__ inline void storeTexel(cudaSurfaceObject_t surface, uint32_t x, uint32_t y, Texel texel) {
  surf2Dwrite(make_uchar4(texel.r, texel.g, texel.b, texel.a), surface, int(x * kTexelBytes), int(y));
}

// Texel (i, j) of level 0 from vertex (i, j), which an earlier kernel of the
// same stream wrote (stream order makes those writes visible here).
__global__ void surfaceTexelsKernel(const float4* __restrict__ vertices, uint32_t grid,
                                    cudaSurfaceObject_t level0) {
  const CellIndex cell = threadCell();
  if (cell.i >= grid || cell.j >= grid) return;
  const uint32_t index = cell.j * grid + cell.i;
  const float4 position = vertices[2 * index];
  const float4 normal = vertices[2 * index + 1];
  const Vertex vertex{{position.x, position.y, position.z, position.w}, {normal.x, normal.y, normal.z, normal.w}};
  storeTexel(level0, cell.i, cell.j, surfaceTexel(vertex));
}

// Texel (x, y) of a level from the 2x2 texels above it, clamped to the
// level above's extent (writeSurfaceTexture's rule). The level above was
// written by the previous launch on the stream.
__global__ void downsampleTexelsKernel(cudaSurfaceObject_t above, uint32_t aboveWidth, uint32_t aboveHeight,
                                       cudaSurfaceObject_t here, uint32_t width, uint32_t height) {
  const CellIndex cell = threadCell();
  if (cell.i >= width || cell.j >= height) return;
  const uint32_t x0 = min(2 * cell.i, aboveWidth - 1), x1 = min(2 * cell.i + 1, aboveWidth - 1);
  const uint32_t y0 = min(2 * cell.j, aboveHeight - 1), y1 = min(2 * cell.j + 1, aboveHeight - 1);
  storeTexel(here, cell.i, cell.j,
             downsampleTexel(loadTexel(above, x0, y0), loadTexel(above, x1, y0), loadTexel(above, x0, y1),
                             loadTexel(above, x1, y1)));
}

inline dim3 texelBlocks(uint32_t width, uint32_t height) {
  return dim3((width + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY);
}

}  // namespace
}  // namespace vksim
