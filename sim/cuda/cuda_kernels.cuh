// The simulation kernels that the backends run: the CUDA backend
// (cuda_model_launches.cu) launches them through the runtime, the cuda-nvx
// backend (sim/cuda_nvx/) from its own module. The kernel benchmark
// (lab/cuda/cuda_kernel_bench.cu) measures the same kernels beside its
// candidates (lab/cuda/kernel_candidates.cuh), so that what is measured is
// what runs. Internal to sim/ and lab/: included only by .cu files.
// Everything is in an anonymous namespace, so each including file gets its
// own copy of the kernels and no symbol is defined twice.
#pragma once
#include <cuda_runtime.h>

#include <vector>

#include "sim/cuda/cuda_kernel_parts.cuh"
#include "sim/cuda/cuda_ripple_warp_rows.cuh"
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
// several launches, applied in order. `cells` is the union of the batch's
// footprints: the launch covers it and nothing else.
constexpr uint32_t kMaxDropsPerLaunch = 8;
struct DropBatch {
  DropShape drops[kMaxDropsPerLaunch];
  uint32_t count;
  CellRect cells;
};

// Adds the batch's drops, in order, to both fields of each cell of their
// footprints: the same sequence of additions per cell as
// RippleModel::applyDrop. Thread (0, 0) is cell (cells.firstI, cells.firstJ).
VKSIM_NVX_ENTRY __global__ void addDropsKernel(float* __restrict__ current, float* __restrict__ previous, uint32_t grid,
                               DropBatch batch) {
  const CellIndex thread = threadCell();
  const uint32_t i = batch.cells.firstI + thread.i, j = batch.cells.firstJ + thread.j;
  if (!containsCell(batch.cells, i, j)) return;
  const float x = gridCoordinate(i, grid);
  const float z = gridCoordinate(j, grid);
  const uint32_t index = j * grid + i;
  float currentHeight = current[index];
  float previousHeight = previous[index];
  for (uint32_t d = 0; d < batch.count; ++d) {
    if (!containsCell(batch.drops[d].cells, i, j)) continue;
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

// The blocks that cover `cells` (addDropsKernel's launch), none when it is empty.
inline dim3 rectBlocks(const CellRect& cells) {
  if (isEmpty(cells)) return dim3(0, 0);
  return dim3((cells.endI - cells.firstI + kBlockX - 1) / kBlockX, (cells.endJ - cells.firstJ + kBlockY - 1) / kBlockY);
}

// The step's drops, kMaxDropsPerLaunch at a time, each batch with the union
// of its footprints: what the CUDA and cuda-nvx backends launch.
inline std::vector<DropBatch> dropBatches(const std::vector<DropShape>& shapes) {
  std::vector<DropBatch> batches;
  for (size_t first = 0; first < shapes.size(); first += kMaxDropsPerLaunch) {
    DropBatch batch{};
    for (size_t d = first; d < shapes.size() && batch.count < kMaxDropsPerLaunch; ++d)
      batch.drops[batch.count++] = shapes[d];
    batch.cells = footprintUnion(batch.drops, batch.count);
    if (!isEmpty(batch.cells)) batches.push_back(batch);  // a batch that changes no cell is skipped
  }
  return batches;
}

// `drops`, in order, into both fields on `stream`: one addDropsKernel launch
// per batch (dropBatches). The first launch error, or cudaSuccess. The CUDA
// backend's step and kernel_bench's fields both apply drops this way.
inline cudaError_t launchDrops(const std::vector<Drop>& drops, float* current, float* previous, uint32_t grid,
                               cudaStream_t stream) {
  std::vector<DropShape> shapes;
  for (const Drop& drop : drops) shapes.push_back(makeDropShape(drop, grid));
  for (const DropBatch& batch : dropBatches(shapes)) {
    addDropsKernel<<<rectBlocks(batch.cells), dim3(kBlockX, kBlockY), 0, stream>>>(current, previous, grid, batch);
    if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return error;
  }
  return cudaSuccess;
}

// ---- Step kernel configurations.
//
// Each step kernel is a configuration: a struct with its block size
// (kThreads), its blocks per SM (kMinBlocks, for __launch_bounds__), its
// launch geometry (blocks(grid)) and its body (step, a __device__ function
// that every thread of the block calls). The body is separate from any
// __global__ so that one configuration can run under two kinds of entry
// point: the template kernels that kernel_bench and the KernelVariants tests
// launch (lab/cuda/kernel_candidates.cuh), and the plain entry points that
// the backends run (rippleStepKernel, rippleStepTexelsKernel,
// sinewaveStepKernel, below), which the
// cuda-nvx backend must find by an unmangled name.
//
// Bytes a step must move (minimumStepBytes, lab/cuda/cuda_kernel_bench.h),
// counted from what a step reads and writes exactly once in device memory:
//   ripple   4 (current) + 4 (previous) + 4 (next) + 32 (vertex) = 44 per cell
//   sinewave 32 (vertex) per cell: nothing is read

// The sinewave step that the backends run: a block covers W columns x R rows;
// each column's and row's factor (a sinf or cosf) is evaluated once per block
// into shared memory, and every warp stores 32 consecutive vertices through
// its staging area (storeWarpVertices).
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

// ---- What both backends run.
//
// One line per model chooses the configuration, from kernel_bench's
// comparison on the target GPU (docs/benchmarks.md). The CUDA backend
// (cuda_model_launches.cu) launches the plain entry points below through the
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

// The ripple step with the first levels of the surface texture (the CUDA
// backend with the texture on): rippleStepKernel's work and, from each vertex
// while it is still in registers, its texel on level 0 into shared memory,
// then levels 0 .. texels.count-1 from the block's texels
// (RippleWarpRows::stepWithTexels).
// The cuda-nvx backend launches it too, with the handles of Vulkan image
// views for surfaces (sim/cuda_nvx/cuda_nvx_simulation.cu).
// Four blocks an SM rather than the plain step's five: capped for five, the
// texels' registers spill (ptxas for sm_90: 8 bytes stored, 4 loaded), and
// on an H100 that gained cuda 0.003 ms at 8192² and cost cuda-nvx 0.006 ms
// there (docs/results/2026-12-06-h100-run35.md, the section on the
// textured CUDA step capped for 5 blocks an SM).
inline constexpr uint32_t kRippleTexelsMinBlocks = 4;
VKSIM_NVX_ENTRY __global__ void __launch_bounds__(BackendRippleConfig::kThreads,
                                  fittedMinBlocks(BackendRippleConfig::kThreads, kRippleTexelsMinBlocks))
    rippleStepTexelsKernel(const float* __restrict__ current, const float* __restrict__ previous,
                           float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                           float4* __restrict__ vertices, TexelLevels texels) {
  BackendRippleConfig::stepWithTexels(current, previous, next, grid, coefficients, vertices, texels);
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

// A ripple step's operands, in the step kernels' parameter order: next
// heights and vertices from current and previous (`next` must not alias
// `previous`), device pointers, `grid` cells a side.
struct RippleStepArgs {
  const float* current;
  const float* previous;
  float* next;
  uint32_t grid;
  RippleCoefficients coefficients;
  float4* vertices;
};

// The CUDA backend's launches of the two entry points, in the candidates'
// shape (kernel_bench lists them as "backend"): the kernel's address (for
// loading it before the first external wait: the lazy-loading trap in
// docs/design.md) and its launch on `stream`.
struct BackendRippleStep {
  static const void* kernel() { return reinterpret_cast<const void*>(&rippleStepKernel); }
  static void launch(const RippleStepArgs& step, cudaStream_t stream) {
    rippleStepKernel<<<rippleStepBlocks(step.grid), rippleStepThreads(), 0, stream>>>(
        step.current, step.previous, step.next, step.grid, step.coefficients, step.vertices);
  }
  // The same step writing the texture's first levels too (rippleStepTexelsKernel).
  static const void* texelsKernel() { return reinterpret_cast<const void*>(&rippleStepTexelsKernel); }
  static void launchWithTexels(const RippleStepArgs& step, const TexelLevels& texels, cudaStream_t stream) {
    rippleStepTexelsKernel<<<rippleStepBlocks(step.grid), rippleStepThreads(), 0, stream>>>(
        step.current, step.previous, step.next, step.grid, step.coefficients, step.vertices, texels);
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
