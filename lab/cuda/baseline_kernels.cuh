// kernel_bench's baselines (through cuda_kernel_bench.cu): the first versions
// of the step kernels, which show what the candidates gain, and the ripple
// step's memory traffic without its arithmetic, the ceiling for its mix of
// reads and writes. Internal to lab/: included by cuda_kernel_bench.cu only.
// Everything is in an anonymous namespace, as in cuda_kernels.cuh.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

#include "sim/cuda/cuda_kernel_parts.cuh"
#include "sim/cuda/cuda_kernels.cuh"
#include "sim/model_math.h"
#include "sim/models.h"

namespace vksim {
namespace {

// ---- Baselines: the first versions of the kernels, kept to show what the
// row kernels in kernel_candidates.cuh gain. 2D blocks of 32x8, each thread
// storing its own vertex.

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

// One leapfrog step, the new heights written over `previous` in place (each
// cell reads only its own previous height).
__global__ void rippleLeapfrogKernel(const float* __restrict__ current, float* __restrict__ previous,
                                     uint32_t grid, RippleCoefficients coefficients) {
  const CellIndex cell = threadCell();
  if (cell.i >= grid || cell.j >= grid) return;
  const uint32_t index = cell.j * grid + cell.i;
  previous[index] = rippleNextHeight(current, previous[index], grid, cell.i, cell.j, coefficients);
}

// The next heights alone, out of place: the row kernel's heights (the same
// rippleNextHeight per cell), with no vertices and no shared memory. It takes
// the fields to each RippleState and through the steps before a bit check:
// thousands of launches, which under compute-sanitizer's racecheck cost
// little only for a kernel that touches no shared memory. (When the row
// kernel took the fields there, racecheck's target process died after about
// a minute on the H200, every time and with no message; the cause was not
// found.)
__global__ void rippleHeightsKernel(const float* __restrict__ current, const float* __restrict__ previous,
                                    float* __restrict__ next, uint32_t grid, RippleCoefficients coefficients) {
  const CellIndex cell = threadCell();
  if (cell.i >= grid || cell.j >= grid) return;
  const uint32_t index = cell.j * grid + cell.i;
  next[index] = rippleNextHeight(current, previous[index], grid, cell.i, cell.j, coefficients);
}

// timeRippleTrafficMs's kernel: the ripple step's reads and writes in the
// tiles' store pattern, and nothing else. Lane t of a warp stores float4
// number t and 32 + t of the warp's 64 (two store instructions, each 512
// contiguous bytes), filled from its own cell's loads. With Texels, each
// cell also writes 4 bytes of level 0: through the texture's surface, a row
// of 32 a warp store (as the step did before its two-row pieces), or, with linear, to a row-major buffer by a plain store
// (timeRippleTrafficTexelsMs). pairedSurface writes the same number of
// texels through the surface, each warp store 16 columns of two rows (warp w
// of the launch covers tile w of the level's 16-by-2 tiles, in row-major
// order) where surface stores one row of 32: only the stores' shape differs.
enum class TrafficTexels { none, surface, linear, wideSurface, pairedSurface };
template <bool Streaming, TrafficTexels Texels = TrafficTexels::none>
__global__ void __launch_bounds__(256) rippleTrafficKernel(const float* __restrict__ current,
                                                           const float* __restrict__ previous,
                                                           float* __restrict__ next, uint64_t cells,
                                                           float4* __restrict__ vertices, uint32_t grid = 0,
                                                           cudaSurfaceObject_t level0 = 0,
                                                           uchar4* __restrict__ linear = nullptr) {
  const uint64_t warpFirst = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) & ~uint64_t(31);
  const uint32_t lane = threadIdx.x & 31u;
  const uint64_t cell = warpFirst + lane;
  if (warpFirst >= cells) return;  // cells is a multiple of 32 at every benchmarked grid
  const float c = current[cell], p = previous[cell];
  next[cell] = c - p;
  float4* out = vertices + 2 * warpFirst;
  const float4 first = make_float4(c, p, c + p, 1.0f), second = make_float4(c * p, c, p, 0.0f);
  if constexpr (Streaming) {
    __stcs(out + lane, first);
    __stcs(out + 32 + lane, second);
  } else {
    out[lane] = first;
    out[32 + lane] = second;
  }
  const uchar4 texel = make_uchar4(uint8_t(__float_as_uint(c)), uint8_t(__float_as_uint(p)), 0, 255);
  if constexpr (Texels == TrafficTexels::surface)
    surf2Dwrite(texel, level0, int(uint32_t(cell % grid) * sizeof(uchar4)), int(cell / grid));
  if constexpr (Texels == TrafficTexels::linear) linear[cell] = texel;
  if constexpr (Texels == TrafficTexels::pairedSurface) {
    const uint64_t tile = warpFirst / 32, tilesAcross = grid / 16;  // grid is a multiple of 16 where it runs
    const uint32_t x = uint32_t(tile % tilesAcross) * 16 + lane % 16, y = uint32_t(tile / tilesAcross) * 2 + lane / 16;
    surf2Dwrite(texel, level0, int(x * sizeof(uchar4)), int(y));
  }
  // wideSurface: lane 4k gathers lanes 4k..4k+3's texels (consecutive
  // columns of one row) and stores the 16 bytes with one unformatted
  // surface store; 8 stores a warp instead of 32.
  if constexpr (Texels == TrafficTexels::wideSurface) {
    constexpr unsigned kAllLanes = 0xffffffffu;
    uint32_t word;
    memcpy(&word, &texel, sizeof word);
    const uint32_t w1 = __shfl_down_sync(kAllLanes, word, 1), w2 = __shfl_down_sync(kAllLanes, word, 2),
                   w3 = __shfl_down_sync(kAllLanes, word, 3);
    if (lane % 4 == 0)
      surf2Dwrite(make_uint4(word, w1, w2, w3), level0, int(uint32_t(cell % grid) * sizeof(uchar4)),
                  int(cell / grid));
  }
}

}  // namespace
}  // namespace vksim
