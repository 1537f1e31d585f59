// The simulation kernels, shared by the CUDA backend (cuda_simulation.cu) and
// the kernel benchmark (cuda_kernel_bench.cu), so that what is measured is
// what runs. Internal to sim/: included only by .cu files. Everything is in an
// anonymous namespace, so each including file gets its own copy of the kernels
// and no symbol is defined twice.
#pragma once
#include <cuda_runtime.h>

#include "sim/model_math.h"
#include "sim/models.h"

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
__global__ void addDropsKernel(float* __restrict__ current, float* __restrict__ previous, uint32_t grid,
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

__global__ void heightFieldVerticesKernel(const float* __restrict__ heights, uint32_t grid,
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
__global__ void __launch_bounds__(kRowThreads) sinewaveRowKernel(float4* __restrict__ vertices, SinewaveFrame frame) {
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
__global__ void __launch_bounds__(kRowThreads)
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

}  // namespace
}  // namespace vksim
