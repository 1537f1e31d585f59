// The ripple step configuration that the backends run (BackendRippleConfig in
// cuda_kernels.cuh): RippleWarpRows, one warp a 32-column strip of R rows,
// sharing its loads by register shuffles. kernel_bench measures it against
// the other candidates (lab/cuda/kernel_candidates.cuh) at several R. Internal
// to sim/ and lab/: included only by .cu files, through cuda_kernels.cuh.
#pragma once
#include <cuda_runtime.h>

#include "sim/cuda/cuda_kernel_parts.cuh"
#include "sim/model_math.h"

namespace vksim {
namespace {

// ---- Warp kernels: no block-wide barrier.
//
// The tiles and strips share their loads across the block through shared
// memory, so every thread waits at a __syncthreads for the slowest load of
// the block before it computes, and again before it stores. A warp kernel
// shares only within a warp, by register shuffles, so each warp runs at the
// pace of its own loads. Warp w of a block covers the 32 columns i0 .. i0+31
// of R consecutive rows j0 .. j0+R-1 (the block's 8 warps are stacked: the
// block covers 32 columns x 8R rows, so the rows one warp reads above and
// below its own are mostly the rows its neighbours load, from L1). Each lane
// keeps its column's window in registers, all of it loaded before the first
// shuffle (so that every load of its R rows can be in flight at once):
//   current (i, j0-2 .. j0+R+1)  the stencils' centre, below and above
//   previous(i, j0-1 .. j0+R)    for the next heights of rows j0-1 .. j0+R
// and computes next(i, r) for r = j0-1 .. j0+R once; the left and right
// current heights, and the left and right next heights of the horizontal
// slope, come from the neighbouring lanes. The columns just outside the
// warp (i0-1 for lane 0, i0+32 for lane 31) are the edge lanes' own: they
// load that column's current heights (and the one beyond it, i0-2 or i0+33,
// for its next heights) and compute its next heights. Every value goes
// through the same expression as in the tiles (rippleNextFromNeighbours with
// the same arguments, 0 outside the interior), so the bits are the row
// kernel's. R = 1 is the plain warp-per-row-segment kernel: five current
// loads and three previous loads a lane. The window costs registers, so a
// larger R trades resident warps for loads per cell (ptxas for sm_90: the
// checked body alone 59 registers a thread at R = 4; with the interior path
// 72 uncapped, 63 capped for four blocks an SM, and capped for five, 48 at
// R = 3 with no spill and 48 at R = 4 with 8 bytes spilled; for sm_120 the
// backends' R = 3 capped for five spills 16 bytes).
//
// Every shuffle runs with the full mask: lanes past the grid's last column
// compute on a copy of column n-1 and skip only their stores, and whole warps
// past the last row leave together, before the first shuffle.
//
// InteriorPath: most warps touch no edge of the grid: every cell whose next
// height they compute (columns i0-1 .. i0+32, rows j0-1 .. j0+R) is interior,
// every height they load is in the grid, every lane's column is in it and
// every slope is a central difference. Those warps run rows<true>, where
// each of those tests is a constant and compiles away: the bounds checks and
// the selects around each load were a large share of the kernel's
// instructions, and the kernel issues about as many instructions as the
// memory system has time for (docs/results/2026-12-02-kernels.md). The other
// warps run rows<false>, the checked body. Both compute
// the same expressions on the same values, so the bits do not depend on the
// path. MinBlocks is __launch_bounds__'s blocks per SM (registers capped so
// that many fit).
template <uint32_t R, bool Streaming, HeightLoads Loads = HeightLoads::plain, bool InteriorPath = false,
          uint32_t MinBlocks = 1>
struct RippleWarpRows {
  static_assert(R >= 1, "a warp covers at least one row");
  // Wider windows (R = 5, 6, 8) did not write the row kernel's bits on the
  // H200, and racecheck saw hazards in their staging area; the cause is not
  // found (docs/results/2026-12-02-kernels.md has what was seen), so they are
  // refused.
  static_assert(R <= 4, "R > 4 is not bit-identical on the H200 (cause unknown)");
  static constexpr uint32_t kThreads = kTileThreads;
  static constexpr uint32_t kMinBlocks = MinBlocks;
  static constexpr uint32_t kWarps = kThreads / 32;
  static_assert(kWarps * 64 * sizeof(float4) <= 48 * 1024,
                "static shared memory: the cuda-nvx launch passes sharedMemBytes 0");

  static dim3 blocks(uint32_t grid) { return dim3((grid + 31) / 32, (grid + kWarps * R - 1) / (kWarps * R)); }

  static constexpr uint32_t kBlockRows = kWarps * R;

  __device__ static void step(const float* __restrict__ current, const float* __restrict__ previous,
                              float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                              float4* __restrict__ vertices) {
    __shared__ float4 staging[kWarps][64];
    const int n = int(grid);
    const uint32_t warp = threadIdx.x / 32;
    const int j0 = int((blockIdx.y * kWarps + warp) * R);
    if (j0 >= n) return;  // the whole warp leaves together, before any shuffle
    warpRows<false>(current, previous, next, grid, coefficients, vertices, staging[warp], j0, nullptr);
  }

  // The same step writing the first levels of the surface texture
  // (sim/surface_texture.h) too: texel (i, j) of level 0 from vertex (i, j)
  // while it is still in registers, into shared memory; then, from the
  // block's level-0 texels there, level 0 and the levels below it that the
  // block covers whole (levels 1 .. texels.count-1) to their surfaces. The
  // block's corner is (32 bx, kBlockRows by) in level 0, even on every level
  // written here, so each texel's four texels above are the block's own.
  __device__ static void stepWithTexels(const float* __restrict__ current, const float* __restrict__ previous,
                                        float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                                        float4* __restrict__ vertices, TexelLevels texels) {
    static_assert(kBlockRows % (1u << (kStepTexelLevels - 1)) == 0, "the block's rows halve on every level");
    __shared__ float4 staging[kWarps][64];
    __shared__ uchar4 level0[kBlockRows * 32];
    const uint32_t warp = threadIdx.x / 32;
    const int j0 = int((blockIdx.y * kWarps + warp) * R);
    // A warp past the last row computes nothing but still meets the block's
    // barriers below.
    if (j0 < int(grid))
      warpRows<true>(current, previous, next, grid, coefficients, vertices, staging[warp], j0, level0 + warp * R * 32);
    // Levels 1-3 are kept in the vertex staging area, free once every warp
    // has stored its vertices (writeBlockMips' first barrier). Buffers of
    // their own made the block 12,224 bytes of shared memory; cuda-nvx's
    // launch, from Vulkan's queue, then held three blocks an SM where CUDA's
    // held four, and its step ran 0.13 ms longer at 8192² on an H100. At
    // 11,264 bytes both ran alike (docs/benchmarks.md, "Why cuda-nvx's cost
    // more, and what changed it").
    writeBlockMips(level0, reinterpret_cast<uchar4*>(&staging[0][0]), texels, grid);
  }

  // The warp's rows, through the interior body when the whole warp is
  // interior.
  template <bool Texels>
  __device__ static void warpRows(const float* __restrict__ current, const float* __restrict__ previous,
                                  float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                                  float4* __restrict__ vertices, float4* staging, int j0, uchar4* texelRows) {
    const int n = int(grid);
    const int i0 = int(blockIdx.x * 32);
    if constexpr (InteriorPath) {
      if (i0 >= 2 && i0 + 34 <= n && j0 >= 2 && j0 + int(R) + 2 <= n) {  // the same for every lane
        rows<true, Texels>(current, previous, next, grid, coefficients, vertices, staging, i0, j0, texelRows);
        return;
      }
    }
    rows<false, Texels>(current, previous, next, grid, coefficients, vertices, staging, i0, j0, texelRows);
  }

  // Levels 0 .. texels.count-1 of the block's part of the texture from its
  // level-0 texels (`level0`, kBlockRows rows of 32), each level below 0
  // kept in shared memory for the next, in `spare` (shared memory whose
  // earlier use has ended for every thread at the first barrier below; from
  // there on it is the levels'). Every thread of the block calls it.
  __device__ static void writeBlockMips(const uchar4* level0, uchar4* spare, const TexelLevels& texels,
                                        uint32_t grid) {
    static_assert(kStepTexelLevels == 4, "levels 1, 2 and 3 below");
    static_assert(((kBlockRows / 2) * 16 + (kBlockRows / 4) * 8) * sizeof(uchar4) <= kWarps * 64 * sizeof(float4),
                  "levels 1-3 fit the staging area");
    uchar4* odd = spare;                           // levels 1 and 3
    uchar4* even = spare + (kBlockRows / 2) * 16;  // level 2
    // Each barrier: the level above is complete in shared memory, and the
    // last readers of the buffer the next level overwrites are done.
    __syncthreads();
    writeBlockLevel0(level0, texels.level[0], grid);
    // One call per level, so that each surface is a constant index of the
    // kernel's parameter (a loop kept the array in local memory).
    if (texels.count > 1) writeBlockMip<1>(level0, odd, texels.level[1], grid);
    if (texels.count > 2) {
      __syncthreads();
      writeBlockMip<2>(odd, even, texels.level[2], grid);
    }
    if (texels.count > 3) {
      __syncthreads();
      writeBlockMip<3>(even, odd, texels.level[3], grid);
    }
  }

  // Level 0 of the block's part, from shared memory, each warp store 16
  // columns of two rows. Why not row by row from the step's registers: an
  // array's layout is opaque (CUDA's word), and in kernel_bench's traffic
  // kernel level 0 stored one row of 32 texels a warp store cost about
  // twice what stores of 16 columns of two rows cost (docs/benchmarks.md,
  // "Why level 0 costs twice its bytes").
  __device__ static void writeBlockLevel0(const uchar4* level0, cudaSurfaceObject_t surface, uint32_t grid) {
    static_assert(kBlockRows % 2 == 0, "the block's rows pair up");
    const uint32_t lane = threadIdx.x & 31u, x0 = blockIdx.x * 32, y0 = blockIdx.y * kBlockRows;
    // kBlockRows row pairs of 16 columns: tile t covers columns 16 (t % 2)
    // .. +15 of rows 2 (t / 2) and the one below.
    for (uint32_t tile = threadIdx.x / 32; tile < kBlockRows; tile += kWarps) {
      const uint32_t x = (tile % 2) * 16 + lane % 16, y = (tile / 2) * 2 + lane / 16;
      if (x0 + x < grid && y0 + y < grid)
        storeSurfaceTexel(surface, x0 + x, y0 + y, unpackTexel(level0[y * 32 + x]));
    }
  }

  // Level `Level` of the block's part from the level above (`above`, in
  // shared memory), by downsampleTexel with writeSurfaceTextureMips's
  // clamping, into `here` and the level's surface. The caller's barrier
  // comes first.
  template <uint32_t Level>
  __device__ static void writeBlockMip(const uchar4* above, uchar4* here, cudaSurfaceObject_t surface,
                                       uint32_t grid) {
    constexpr uint32_t pitch = 32u >> Level, rows = kBlockRows >> Level, abovePitch = pitch * 2;
    const uint32_t extent = max(grid >> Level, 1u), aboveExtent = max(grid >> (Level - 1), 1u);
    const uint32_t x0 = blockIdx.x * pitch, y0 = blockIdx.y * rows;  // the block's corner on this level
    const auto at = [&](uint32_t ax, uint32_t ay) {
      return unpackTexel(
          above[(min(ay, aboveExtent - 1) - 2 * y0) * abovePitch + min(ax, aboveExtent - 1) - 2 * x0]);
    };
    for (uint32_t t = threadIdx.x; t < pitch * rows; t += kThreads) {
      const uint32_t x = x0 + t % pitch, y = y0 + t / pitch;
      if (x >= extent || y >= extent) continue;  // square levels
      const Texel texel =
          downsampleTexel(at(2 * x, 2 * y), at(2 * x + 1, 2 * y), at(2 * x, 2 * y + 1), at(2 * x + 1, 2 * y + 1));
      here[t] = packTexel(texel);
      storeSurfaceTexel(surface, x, y, texel);
    }
  }

  // Texels: texel (i, j) of level 0 from each vertex, to texelRows (R rows
  // of 32: the warp's rows of the block's texels, in shared memory).
  template <bool Interior, bool Texels>
  __device__ static void rows(const float* __restrict__ current, const float* __restrict__ previous,
                              float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                              float4* __restrict__ vertices, float4* staging, int i0, int j0, uchar4* texelRows) {
    constexpr unsigned kAllLanes = 0xffffffffu;
    const int n = int(grid);
    const uint32_t lane = threadIdx.x & 31u;
    // Lanes past the edge compute a copy of column n-1, never stored.
    const int i = Interior ? i0 + int(lane) : min(i0 + int(lane), n - 1);
    // Lanes 0 and 31 also cover the column just outside the warp (halo) and
    // the one beyond it (outer), which the halo's stencil needs.
    const bool edgeLane = lane == 0 || lane == 31;
    const int haloColumn = lane == 0 ? i0 - 1 : i0 + 32;
    const int outerColumn = lane == 0 ? i0 - 2 : i0 + 33;

    const auto isInterior = [&](int ci, int cj) {
      return Interior || (ci > 0 && cj > 0 && ci + 1 < n && cj + 1 < n);
    };
    const auto currentAt = [&](int ci, int cj) {
      return (Interior || (ci >= 0 && cj >= 0 && ci < n && cj < n))
                 ? loadCurrent<Loads>(current, size_t(cj) * grid + ci)
                 : 0.0f;
    };
    // Only interior cells' previous heights are read: the edges' next
    // heights are 0 whatever their previous ones.
    const auto previousAt = [&](int ci, int cj) {
      return isInterior(ci, cj) ? loadPrevious<Loads>(previous, size_t(cj) * grid + ci) : 0.0f;
    };

    float columnCurrent[R + 4];   // current(i, j0 - 2 + m)
    float columnPrevious[R + 2];  // previous(i, j0 - 1 + m)
    float haloCurrent[R + 2];     // edge lanes: current(haloColumn, j0 - 1 + m)
    float outerCurrent[R];        // edge lanes: current(outerColumn, j0 + m)
    float haloPrevious[R];        // edge lanes: previous(haloColumn, j0 + m)
#pragma unroll
    for (uint32_t m = 0; m < R + 4; ++m) columnCurrent[m] = currentAt(i, j0 - 2 + int(m));
#pragma unroll
    for (uint32_t m = 0; m < R + 2; ++m) {
      columnPrevious[m] = previousAt(i, j0 - 1 + int(m));
      haloCurrent[m] = edgeLane ? currentAt(haloColumn, j0 - 1 + int(m)) : 0.0f;
    }
#pragma unroll
    for (uint32_t m = 0; m < R; ++m) {
      const bool haloInterior = edgeLane && isInterior(haloColumn, j0 + int(m));
      outerCurrent[m] = haloInterior ? currentAt(outerColumn, j0 + int(m)) : 0.0f;
      haloPrevious[m] = haloInterior ? previousAt(haloColumn, j0 + int(m)) : 0.0f;
    }

    // Next heights of the lane's column, rows j0-1 .. j0+R.
    float columnNext[R + 2];
#pragma unroll
    for (uint32_t m = 0; m < R + 2; ++m) {
      const float centre = columnCurrent[m + 1];
      float left = __shfl_up_sync(kAllLanes, centre, 1);
      float right = __shfl_down_sync(kAllLanes, centre, 1);
      if (lane == 0) left = haloCurrent[m];
      if (lane == 31) right = haloCurrent[m];
      columnNext[m] = isInterior(i, j0 - 1 + int(m))
                          ? rippleNextFromNeighbours(centre, left, right, columnCurrent[m], columnCurrent[m + 2],
                                                     columnPrevious[m], coefficients)
                          : 0.0f;
    }
    // Edge lanes: next heights of the halo column, rows j0 .. j0+R-1. When
    // the halo is interior, the lane's own column is in the grid (lane 31
    // is then no copy), so its current height is the halo's inner neighbour.
    float haloNext[R];
#pragma unroll
    for (uint32_t m = 0; m < R; ++m) {
      haloNext[m] = 0.0f;
      if (edgeLane && isInterior(haloColumn, j0 + int(m))) {
        const float inner = columnCurrent[m + 2], outer = outerCurrent[m];
        haloNext[m] = rippleNextFromNeighbours(haloCurrent[m + 1], lane == 0 ? outer : inner,
                                               lane == 0 ? inner : outer, haloCurrent[m], haloCurrent[m + 2],
                                               haloPrevious[m], coefficients);
      }
    }

    const float spacing = gridSpacing(grid);
    const uint32_t column = uint32_t(i);
    // In the interior every slope is central: the pair slopeNeighbours gives.
    const NeighbourPair alongX = Interior ? NeighbourPair{column - 1, column + 1} : slopeNeighbours(column, grid);
    const bool inGrid = Interior || i0 + int(lane) < n;
    const uint32_t count = Interior ? 32u : min(32u, grid - uint32_t(i0));
    // Every lane needs row j's z coordinate, a division: lane m computes row
    // j0+m's once, and the row's lanes take it by shuffle (the same bits).
    const float laneRowCoordinate = gridCoordinate(uint32_t(j0) + min(lane, R - 1), grid);
    const float x = gridCoordinate(column, grid);
#pragma unroll
    for (uint32_t m = 0; m < R; ++m) {
      const uint32_t j = uint32_t(j0) + m;
      if (!Interior && j >= grid) break;  // the same row for every lane of the warp
      const float height = columnNext[m + 1];
      if (inGrid) next[size_t(j) * grid + column] = height;
      const float fromLeft = __shfl_up_sync(kAllLanes, height, 1);
      const float fromRight = __shfl_down_sync(kAllLanes, height, 1);
      const NeighbourPair alongZ = Interior ? NeighbourPair{j - 1, j + 1} : slopeNeighbours(j, grid);
      // The same slopes as heightFieldVertex over the next field: a
      // neighbour that is the cell itself (at an edge) is its own height.
      const float lowerX = (!Interior && alongX.lower == column) ? height : (lane == 0 ? haloNext[m] : fromLeft);
      const float upperX = (!Interior && alongX.upper == column) ? height : (lane == 31 ? haloNext[m] : fromRight);
      const float lowerZ = (!Interior && alongZ.lower == j) ? height : columnNext[m];
      const float upperZ = (!Interior && alongZ.upper == j) ? height : columnNext[m + 2];
      const float z = __shfl_sync(kAllLanes, laneRowCoordinate, m);
      const Vertex vertex{{x, height, z, 1.0f},
                          surfaceNormal(finiteDifferenceSlope(lowerX, upperX, alongX, spacing),
                                        finiteDifferenceSlope(lowerZ, upperZ, alongZ, spacing))};
      storeWarpVertices<Streaming>(staging, vertices + 2 * (size_t(j) * grid + uint32_t(i0)), count, vertex);
      if constexpr (Texels) texelRows[m * 32 + lane] = packTexel(surfaceTexel(vertex));
    }
  }
};

}  // namespace
}  // namespace vksim
