// The ripple step written the plain way: one thread per vertex, nothing
// shared between threads, every load and store straight to device memory.
// It is the kernel to read first. The backends run a tuned kernel instead
// (RippleWarpRows in cuda_ripple_warp_rows.cuh, chosen in cuda_kernels.cuh)
// that computes the same values, bit for bit, in less time; kernel_bench
// times this one beside it as "plain" (docs/benchmarks.md, "The kernel:
// plain beside tuned"). Internal to sim/: included only by .cu files; an
// anonymous namespace, so each including file gets its own copy.
#pragma once
#include <cuda_runtime.h>

#include "sim/model_math.h"

namespace vksim {
namespace {

// A block is 32 x 8 threads: each warp covers 32 neighbouring vertices of
// one row, so its loads and stores touch consecutive addresses.
constexpr uint32_t kPlainBlockX = 32, kPlainBlockY = 8;

inline dim3 ripplePlainThreads() { return dim3(kPlainBlockX, kPlainBlockY); }
inline dim3 ripplePlainBlocks(uint32_t grid) {
  return dim3((grid + kPlainBlockX - 1) / kPlainBlockX, (grid + kPlainBlockY - 1) / kPlainBlockY);
}

// One leapfrog step of the wave equation and the vertex it moves.
// In:  current and previous heights (grid x grid floats, row-major).
// Out: next heights, and one vertex (position, normal: two float4) a cell,
//      written into the buffer Vulkan draws from.
// `next` must not alias `previous`: a thread reads its neighbours' previous
// heights while other threads write their next ones.
__global__ void ripplePlainKernel(const float* __restrict__ current, const float* __restrict__ previous,
                                  float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients,
                                  float4* __restrict__ vertices) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;  // column, along x
  const uint32_t j = blockIdx.y * blockDim.y + threadIdx.y;  // row, along z
  if (i >= grid || j >= grid) return;

  // The leapfrog update of any cell (ci, cj): five current heights and its
  // own previous one; 0 on the grid's edge (rippleNextHeight, model_math.h,
  // the arithmetic the CPU reference runs too).
  const auto nextHeightAt = [&](uint32_t ci, uint32_t cj) {
    return rippleNextHeight(current, previous[cj * grid + ci], grid, ci, cj, coefficients);
  };
  const float height = nextHeightAt(i, j);
  next[j * grid + i] = height;

  // The normal comes from the slopes of the *next* field. The neighbours'
  // next heights belong to other threads, which may not have written them
  // yet (threads of a launch run in no order), so this thread computes
  // them again: the same inputs, so the same bits. That is four more
  // stencils a vertex; the tuned kernel shares them between lanes instead.
  const NeighbourPair alongX = slopeNeighbours(i, grid);  // i-1, i+1; the cell itself at an edge
  const NeighbourPair alongZ = slopeNeighbours(j, grid);
  const auto heightAt = [&](uint32_t ci, uint32_t cj) { return ci == i && cj == j ? height : nextHeightAt(ci, cj); };
  const float spacing = gridSpacing(grid);
  const float slopeX = finiteDifferenceSlope(heightAt(alongX.lower, j), heightAt(alongX.upper, j), alongX, spacing);
  const float slopeZ = finiteDifferenceSlope(heightAt(i, alongZ.lower), heightAt(i, alongZ.upper), alongZ, spacing);
  const Float4 normal = surfaceNormal(slopeX, slopeZ);

  // The vertex layout the renderer reads (shaders/shared_layout.h):
  // position, then normal, 32 bytes.
  const size_t cell = size_t(j) * grid + i;
  vertices[2 * cell] = make_float4(gridCoordinate(i, grid), height, gridCoordinate(j, grid), 1.0f);
  vertices[2 * cell + 1] = make_float4(normal.x, normal.y, normal.z, normal.w);
}

}  // namespace
}  // namespace vksim
