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

__global__ void sinewaveKernel(float4* __restrict__ vertices, SinewaveFrame frame) {
  const CellIndex cell = threadCell();
  if (cell.i >= frame.grid || cell.j >= frame.grid) return;
  const NeighbourPair alongX = slopeNeighbours(cell.i, frame.grid);
  const NeighbourPair alongZ = slopeNeighbours(cell.j, frame.grid);
  const AxisFactors x{sinewaveFactorX(frame, alongX.lower), sinewaveFactorX(frame, cell.i),
                      sinewaveFactorX(frame, alongX.upper)};
  const AxisFactors z{sinewaveFactorZ(frame, alongZ.lower), sinewaveFactorZ(frame, cell.j),
                      sinewaveFactorZ(frame, alongZ.upper)};
  storeVertex(vertices, cell.j * frame.grid + cell.i, sinewaveVertex(frame, cell.i, cell.j, x, z));
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

// One leapfrog step, the new heights written over `previous` in place (each
// cell reads only its own previous height).
__global__ void rippleStepKernel(const float* __restrict__ current, float* __restrict__ previous,
                                 uint32_t grid, RippleCoefficients coefficients) {
  const CellIndex cell = threadCell();
  if (cell.i >= grid || cell.j >= grid) return;
  const uint32_t index = cell.j * grid + cell.i;
  previous[index] = rippleNextHeight(current, previous[index], grid, cell.i, cell.j, coefficients);
}

__global__ void heightFieldVerticesKernel(const float* __restrict__ heights, uint32_t grid,
                                          float4* __restrict__ vertices) {
  const CellIndex cell = threadCell();
  if (cell.i >= grid || cell.j >= grid) return;
  storeVertex(vertices, cell.j * grid + cell.i, heightFieldVertex(heights, grid, cell.i, cell.j));
}

inline dim3 gridBlocks(uint32_t n) { return dim3((n + kBlockX - 1) / kBlockX, (n + kBlockY - 1) / kBlockY); }

}  // namespace
}  // namespace vksim
