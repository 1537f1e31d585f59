// The kernel benchmark's candidate step kernels (kernel_bench and the
// KernelVariants tests, through cuda_kernel_bench.cu): every configuration
// that was measured against the one the backends run (cuda_kernels.cuh),
// and the template kernels that launch any configuration. The row kernels
// are the reference that every candidate must match bit for bit. Internal to
// lab/: included by cuda_kernel_bench.cu only. Everything is in an anonymous
// namespace, as in cuda_kernels.cuh.
#pragma once
#include <cuda_runtime.h>

#include "sim/cuda/cuda_kernel_parts.cuh"
#include "sim/cuda/cuda_kernels.cuh"
#include "sim/model_math.h"
#include "sim/models.h"

namespace vksim {
namespace {

// ---- Row kernels: the first single-pass kernels, kept as the reference that
// every other candidate must match bit for bit.
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
struct SinewaveRow {
  static constexpr uint32_t kThreads = kRowThreads;
  static constexpr uint32_t kMinBlocks = 1;
  static dim3 blocks(uint32_t grid) { return rowBlocks(grid); }
  __device__ static void step(float4* __restrict__ vertices, SinewaveFrame frame) {
    __shared__ float factorX[kRowThreads + 2];  // columns first-1 .. first+count, clamped to the grid
    __shared__ float factorZ[3];                // the row's lower, centre and upper slope neighbours
    __shared__ float4 staged[2 * kRowThreads];
    const uint32_t n = frame.grid;
    const RowSpan span = blockRow(n);
    const uint32_t t = threadIdx.x;
    for (uint32_t s = t; s < span.count + 2; s += kRowThreads) {
      const int column = int(span.first) - 1 + int(s);
      factorX[s] =
          sinewaveFactorX(frame, uint32_t(column < 0 ? 0 : (column >= int(n) ? int(n) - 1 : column)));
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
      const AxisFactors x{factorX[alongX.lower - span.first + 1], factorX[t + 1],
                          factorX[alongX.upper - span.first + 1]};
      const AxisFactors z{factorZ[0], factorZ[1], factorZ[2]};
      stageVertex(staged, t, sinewaveVertex(frame, i, span.row, x, z));
    }
    storeStagedRow(vertices, staged, span, n);
  }
};

// One whole ripple step in one pass: the next height of the thread's cell and
// of its slope neighbours (recomputed from the same inputs, so bitwise the
// values their own threads write), then the vertex. Reads current and
// previous, writes next and the vertex. Each thread computes its own next
// height and its four neighbours' again, each from five loads of `current`
// (25 loads and 5 stencils a cell, served by L1 and L2).
// In every configuration `next` must not alias `previous`: the neighbours' or
// the halo's next heights read previous heights that another block would
// otherwise already have overwritten.
struct RippleRow {
  static constexpr uint32_t kThreads = kRowThreads;
  static constexpr uint32_t kMinBlocks = 1;
  static dim3 blocks(uint32_t grid) { return rowBlocks(grid); }
  __device__ static void step(const float* __restrict__ current, const float* __restrict__ previous,
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
      const float slopeX =
          finiteDifferenceSlope(alongX.lower == i ? height : nextHeight(alongX.lower, j),
                                alongX.upper == i ? height : nextHeight(alongX.upper, j), alongX, spacing);
      const float slopeZ =
          finiteDifferenceSlope(alongZ.lower == j ? height : nextHeight(i, alongZ.lower),
                                alongZ.upper == j ? height : nextHeight(i, alongZ.upper), alongZ, spacing);
      const Vertex vertex{{gridCoordinate(i, grid), height, gridCoordinate(j, grid), 1.0f},
                          surfaceNormal(slopeX, slopeZ)};
      stageVertex(staged, t, vertex);
    }
    storeStagedRow(vertices, staged, span, grid);
  }
};

// ---- Tile kernels.
//
// A tile kernel covers W columns x R rows: it loads the current heights of
// the tile and a two-cell halo into shared memory once, computes each next
// height of the tile and a one-cell halo once, then derives each vertex from
// the shared next heights. Halo rows are read again by the tile below or
// above, mostly from L2, which holds many rows of the field.
//
// (The warp-private stores and the Streaming hint: storeWarpVertices,
// cuda_kernel_parts.cuh.)

// PrefetchPrevious: each thread loads the previous heights of the cells whose
// next height it will compute into registers before the barrier that ends the
// `current` loads, so both streams of loads are in flight at once instead of
// the previous heights' loads waiting for that barrier.
template <uint32_t W, uint32_t R, bool Streaming, HeightLoads Loads = HeightLoads::plain,
          bool PrefetchPrevious = false>
struct RippleTile {
  static_assert(W % 32 == 0, "a warp covers 32 vertices of one row");
  static constexpr uint32_t kThreads = kTileThreads;
  static constexpr uint32_t kMinBlocks = 1;
  static constexpr uint32_t kCurrentWidth = W + 4, kCurrentRows = R + 4;  // two-cell halo
  static constexpr uint32_t kNextWidth = W + 2, kNextRows = R + 2;        // one-cell halo
  static constexpr uint32_t kNextCells = kNextRows * kNextWidth;
  static constexpr uint32_t kNextPerThread = (kNextCells + kTileThreads - 1) / kTileThreads;
  static_assert((kCurrentRows * kCurrentWidth + kNextCells) * sizeof(float) +
                        kTileWarps * 64 * sizeof(float4) <=
                    48 * 1024,
                "static shared memory: the cuda-nvx launch passes sharedMemBytes 0");

  static dim3 blocks(uint32_t grid) { return tileBlocks<W, R>(grid); }

  __device__ static void step(const float* __restrict__ current, const float* __restrict__ previous,
                              float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                              float4* __restrict__ vertices) {
    __shared__ float tileCurrent[kCurrentRows * kCurrentWidth];
    __shared__ float tileNext[kNextCells];
    __shared__ float4 staging[kTileWarps][64];
    const int i0 = int(blockIdx.x * W), j0 = int(blockIdx.y * R);
    const int n = int(grid);
    // Next-height cell k of the tile (x, y with its halo) is interior: its
    // stencil is computed; other cells stay 0 (the edges, rippleNextHeight)
    // or are outside the grid and never read.
    const auto interior = [&](uint32_t k) {
      const int i = i0 - 1 + int(k % kNextWidth), j = j0 - 1 + int(k / kNextWidth);
      return i > 0 && j > 0 && i + 1 < n && j + 1 < n;
    };
    const auto previousAt = [&](uint32_t k) {
      const int i = i0 - 1 + int(k % kNextWidth), j = j0 - 1 + int(k / kNextWidth);
      return loadPrevious<Loads>(previous, size_t(j) * grid + i);
    };

    float previousHeights[PrefetchPrevious ? kNextPerThread : 1];
    if constexpr (PrefetchPrevious) {
#pragma unroll
      for (uint32_t q = 0; q < kNextPerThread; ++q) {
        const uint32_t k = threadIdx.x + q * kTileThreads;
        previousHeights[q] = (k < kNextCells && interior(k)) ? previousAt(k) : 0.0f;
      }
    }
    for (uint32_t k = threadIdx.x; k < kCurrentRows * kCurrentWidth; k += kTileThreads) {
      const int i = i0 - 2 + int(k % kCurrentWidth), j = j0 - 2 + int(k / kCurrentWidth);
      tileCurrent[k] =
          (i >= 0 && j >= 0 && i < n && j < n) ? loadCurrent<Loads>(current, size_t(j) * grid + i) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (uint32_t q = 0; q < kNextPerThread; ++q) {
      const uint32_t k = threadIdx.x + q * kTileThreads;
      if (k >= kNextCells) break;
      const uint32_t x = k % kNextWidth, y = k / kNextWidth;
      float height = 0.0f;
      if (interior(k)) {
        const uint32_t c = (y + 1) * kCurrentWidth + (x + 1);
        float previousHeight;
        if constexpr (PrefetchPrevious)
          previousHeight = previousHeights[q];
        else
          previousHeight = previousAt(k);
        height = rippleNextFromNeighbours(tileCurrent[c], tileCurrent[c - 1], tileCurrent[c + 1],
                                          tileCurrent[c - kCurrentWidth], tileCurrent[c + kCurrentWidth],
                                          previousHeight, coefficients);
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
      if (j >= grid || firstI >= grid) continue;        // the whole warp skips together
      const uint32_t i = min(firstI + lane, grid - 1);  // lanes past the edge compute a copy, never stored
      const auto nextAt = [&](uint32_t ci, uint32_t cj) {
        return tileNext[(cj - uint32_t(j0) + 1) * kNextWidth + (ci - uint32_t(i0) + 1)];
      };
      const NeighbourPair alongX = slopeNeighbours(i, grid);
      const NeighbourPair alongZ = slopeNeighbours(j, grid);
      const float height = nextAt(i, j);
      const float slopeX =
          finiteDifferenceSlope(nextAt(alongX.lower, j), nextAt(alongX.upper, j), alongX, spacing);
      const float slopeZ =
          finiteDifferenceSlope(nextAt(i, alongZ.lower), nextAt(i, alongZ.upper), alongZ, spacing);
      const Vertex vertex{{gridCoordinate(i, grid), height, gridCoordinate(j, grid), 1.0f},
                          surfaceNormal(slopeX, slopeZ)};
      storeWarpVertices<Streaming>(staging[warp], vertices + 2 * (size_t(j) * grid + firstI),
                                   min(32u, grid - firstI), vertex);
    }
  }
};

// ---- Strip kernels: a block of W threads, one a column, walks down R rows.
//
// The tile kernels load (W+4)(R+4) current heights and compute (W+2)(R+2)
// next heights for W*R cells, and run their phases one after the other: all
// loads, barrier, all stencils, barrier, all stores. A strip keeps a rolling
// window instead: three rows of current heights (the rows below, at and above
// the next row it computes) and three rows of next heights (the rows below,
// at and above the vertex row it writes) in shared-memory rings, so each
// current height of the strip is loaded once (plus 4 halo rows per R and 4
// halo columns per W) and each next height computed once (plus 2 rows per R
// and 2 columns per W). The loads are software-pipelined: while the block
// computes and stores one row, the Depth rows after it (current and previous)
// are already on their way into registers, so that a thread keeps 2 * Depth
// loads in flight across the barriers. MinBlocks (blocks per SM, for
// __launch_bounds__) caps the registers: 1536 / W keeps 75 % of the SM's
// threads resident without spilling.
//
// Iteration k computes next row r = j0 - 1 + k (from current rows r-1, r,
// r+1) and then writes vertex row r - 1 (from next rows r-2, r-1, r). Current
// row j0 - 2 + m lives in ring slot m % 3, next row j0 - 1 + m in slot m % 3.
// Why three slots suffice in each ring: iteration k+1 writes current slot
// k % 3 before its first barrier, and the last reads of that slot happened
// in iteration k's stencils, before iteration k's second barrier; iteration
// k+1 writes next slot (k+1) % 3 after its first barrier, and the last reads
// of it happened in iteration k's vertex stores, before that barrier.
//
// Every trip count of the loop depends on the block only (j0, R, grid), so
// every thread reaches every __syncthreads.
//
// A strip is a long-lived block, so how many there are matters: with a fixed
// R, 4096 / R block rows times grid / W columns rarely fill a whole number
// of waves of resident blocks, and the last wave runs a few blocks on an
// idle GPU. R = 0 sizes the strips to the GPU instead (blocks() below).
// kStripSmCount is the H200's SM count; on a GPU with another count the bits
// are the same, only the balance of the work across SMs changes.
constexpr uint32_t kStripSmCount = 132;

template <uint32_t W, uint32_t R, HeightLoads Loads = HeightLoads::plain, uint32_t Depth = 2,
          uint32_t MinBlocks = 1536 / W>
struct RippleStrip {
  static_assert(Depth >= 1, "at least the next iteration's rows are loaded ahead");
  static_assert(W % 32 == 0, "a warp covers 32 vertices of one row (and threads 0-3 exist for the halo)");
  static constexpr uint32_t kThreads = W;
  static constexpr uint32_t kMinBlocks = MinBlocks;
  static constexpr uint32_t kWarps = W / 32;
  static constexpr uint32_t kCurrentWidth = W + 4;  // columns i0-2 .. i0+W+1
  static constexpr uint32_t kNextWidth = W + 2;     // columns i0-1 .. i0+W
  static_assert((3 * kCurrentWidth + 3 * kNextWidth) * sizeof(float) + kWarps * 64 * sizeof(float4) <=
                    48 * 1024,
                "static shared memory: the cuda-nvx launch passes sharedMemBytes 0");

  // R = 0: as many block rows as fill kStripSmCount SMs with MinBlocks
  // blocks each, at most one a grid row; the kernel divides the grid's rows
  // among them (ceil(grid / gridDim.y) each), so that every block is resident
  // from the start and the last wave is not a partial one.
  static dim3 blocks(uint32_t grid) {
    const uint32_t columns = (grid + W - 1) / W;
    if constexpr (R > 0) return dim3(columns, (grid + R - 1) / R);
    const uint32_t rows = (kStripSmCount * MinBlocks) / columns;
    return dim3(columns, rows < 1 ? 1 : (rows > grid ? grid : rows));
  }

  __device__ static void step(const float* __restrict__ current, const float* __restrict__ previous,
                              float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                              float4* __restrict__ vertices) {
    __shared__ float ringCurrent[3][kCurrentWidth];
    __shared__ float ringNext[3][kNextWidth];
    __shared__ float4 staging[kWarps][64];
    const int n = int(grid);
    const uint32_t rowsPerBlock = R > 0 ? R : (grid + gridDim.y - 1) / gridDim.y;
    const int i0 = int(blockIdx.x * W), j0 = int(blockIdx.y * rowsPerBlock);
    if (j0 >= n) return;  // a balanced strip's trailing block with no rows left: the whole block
    const uint32_t t = threadIdx.x;
    // Each thread loads current column i0 + t (slot t + 2); threads 0-3 also
    // one halo column each (slots 0, 1, W+2, W+3).
    const bool loadsHalo = t < 4;
    const uint32_t haloSlot = t < 2 ? t : W + t;
    const int column = i0 + int(t), haloColumn = i0 - 2 + int(haloSlot);
    // Each thread computes next column i0 + t (slot t + 1); threads 0 and 1
    // also the halo columns i0 - 1 (slot 0) and i0 + W (slot W + 1).
    const bool computesHalo = t < 2;
    const uint32_t haloNextSlot = t == 0 ? 0 : W + 1;
    const int haloNextColumn = i0 - 1 + int(haloNextSlot);

    const auto currentAt = [&](int i, int j) {
      return (i >= 0 && j >= 0 && i < n && j < n) ? loadCurrent<Loads>(current, size_t(j) * grid + i) : 0.0f;
    };
    const auto isInterior = [&](int i, int j) { return i > 0 && j > 0 && i + 1 < n && j + 1 < n; };
    // Only interior cells' previous heights are read: the edges' next
    // heights are 0 whatever their previous ones.
    const auto previousAt = [&](int i, int j) {
      return isInterior(i, j) ? loadPrevious<Loads>(previous, size_t(j) * grid + i) : 0.0f;
    };
    // Next height of slot x (column i0 - 1 + x) in iteration k's row, from
    // current rows below (slot k % 3), at and above it; current slot x + 1 is
    // the same column.
    const auto stencil = [&](uint32_t k, uint32_t x, float previousHeight) {
      const float* below = ringCurrent[k % 3];
      const float* at = ringCurrent[(k + 1) % 3];
      const float* above = ringCurrent[(k + 2) % 3];
      return rippleNextFromNeighbours(at[x + 1], at[x], at[x + 2], below[x + 1], above[x + 1], previousHeight,
                                      coefficients);
    };

    // Vertex rows j0 .. j0 + rows - 1; iteration k writes vertex row j0 + k - 2.
    const uint32_t rows = min(rowsPerBlock, uint32_t(n - j0));
    const uint32_t iterations = rows + 2;

    // Prologue: current rows j0-2 and j0-1 into slots 0 and 1; the first
    // Depth iterations' rows (current j0 .., previous j0-1 ..) into registers.
    for (uint32_t m = 0; m < 2; ++m) {
      ringCurrent[m][t + 2] = currentAt(column, j0 - 2 + int(m));
      if (loadsHalo) ringCurrent[m][haloSlot] = currentAt(haloColumn, j0 - 2 + int(m));
    }
    // Entry d holds iteration k+d's rows; shifted down one each iteration.
    float currentAhead[Depth], currentHaloAhead[Depth], previousAhead[Depth], previousHaloAhead[Depth];
#pragma unroll
    for (uint32_t d = 0; d < Depth; ++d) {
      currentAhead[d] = currentAt(column, j0 + int(d));
      currentHaloAhead[d] = loadsHalo ? currentAt(haloColumn, j0 + int(d)) : 0.0f;
      previousAhead[d] = previousAt(column, j0 - 1 + int(d));
      previousHaloAhead[d] = computesHalo ? previousAt(haloNextColumn, j0 - 1 + int(d)) : 0.0f;
    }

    const float spacing = gridSpacing(grid);
    const uint32_t warp = t / 32, lane = t & 31u;
    for (uint32_t k = 0; k < iterations; ++k) {
      const int r = j0 - 1 + int(k);  // the next row of this iteration
      // Current row r+1 (m = k+2) from registers into the ring.
      ringCurrent[(k + 2) % 3][t + 2] = currentAhead[0];
      if (loadsHalo) ringCurrent[(k + 2) % 3][haloSlot] = currentHaloAhead[0];
      const float previousHeight = previousAhead[0], previousHaloHeight = previousHaloAhead[0];
#pragma unroll
      for (uint32_t d = 0; d + 1 < Depth; ++d) {
        currentAhead[d] = currentAhead[d + 1];
        currentHaloAhead[d] = currentHaloAhead[d + 1];
        previousAhead[d] = previousAhead[d + 1];
        previousHaloAhead[d] = previousHaloAhead[d + 1];
      }
      // Iteration k+Depth's loads (current row r+1+Depth, previous row
      // r+Depth), in flight during this iteration's work and the next ones.
      if (k + Depth < iterations) {
        currentAhead[Depth - 1] = currentAt(column, r + 1 + int(Depth));
        if (loadsHalo) currentHaloAhead[Depth - 1] = currentAt(haloColumn, r + 1 + int(Depth));
        previousAhead[Depth - 1] = previousAt(column, r + int(Depth));
        if (computesHalo) previousHaloAhead[Depth - 1] = previousAt(haloNextColumn, r + int(Depth));
      }
      __syncthreads();

      float* nextRow = ringNext[k % 3];
      const float height = isInterior(column, r) ? stencil(k, t + 1, previousHeight) : 0.0f;
      nextRow[t + 1] = height;
      if (computesHalo)
        nextRow[haloNextSlot] =
            isInterior(haloNextColumn, r) ? stencil(k, haloNextSlot, previousHaloHeight) : 0.0f;
      if (r >= j0 && r < j0 + int(rows) && column < n) next[size_t(r) * grid + column] = height;
      __syncthreads();

      if (k < 2) continue;  // uniform across the block
      const uint32_t j = uint32_t(r - 1);
      const uint32_t firstI = uint32_t(i0) + warp * 32;
      if (firstI >= grid) continue;                     // the whole warp skips together
      const uint32_t i = min(firstI + lane, grid - 1);  // lanes past the edge compute a copy, never stored
      // Next row q lives in slot (q - (j0 - 1)) % 3, column c at c - (i0 - 1).
      const auto nextAt = [&](uint32_t ci, uint32_t cj) {
        return ringNext[(cj - uint32_t(j0) + 1) % 3][ci - uint32_t(i0) + 1];
      };
      const NeighbourPair alongX = slopeNeighbours(i, grid);
      const NeighbourPair alongZ = slopeNeighbours(j, grid);
      const float vertexHeight = nextAt(i, j);
      const float slopeX =
          finiteDifferenceSlope(nextAt(alongX.lower, j), nextAt(alongX.upper, j), alongX, spacing);
      const float slopeZ =
          finiteDifferenceSlope(nextAt(i, alongZ.lower), nextAt(i, alongZ.upper), alongZ, spacing);
      const Vertex vertex{{gridCoordinate(i, grid), vertexHeight, gridCoordinate(j, grid), 1.0f},
                          surfaceNormal(slopeX, slopeZ)};
      storeWarpVertices<true>(staging[warp], vertices + 2 * (size_t(j) * grid + firstI),
                              min(32u, grid - firstI), vertex);
    }
  }
};

// ---- The candidates' kernels, for kernel_bench and the KernelVariants tests.
// (fittedMinBlocks, the cap on __launch_bounds__'s blocks per SM:
// cuda_kernel_parts.cuh.)

template <typename Config>
__global__ void __launch_bounds__(Config::kThreads, fittedMinBlocks(Config::kThreads, Config::kMinBlocks))
    rippleCandidateKernel(const float* __restrict__ current, const float* __restrict__ previous,
                          float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                          float4* __restrict__ vertices) {
  Config::step(current, previous, next, grid, coefficients, vertices);
}

template <typename Config>
__global__ void __launch_bounds__(Config::kThreads, fittedMinBlocks(Config::kThreads, Config::kMinBlocks))
    sinewaveCandidateKernel(float4* __restrict__ vertices, SinewaveFrame frame) {
  Config::step(vertices, frame);
}

// Each candidate as a type: the kernel's address (for loading it before the
// first external wait: the lazy-loading trap in docs/design.md) and its
// launch on `stream`.
template <typename Config>
struct RippleStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&rippleCandidateKernel<Config>); }
  static void launch(const RippleStepArgs& step, cudaStream_t stream) {
    rippleCandidateKernel<Config><<<Config::blocks(step.grid), Config::kThreads, 0, stream>>>(
        step.current, step.previous, step.next, step.grid, step.coefficients, step.vertices);
  }
};
template <typename Config>
struct SinewaveStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&sinewaveCandidateKernel<Config>); }
  static void launch(float4* vertices, SinewaveFrame frame, cudaStream_t stream) {
    sinewaveCandidateKernel<Config>
        <<<Config::blocks(frame.grid), Config::kThreads, 0, stream>>>(vertices, frame);
  }
};

// The backends' textured ripple step (rippleStepTexelsKernel) with its
// registers capped for five blocks an SM, as the plain step's, where the
// backend's is capped for four (kRippleTexelsMinBlocks): kernel_bench's
// rippleTexturedStepFiveBlocks, to weigh the spill against the occupancy.
__global__ void __launch_bounds__(BackendRippleConfig::kThreads, fittedMinBlocks(BackendRippleConfig::kThreads, 5))
    rippleStepTexelsFiveBlocksKernel(const float* __restrict__ current, const float* __restrict__ previous,
                                     float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                                     float4* __restrict__ vertices, TexelLevels texels) {
  BackendRippleConfig::stepWithTexels(current, previous, next, grid, coefficients, vertices, texels);
}

}  // namespace
}  // namespace vksim
