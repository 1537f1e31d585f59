// The surface texture's kernels (sim/surface_texture.h): level 0 from the
// vertices just written, then each lower level from the one above, all
// through surface objects on the levels of the mipmapped array mapped from
// the renderer's image. The arithmetic is sim/model_math.h's, the CPU
// reference's. Internal to sim/cuda/ (cuda_model_launches.cu), sim/cuda_nvx/
// (whose module holds downsampleLevelsKernel) and the lab's kernel bench
// (lab/cuda/cuda_kernel_bench.cu), which times them as the backend launches
// them.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

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

// Levels `first` .. first+count-1 of the texture, each from the one above
// (writeSurfaceTexture's rule, downsampleTexel), in ONE launch: each block
// owns a kDownsampleTile-square tile of level `first` and the tiles below it
// (half as wide on each level), keeps each level's tile in shared memory for
// the next, and reads only level first-1 from its surface. A block's tile on
// every level is the parent of its tile on the next, so no block waits for
// another; count <= kDownsampleLevelsALaunch, the levels on which the tile
// is still at least one texel wide. One launch instead of one a level: at
// 8192² the 10 levels below the step's 4 are 2 launches, not 10.
inline constexpr uint32_t kDownsampleTile = 16;
inline constexpr uint32_t kDownsampleLevelsALaunch = 5;  // tiles of 16, 8, 4, 2 and 1 texels a side
inline constexpr uint32_t kDownsampleThreads = kDownsampleTile * kDownsampleTile;
struct DownsampleLevels {
  cudaSurfaceObject_t above;  // level first-1
  cudaSurfaceObject_t level[kDownsampleLevelsALaunch];
  uint32_t aboveExtent;  // level first-1's side: the levels are square, each max(1, side >> 1)
  uint32_t count;
};

VKSIM_NVX_ENTRY __global__ void __launch_bounds__(kDownsampleThreads) downsampleLevelsKernel(DownsampleLevels levels) {
  __shared__ uchar4 tiles[2][kDownsampleThreads];  // level k's tile in tiles[k % 2], read by level k+1
  uint32_t pitch = kDownsampleTile, aboveExtent = levels.aboveExtent;
  uint32_t x0 = blockIdx.x * kDownsampleTile, y0 = blockIdx.y * kDownsampleTile;  // the tile's corner
  const uint32_t t = threadIdx.x;
  for (uint32_t k = 0; k < levels.count; ++k) {
    const uint32_t extent = max(aboveExtent >> 1, 1u);
    const uint32_t x = x0 + t % pitch, y = y0 + t / pitch;
    if (t < pitch * pitch && x < extent && y < extent) {
      // The clamp of writeSurfaceTexture; on these square levels it never
      // acts (model_math.h), so every texel read is inside the block's tile
      // of the level above.
      const auto at = [&](uint32_t ax, uint32_t ay) {
        ax = min(ax, aboveExtent - 1);
        ay = min(ay, aboveExtent - 1);
        return k == 0 ? loadTexel(levels.above, ax, ay)
                      : unpackTexel(tiles[(k - 1) % 2][(ay - 2 * y0) * (2 * pitch) + (ax - 2 * x0)]);
      };
      const Texel texel =
          downsampleTexel(at(2 * x, 2 * y), at(2 * x + 1, 2 * y), at(2 * x, 2 * y + 1), at(2 * x + 1, 2 * y + 1));
      tiles[k % 2][t] = packTexel(texel);
      storeTexel(levels.level[k], x, y, texel);
    }
    // Level k's tile is complete before level k+1 reads it, and level k-1's
    // readers are done before level k+1 overwrites its buffer.
    __syncthreads();
    aboveExtent = extent;
    pitch /= 2;
    x0 /= 2;
    y0 /= 2;
  }
}

inline dim3 texelBlocks(uint32_t width, uint32_t height) {
  return dim3((width + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY);
}

// The launches that write levels firstLevel .. levels-1 of a texture whose
// level 0 is `extent0` square, from level firstLevel-1 (already written),
// through `surfaces` (one a level): the arguments and grid of each
// downsampleLevelsKernel launch, in order. The CUDA backend launches them on
// its stream (cuda_model_launches.cu), the cuda-nvx backend records them
// (sim/cuda_nvx/), kernel_bench times them: one plan, so all three run the
// same launches.
struct DownsampleLaunch {
  DownsampleLevels levels;
  dim3 blocks;
};
template <typename Surfaces>
std::vector<DownsampleLaunch> downsampleLaunches(const Surfaces& surfaces, uint32_t levelCount, uint32_t extent0,
                                                 uint32_t firstLevel) {
  std::vector<DownsampleLaunch> launches;
  for (uint32_t first = firstLevel; first < levelCount; first += kDownsampleLevelsALaunch) {
    DownsampleLaunch launch{};
    launch.levels.above = surfaces[first - 1];
    launch.levels.aboveExtent = std::max(extent0 >> (first - 1), 1u);
    launch.levels.count = std::min(kDownsampleLevelsALaunch, levelCount - first);
    for (uint32_t k = 0; k < launch.levels.count; ++k) launch.levels.level[k] = surfaces[first + k];
    const uint32_t tiles = (std::max(extent0 >> first, 1u) + kDownsampleTile - 1) / kDownsampleTile;
    launch.blocks = dim3(tiles, tiles);
    launches.push_back(launch);
  }
  return launches;
}

}  // namespace
}  // namespace vksim
