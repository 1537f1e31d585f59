// The simulation kernels, shared by the CUDA backend (cuda_simulation.cu) and
// the kernel benchmark (cuda_kernel_bench.cu), so that what is measured is
// what runs. Internal to sim/: included only by .cu files. Everything is in an
// anonymous namespace, so each including file gets its own copy of the kernels
// and no symbol is defined twice.
#pragma once
#include <cuda_runtime.h>

#include "sim/model_math.h"
#include "sim/models.h"

// The entry points that the cuda-nvx backend looks up by name
// (vkCreateCuFunctionNVX) are marked VKSIM_NVX_ENTRY: sim/cuda_nvx/nvx_kernels.cu
// defines it as extern "C" before including this header, so that their names
// stay unmangled in its module; everywhere else it is empty (the runtime path
// launches by pointer). Templates cannot have C linkage, which is why the
// mark is per kernel and not one extern "C" block around the header.
#ifndef VKSIM_NVX_ENTRY
#define VKSIM_NVX_ENTRY
#endif

namespace vksim {
namespace {

// Drops travel to addDropsKernel by value in the kernel parameters (no copy
// to device memory, nothing to synchronise); a step with more is split into
// several launches, applied in order.
constexpr uint32_t kMaxDropsPerLaunch = 8;
struct DropBatch {
  DropShape drops[kMaxDropsPerLaunch];
  uint32_t count;
};

// 32 threads along x (one warp per row segment: consecutive threads write
// consecutive vertices and read consecutive heights), 8 rows per block.
constexpr uint32_t kBlockX = 32, kBlockY = 8;

struct CellIndex {
  uint32_t i, j;
};
__device__ inline CellIndex threadCell() {
  return {blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y};
}

// Two aligned 16-byte stores per 32-byte vertex (shared_layout.h): one warp's
// two store instructions together cover 1 KiB of contiguous memory.
__device__ inline void storeVertex(float4* vertices, uint32_t cell, const Vertex& vertex) {
  vertices[2 * cell] =
      make_float4(vertex.position.x, vertex.position.y, vertex.position.z, vertex.position.w);
  vertices[2 * cell + 1] = make_float4(vertex.normal.x, vertex.normal.y, vertex.normal.z, vertex.normal.w);
}

// Adds the batch's drops, in order, to both fields of every interior cell: the
// same sequence of additions per cell as RippleModel::applyDrop.
VKSIM_NVX_ENTRY __global__ void addDropsKernel(float* __restrict__ current, float* __restrict__ previous, uint32_t grid,
                               DropBatch batch) {
  const CellIndex cell = threadCell();
  if (!isInteriorCell(cell.i, cell.j, grid)) return;
  const float x = gridCoordinate(cell.i, grid);
  const float z = gridCoordinate(cell.j, grid);
  const uint32_t index = cell.j * grid + cell.i;
  float currentHeight = current[index];
  float previousHeight = previous[index];
  for (uint32_t d = 0; d < batch.count; ++d) {
    const float height = dropHeight(batch.drops[d], x, z);
    currentHeight += height;
    previousHeight += height;
  }
  current[index] = currentHeight;
  previous[index] = previousHeight;
}

VKSIM_NVX_ENTRY __global__ void heightFieldVerticesKernel(const float* __restrict__ heights, uint32_t grid,
                                          float4* __restrict__ vertices) {
  const CellIndex cell = threadCell();
  if (cell.i >= grid || cell.j >= grid) return;
  storeVertex(vertices, cell.j * grid + cell.i, heightFieldVertex(heights, grid, cell.i, cell.j));
}

inline dim3 gridBlocks(uint32_t n) { return dim3((n + kBlockX - 1) / kBlockX, (n + kBlockY - 1) / kBlockY); }

// ---- Row kernels: what the backend runs every step.
//
// One block covers kRowThreads consecutive vertices of one row, so the block's
// vertices are one contiguous run of memory. Each thread computes its vertex
// into shared memory; the block then writes the run out so that each warp
// store covers 512 contiguous bytes (32 threads x 16 bytes), instead of each
// thread's two 16-byte stores landing 32 bytes apart.
constexpr uint32_t kRowThreads = 256;

inline dim3 rowBlocks(uint32_t n) { return dim3((n + kRowThreads - 1) / kRowThreads, n); }

struct RowSpan {
  uint32_t row, first, count;  // vertices first .. first+count-1 of row `row`
};
__device__ inline RowSpan blockRow(uint32_t grid) {
  const uint32_t first = blockIdx.x * kRowThreads;
  return {blockIdx.y, first, min(kRowThreads, grid - first)};
}

__device__ inline void stageVertex(float4* staged, uint32_t t, const Vertex& vertex) {
  staged[2 * t] = make_float4(vertex.position.x, vertex.position.y, vertex.position.z, vertex.position.w);
  staged[2 * t + 1] = make_float4(vertex.normal.x, vertex.normal.y, vertex.normal.z, vertex.normal.w);
}

// Every thread of the block must call this (it synchronises the block).
__device__ inline void storeStagedRow(float4* __restrict__ vertices, const float4* staged, RowSpan span,
                                      uint32_t grid) {
  __syncthreads();
  float4* out = vertices + 2 * (size_t(span.row) * grid + span.first);
  for (uint32_t k = threadIdx.x; k < 2 * span.count; k += kRowThreads) out[k] = staged[k];
}

// sinewaveKernel's arithmetic, with each column's and row's factor (a sinf or
// cosf) evaluated once per block instead of once per use: the same values, so
// the same bits as the CPU reference's sinewaveVertex.
VKSIM_NVX_ENTRY __global__ void __launch_bounds__(kRowThreads) sinewaveRowKernel(float4* __restrict__ vertices, SinewaveFrame frame) {
  __shared__ float factorX[kRowThreads + 2];  // columns first-1 .. first+count, clamped to the grid
  __shared__ float factorZ[3];                // the row's lower, centre and upper slope neighbours
  __shared__ float4 staged[2 * kRowThreads];
  const uint32_t n = frame.grid;
  const RowSpan span = blockRow(n);
  const uint32_t t = threadIdx.x;
  for (uint32_t s = t; s < span.count + 2; s += kRowThreads) {
    const int column = int(span.first) - 1 + int(s);
    factorX[s] = sinewaveFactorX(frame, uint32_t(column < 0 ? 0 : (column >= int(n) ? int(n) - 1 : column)));
  }
  if (t < 3) {
    const NeighbourPair alongZ = slopeNeighbours(span.row, n);
    factorZ[t] = sinewaveFactorZ(frame, t == 0 ? alongZ.lower : (t == 1 ? span.row : alongZ.upper));
  }
  __syncthreads();
  if (t < span.count) {
    const uint32_t i = span.first + t;
    const NeighbourPair alongX = slopeNeighbours(i, n);
    // factorX[s] holds column first - 1 + s (unsigned wrap-around cancels).
    const AxisFactors x{factorX[alongX.lower - span.first + 1], factorX[t + 1], factorX[alongX.upper - span.first + 1]};
    const AxisFactors z{factorZ[0], factorZ[1], factorZ[2]};
    stageVertex(staged, t, sinewaveVertex(frame, i, span.row, x, z));
  }
  storeStagedRow(vertices, staged, span, n);
}

// One whole ripple step in one pass: the next height of the thread's cell and
// of its slope neighbours (recomputed from the same inputs, so bitwise the
// values their own threads write), then the vertex. Reads current and
// previous, writes next and the vertex: each byte the step must move, once
// (44 bytes a vertex), instead of a second pass reading the heights back.
// `next` must not alias `previous`: neighbours read previous heights that
// another block would otherwise already have overwritten.
VKSIM_NVX_ENTRY __global__ void __launch_bounds__(kRowThreads)
    rippleStepRowKernel(const float* __restrict__ current, const float* __restrict__ previous,
                        float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                        float4* __restrict__ vertices) {
  __shared__ float4 staged[2 * kRowThreads];
  const RowSpan span = blockRow(grid);
  const uint32_t t = threadIdx.x;
  if (t < span.count) {
    const uint32_t i = span.first + t, j = span.row;
    const auto nextHeight = [&](uint32_t ci, uint32_t cj) {
      return rippleNextHeight(current, previous[cj * grid + ci], grid, ci, cj, coefficients);
    };
    const float height = nextHeight(i, j);
    next[j * grid + i] = height;
    const NeighbourPair alongX = slopeNeighbours(i, grid);
    const NeighbourPair alongZ = slopeNeighbours(j, grid);
    const float spacing = gridSpacing(grid);
    // The same slopes as heightFieldVertex over the next field.
    const float slopeX = finiteDifferenceSlope(alongX.lower == i ? height : nextHeight(alongX.lower, j),
                                               alongX.upper == i ? height : nextHeight(alongX.upper, j), alongX,
                                               spacing);
    const float slopeZ = finiteDifferenceSlope(alongZ.lower == j ? height : nextHeight(i, alongZ.lower),
                                               alongZ.upper == j ? height : nextHeight(i, alongZ.upper), alongZ,
                                               spacing);
    const Vertex vertex{{gridCoordinate(i, grid), height, gridCoordinate(j, grid), 1.0f},
                        surfaceNormal(slopeX, slopeZ)};
    stageVertex(staged, t, vertex);
  }
  storeStagedRow(vertices, staged, span, grid);
}


// ---- Tile kernels: candidates measured against the row kernels above.
//
// Bytes a step must move (minimumStepBytes, cuda_kernel_bench.h), counted
// from what a step reads and writes exactly once in device memory:
//   ripple   4 (current) + 4 (previous) + 4 (next) + 32 (vertex) = 44 per cell
//   sinewave 32 (vertex) per cell: nothing is read
// The row kernel reaches those counts in DRAM but not in instructions: each
// thread computes its own next height and its four neighbours' again, each
// from five loads of `current` (25 loads and 5 stencils a cell, served by L1
// and L2). A tile kernel covers W columns x R rows: it loads the current
// heights of the tile and a two-cell halo into shared memory once, computes
// each next height of the tile and a one-cell halo once, then derives each
// vertex from the shared next heights. Halo rows are read again by the tile
// below or above, mostly from L2, which holds many rows of the field.
//
// Every warp stores 32 consecutive vertices through a warp-private staging
// area, so that each store instruction covers 512 contiguous bytes with no
// __syncthreads. With Streaming, the vertex stores carry the evict-first hint
// (st.global.cs): nothing in the step reads them again, and they need not push
// the height fields out of L2.
constexpr uint32_t kTileThreads = 256;
constexpr uint32_t kTileWarps = kTileThreads / 32;

template <uint32_t W, uint32_t R>
inline dim3 tileBlocks(uint32_t n) {
  return dim3((n + W - 1) / W, (n + R - 1) / R);
}

// The lane's vertex goes through the warp's staging area (64 float4) to
// `out` (the first vertex of the warp's run); `count` of the 32 are in the
// grid. Every lane of the warp calls this.
template <bool Streaming>
__device__ inline void storeWarpVertices(float4* staging, float4* __restrict__ out, uint32_t count,
                                         const Vertex& vertex) {
  const uint32_t lane = threadIdx.x & 31u;
  stageVertex(staging, lane, vertex);
  __syncwarp();
  for (uint32_t k = lane; k < 2 * count; k += 32) {
    if constexpr (Streaming)
      __stcs(out + k, staging[k]);
    else
      out[k] = staging[k];
  }
  __syncwarp();
}

template <uint32_t W, uint32_t R, bool Streaming>
__global__ void __launch_bounds__(kTileThreads)
    rippleStepTileKernel(const float* __restrict__ current, const float* __restrict__ previous,
                         float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                         float4* __restrict__ vertices) {
  static_assert(W % 32 == 0, "a warp covers 32 vertices of one row");
  constexpr uint32_t kCurrentWidth = W + 4, kCurrentRows = R + 4;  // two-cell halo
  constexpr uint32_t kNextWidth = W + 2, kNextRows = R + 2;        // one-cell halo
  __shared__ float tileCurrent[kCurrentRows * kCurrentWidth];
  __shared__ float tileNext[kNextRows * kNextWidth];
  __shared__ float4 staging[kTileWarps][64];
  const int i0 = int(blockIdx.x * W), j0 = int(blockIdx.y * R);
  const int n = int(grid);

  for (uint32_t k = threadIdx.x; k < kCurrentRows * kCurrentWidth; k += kTileThreads) {
    const int i = i0 - 2 + int(k % kCurrentWidth), j = j0 - 2 + int(k / kCurrentWidth);
    tileCurrent[k] = (i >= 0 && j >= 0 && i < n && j < n) ? current[size_t(j) * grid + i] : 0.0f;
  }
  __syncthreads();
  for (uint32_t k = threadIdx.x; k < kNextRows * kNextWidth; k += kTileThreads) {
    const uint32_t x = k % kNextWidth, y = k / kNextWidth;
    const int i = i0 - 1 + int(x), j = j0 - 1 + int(y);
    float height = 0.0f;  // the edges stay 0 (rippleNextHeight); cells outside the grid are never read
    if (i > 0 && j > 0 && i + 1 < n && j + 1 < n) {
      const uint32_t c = (y + 1) * kCurrentWidth + (x + 1);
      height = rippleNextFromNeighbours(tileCurrent[c], tileCurrent[c - 1], tileCurrent[c + 1],
                                        tileCurrent[c - kCurrentWidth], tileCurrent[c + kCurrentWidth],
                                        previous[size_t(j) * grid + i], coefficients);
    }
    tileNext[k] = height;
  }
  __syncthreads();
  for (uint32_t k = threadIdx.x; k < W * R; k += kTileThreads) {
    const uint32_t i = uint32_t(i0) + k % W, j = uint32_t(j0) + k / W;
    if (i < grid && j < grid) next[size_t(j) * grid + i] = tileNext[(k / W + 1) * kNextWidth + k % W + 1];
  }
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  const float spacing = gridSpacing(grid);
  for (uint32_t base = warp * 32; base < W * R; base += kTileThreads) {
    const uint32_t row = base / W, column = base % W;  // the warp's run: columns column .. column+31 of row
    const uint32_t j = uint32_t(j0) + row, firstI = uint32_t(i0) + column;
    if (j >= grid || firstI >= grid) continue;  // the whole warp skips together
    const uint32_t i = min(firstI + lane, grid - 1);  // lanes past the edge compute a copy, never stored
    const auto nextAt = [&](uint32_t ci, uint32_t cj) {
      return tileNext[(cj - uint32_t(j0) + 1) * kNextWidth + (ci - uint32_t(i0) + 1)];
    };
    const NeighbourPair alongX = slopeNeighbours(i, grid);
    const NeighbourPair alongZ = slopeNeighbours(j, grid);
    const float height = nextAt(i, j);
    const float slopeX = finiteDifferenceSlope(nextAt(alongX.lower, j), nextAt(alongX.upper, j), alongX, spacing);
    const float slopeZ = finiteDifferenceSlope(nextAt(i, alongZ.lower), nextAt(i, alongZ.upper), alongZ, spacing);
    const Vertex vertex{{gridCoordinate(i, grid), height, gridCoordinate(j, grid), 1.0f},
                        surfaceNormal(slopeX, slopeZ)};
    storeWarpVertices<Streaming>(staging[warp], vertices + 2 * (size_t(j) * grid + firstI),
                                 min(32u, grid - firstI), vertex);
  }
}

template <uint32_t W, uint32_t R, bool Streaming>
__global__ void __launch_bounds__(kTileThreads) sinewaveTileKernel(float4* __restrict__ vertices,
                                                                   SinewaveFrame frame) {
  static_assert(W % 32 == 0, "a warp covers 32 vertices of one row");
  __shared__ float factorX[W + 2];  // columns i0-1 .. i0+W, clamped to the grid
  __shared__ float factorZ[R + 2];  // rows j0-1 .. j0+R, clamped to the grid
  __shared__ float4 staging[kTileWarps][64];
  const uint32_t n = frame.grid;
  const int i0 = int(blockIdx.x * W), j0 = int(blockIdx.y * R);
  const auto clampIndex = [&](int index) { return uint32_t(index < 0 ? 0 : (index >= int(n) ? int(n) - 1 : index)); };
  for (uint32_t k = threadIdx.x; k < W + 2 + R + 2; k += kTileThreads) {
    if (k < W + 2)
      factorX[k] = sinewaveFactorX(frame, clampIndex(i0 - 1 + int(k)));
    else
      factorZ[k - (W + 2)] = sinewaveFactorZ(frame, clampIndex(j0 - 1 + int(k - (W + 2))));
  }
  __syncthreads();
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31u;
  for (uint32_t base = warp * 32; base < W * R; base += kTileThreads) {
    const uint32_t row = base / W, column = base % W;
    const uint32_t j = uint32_t(j0) + row, firstI = uint32_t(i0) + column;
    if (j >= n || firstI >= n) continue;
    const uint32_t i = min(firstI + lane, n - 1);
    const NeighbourPair alongX = slopeNeighbours(i, n);
    const NeighbourPair alongZ = slopeNeighbours(j, n);
    // factorX[s] holds column i0 - 1 + s (unsigned wrap-around cancels).
    const AxisFactors x{factorX[alongX.lower - uint32_t(i0) + 1], factorX[i - uint32_t(i0) + 1],
                        factorX[alongX.upper - uint32_t(i0) + 1]};
    const AxisFactors z{factorZ[alongZ.lower - uint32_t(j0) + 1], factorZ[j - uint32_t(j0) + 1],
                        factorZ[alongZ.upper - uint32_t(j0) + 1]};
    storeWarpVertices<Streaming>(staging[warp], vertices + 2 * (size_t(j) * n + firstI), min(32u, n - firstI),
                                 sinewaveVertex(frame, i, j, x, z));
  }
}

// Each candidate as a type: the kernel's address (for loading it before the
// first external wait: the lazy-loading trap in docs/design.md) and its
// launch with the row kernels' arguments.
struct RippleRowStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&rippleStepRowKernel); }
  static void launch(const float* current, const float* previous, float* next, uint32_t grid,
                     RippleCoefficients coefficients, float4* vertices, cudaStream_t stream) {
    rippleStepRowKernel<<<rowBlocks(grid), kRowThreads, 0, stream>>>(current, previous, next, grid, coefficients,
                                                                     vertices);
  }
};
template <uint32_t W, uint32_t R, bool Streaming>
struct RippleTileStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&rippleStepTileKernel<W, R, Streaming>); }
  static void launch(const float* current, const float* previous, float* next, uint32_t grid,
                     RippleCoefficients coefficients, float4* vertices, cudaStream_t stream) {
    rippleStepTileKernel<W, R, Streaming>
        <<<tileBlocks<W, R>(grid), kTileThreads, 0, stream>>>(current, previous, next, grid, coefficients, vertices);
  }
};
struct SinewaveRowStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&sinewaveRowKernel); }
  static void launch(float4* vertices, SinewaveFrame frame, cudaStream_t stream) {
    sinewaveRowKernel<<<rowBlocks(frame.grid), kRowThreads, 0, stream>>>(vertices, frame);
  }
};
template <uint32_t W, uint32_t R, bool Streaming>
struct SinewaveTileStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&sinewaveTileKernel<W, R, Streaming>); }
  static void launch(float4* vertices, SinewaveFrame frame, cudaStream_t stream) {
    sinewaveTileKernel<W, R, Streaming><<<tileBlocks<W, R>(frame.grid), kTileThreads, 0, stream>>>(vertices, frame);
  }
};

// What the CUDA backend runs (cuda_simulation.cu): one line each, chosen
// from kernel_bench's comparison on the target GPU (docs/benchmarks.md).
using BackendRippleStep = RippleRowStep;
using BackendSinewaveStep = SinewaveRowStep;

}  // namespace
}  // namespace vksim
