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

// `drops`, in order, into both fields on `stream`: one addDropsKernel launch
// per kMaxDropsPerLaunch drops. The first launch error, or cudaSuccess. The
// CUDA backend's step and kernel_bench's fields both apply drops this way.
inline cudaError_t launchDrops(const std::vector<Drop>& drops, float* current, float* previous, uint32_t grid,
                               cudaStream_t stream) {
  for (size_t first = 0; first < drops.size(); first += kMaxDropsPerLaunch) {
    DropBatch batch{};
    for (size_t d = first; d < drops.size() && batch.count < kMaxDropsPerLaunch; ++d)
      batch.drops[batch.count++] = makeDropShape(drops[d]);
    addDropsKernel<<<gridBlocks(grid), dim3(kBlockX, kBlockY), 0, stream>>>(current, previous, grid, batch);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  }
  return cudaSuccess;
}

// ---- Step kernel configurations.
//
// Each candidate step kernel is a configuration: a struct with its block size
// (kThreads), its launch geometry (blocks(grid)) and its body (step, a
// __device__ function that every thread of the block calls). The body is
// separate from any __global__ so that one configuration can run under two
// kinds of entry point: the template kernels rippleCandidateKernel and
// sinewaveCandidateKernel that kernel_bench and the KernelVariants tests
// launch, and the two plain entry points that the backends run
// (rippleStepKernel, sinewaveStepKernel, at the end of this header), which
// the cuda-nvx backend must find by an unmangled name.
//
// Bytes a step must move (minimumStepBytes, cuda_kernel_bench.h), counted
// from what a step reads and writes exactly once in device memory:
//   ripple   4 (current) + 4 (previous) + 4 (next) + 32 (vertex) = 44 per cell
//   sinewave 32 (vertex) per cell: nothing is read

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

// How a kernel loads the two height fields it reads.
//   plain:  ordinary loads (current and previous are const __restrict__, so
//           the compiler may already use the read-only path for them).
//   hinted: `current` through the read-only cache (__ldg, ld.global.nc): each
//           value is read by up to five stencils and by the neighbouring
//           tiles' halos, so it should stay; `previous` evict-first (__ldcs,
//           ld.global.cs): it is read once and its buffer is the next step's
//           `next`, written over without being read. `next` is stored plainly
//           either way: the next step reads it as `current`, from L2 if it is
//           still there.
enum class HeightLoads { plain, hinted };

template <HeightLoads Loads>
__device__ inline float loadCurrent(const float* __restrict__ current, size_t index) {
  if constexpr (Loads == HeightLoads::hinted)
    return __ldg(current + index);
  else
    return current[index];
}
template <HeightLoads Loads>
__device__ inline float loadPrevious(const float* __restrict__ previous, size_t index) {
  if constexpr (Loads == HeightLoads::hinted)
    return __ldcs(previous + index);
  else
    return previous[index];
}

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
// memory system has time for (docs/benchmarks.md, "Kernels at the memory
// limit"). The other warps run rows<false>, the checked body. Both compute
// the same expressions on the same values, so the bits do not depend on the
// path. MinBlocks is __launch_bounds__'s blocks per SM (registers capped so
// that many fit).
template <uint32_t R, bool Streaming, HeightLoads Loads = HeightLoads::plain, bool InteriorPath = false,
          uint32_t MinBlocks = 1>
struct RippleWarpRows {
  static_assert(R >= 1, "a warp covers at least one row");
  // Wider windows (R = 5, 6, 8) did not write the row kernel's bits on the
  // H200, and racecheck saw hazards in their staging area; the cause is not
  // found (docs/benchmarks.md, "Kernels at the memory limit", has what was
  // seen), so they are refused.
  static_assert(R <= 4, "R > 4 is not bit-identical on the H200 (cause unknown)");
  static constexpr uint32_t kThreads = kTileThreads;
  static constexpr uint32_t kMinBlocks = MinBlocks;
  static constexpr uint32_t kWarps = kThreads / 32;
  static_assert(kWarps * 64 * sizeof(float4) <= 48 * 1024,
                "static shared memory: the cuda-nvx launch passes sharedMemBytes 0");

  static dim3 blocks(uint32_t grid) { return dim3((grid + 31) / 32, (grid + kWarps * R - 1) / (kWarps * R)); }

  __device__ static void step(const float* __restrict__ current, const float* __restrict__ previous,
                              float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                              float4* __restrict__ vertices) {
    __shared__ float4 staging[kWarps][64];
    const int n = int(grid);
    const uint32_t warp = threadIdx.x / 32;
    const int i0 = int(blockIdx.x * 32), j0 = int((blockIdx.y * kWarps + warp) * R);
    if (j0 >= n) return;  // the whole warp leaves together, before any shuffle
    if constexpr (InteriorPath) {
      if (i0 >= 2 && i0 + 34 <= n && j0 >= 2 && j0 + int(R) + 2 <= n) {  // the same for every lane
        rows<true>(current, previous, next, grid, coefficients, vertices, staging[warp], i0, j0);
        return;
      }
    }
    rows<false>(current, previous, next, grid, coefficients, vertices, staging[warp], i0, j0);
  }

  // Rows j0 .. j0+R-1 of columns i0 .. i0+31; Interior as described above.
  template <bool Interior>
  __device__ static void rows(const float* __restrict__ current, const float* __restrict__ previous,
                              float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                              float4* __restrict__ vertices, float4* staging, int i0, int j0) {
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
    }
  }
};

template <uint32_t W, uint32_t R, bool Streaming>
struct SinewaveTile {
  static_assert(W % 32 == 0, "a warp covers 32 vertices of one row");
  static constexpr uint32_t kThreads = kTileThreads;
  static constexpr uint32_t kMinBlocks = 1;
  static dim3 blocks(uint32_t grid) { return tileBlocks<W, R>(grid); }

  __device__ static void step(float4* __restrict__ vertices, SinewaveFrame frame) {
    __shared__ float factorX[W + 2];  // columns i0-1 .. i0+W, clamped to the grid
    __shared__ float factorZ[R + 2];  // rows j0-1 .. j0+R, clamped to the grid
    __shared__ float4 staging[kTileWarps][64];
    const uint32_t n = frame.grid;
    const int i0 = int(blockIdx.x * W), j0 = int(blockIdx.y * R);
    const auto clampIndex = [&](int index) {
      return uint32_t(index < 0 ? 0 : (index >= int(n) ? int(n) - 1 : index));
    };
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
      storeWarpVertices<Streaming>(staging[warp], vertices + 2 * (size_t(j) * n + firstI),
                                   min(32u, n - firstI), sinewaveVertex(frame, i, j, x, z));
    }
  }
};

// ---- The candidates' kernels, for kernel_bench and the KernelVariants tests.

// __launch_bounds__'s blocks per SM may not ask for more threads than one SM
// of the target holds (1024 on sm_75; 1536 on sm_86, sm_89 and sm_120; 2048
// on sm_80, sm_90 and sm_100): ptxas rejects the request otherwise, and the
// build treats its warning as an error. The configurations are tuned on the
// H200 (sm_90), where their request stands; elsewhere it is capped to what
// fits. The host pass ignores the bound.
__host__ __device__ constexpr uint32_t fittedMinBlocks(uint32_t threads, uint32_t minBlocks) {
#if defined(__CUDA_ARCH__)
  constexpr uint32_t kThreadsPerSm =
      __CUDA_ARCH__ == 750 ? 1024u
                           : ((__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000) ? 2048u : 1536u);
#else
  constexpr uint32_t kThreadsPerSm = 2048u;
#endif
  return minBlocks * threads <= kThreadsPerSm ? minBlocks : kThreadsPerSm / threads;
}

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
  static void launch(const float* current, const float* previous, float* next, uint32_t grid,
                     RippleCoefficients coefficients, float4* vertices, cudaStream_t stream) {
    rippleCandidateKernel<Config><<<Config::blocks(grid), Config::kThreads, 0, stream>>>(
        current, previous, next, grid, coefficients, vertices);
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

// ---- What both backends run.
//
// One line per model chooses the configuration, from kernel_bench's
// comparison on the target GPU (docs/benchmarks.md). The CUDA backend
// (cuda_simulation.cu) launches the plain entry points below through the
// runtime; the cuda-nvx backend (sim/cuda_nvx/) finds the same entry points
// by name in its own module and launches them from a Vulkan command buffer,
// with the same geometry (rippleStepBlocks/Threads, sinewaveStepBlocks/
// Threads). Every configuration's shared memory is static (the cuda-nvx
// launch passes sharedMemBytes 0).
// The configurations the backends run are the fastest that kernel_bench
// measured (or within a point of it) at 1024², 2048² and 4096² on the H200
// (docs/benchmarks.md, "Kernels at the memory limit").
using BackendRippleConfig = RippleWarpRows<3, true, HeightLoads::plain, true, 5>;  // warpin32x24-cs-o5
using BackendSinewaveConfig = SinewaveTile<128, 8, false>;                         // tile128x8

// The ripple step of the backends: next heights and vertices from current
// and previous (`next` must not alias `previous`). Launch with
// rippleStepBlocks(grid) x rippleStepThreads().
VKSIM_NVX_ENTRY __global__ void __launch_bounds__(BackendRippleConfig::kThreads,
                                                  fittedMinBlocks(BackendRippleConfig::kThreads,
                                                                  BackendRippleConfig::kMinBlocks))
    rippleStepKernel(const float* __restrict__ current, const float* __restrict__ previous,
                     float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                     float4* __restrict__ vertices) {
  BackendRippleConfig::step(current, previous, next, grid, coefficients, vertices);
}

// The sinewave step of the backends: every vertex of `frame`. Launch with
// sinewaveStepBlocks(grid) x sinewaveStepThreads().
VKSIM_NVX_ENTRY __global__ void __launch_bounds__(BackendSinewaveConfig::kThreads,
                                                  fittedMinBlocks(BackendSinewaveConfig::kThreads,
                                                                  BackendSinewaveConfig::kMinBlocks))
    sinewaveStepKernel(float4* __restrict__ vertices, SinewaveFrame frame) {
  BackendSinewaveConfig::step(vertices, frame);
}

inline dim3 rippleStepBlocks(uint32_t grid) {
  return BackendRippleConfig::blocks(grid);
}
inline dim3 rippleStepThreads() {
  return dim3(BackendRippleConfig::kThreads);
}
inline dim3 sinewaveStepBlocks(uint32_t grid) {
  return BackendSinewaveConfig::blocks(grid);
}
inline dim3 sinewaveStepThreads() {
  return dim3(BackendSinewaveConfig::kThreads);
}

// The CUDA backend's launches of the two entry points, in the candidates'
// shape (kernel_bench lists them as "backend").
struct BackendRippleStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&rippleStepKernel); }
  static void launch(const float* current, const float* previous, float* next, uint32_t grid,
                     RippleCoefficients coefficients, float4* vertices, cudaStream_t stream) {
    rippleStepKernel<<<rippleStepBlocks(grid), rippleStepThreads(), 0, stream>>>(
        current, previous, next, grid, coefficients, vertices);
  }
};
struct BackendSinewaveStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&sinewaveStepKernel); }
  static void launch(float4* vertices, SinewaveFrame frame, cudaStream_t stream) {
    sinewaveStepKernel<<<sinewaveStepBlocks(frame.grid), sinewaveStepThreads(), 0, stream>>>(vertices, frame);
  }
};

}  // namespace
}  // namespace vksim
