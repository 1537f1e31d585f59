// The building blocks of the step kernels: the thread-to-cell mapping, the
// vertex stores, the height loads and the __launch_bounds__ cap. Shared by
// the kernels the backends run (cuda_kernels.cuh, cuda_ripple_warp_rows.cuh)
// and the benchmark's candidates (lab/cuda/kernel_candidates.cuh), so that what
// is measured is built from what runs. Internal to sim/ and lab/: included
// only by .cu files. Everything is in an anonymous namespace, so each including file gets
// its own copy and no symbol is defined twice.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>

#include "sim/model_math.h"
#include "sim/models.h"

namespace vksim {
namespace {

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

// Two aligned 16-byte stores per vertex into a staging area (shared memory):
// thread t's vertex at float4 2t and 2t+1.
__device__ inline void stageVertex(float4* staged, uint32_t t, const Vertex& vertex) {
  staged[2 * t] = make_float4(vertex.position.x, vertex.position.y, vertex.position.z, vertex.position.w);
  staged[2 * t + 1] = make_float4(vertex.normal.x, vertex.normal.y, vertex.normal.z, vertex.normal.w);
}

// ---- Warp-private vertex stores.
//
// Every warp stores 32 consecutive vertices through a warp-private staging
// area, so that each store instruction covers 512 contiguous bytes with no
// __syncthreads. With Streaming, the vertex stores carry the evict-first hint
// (st.global.cs): nothing in the step reads them again, and they need not push
// the height fields out of L2. kTileThreads is the block size of the kernels
// that store this way, tileBlocks their geometry for W x R cells a block.
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

// Texel (x, y) of a surface on an RGBA8 level: surface x is in bytes, y in
// rows (the surface functions' rule).
__device__ inline void storeSurfaceTexel(cudaSurfaceObject_t surface, uint32_t x, uint32_t y, Texel texel) {
  surf2Dwrite(make_uchar4(texel.r, texel.g, texel.b, texel.a), surface, int(x * sizeof(uchar4)), int(y));
}
__device__ inline uchar4 packTexel(Texel texel) { return make_uchar4(texel.r, texel.g, texel.b, texel.a); }
__device__ inline Texel unpackTexel(uchar4 value) { return {value.x, value.y, value.z, value.w}; }

// The first levels of the surface texture, for a step that writes them
// itself: surface objects on levels 0 .. count-1 (count <= kStepTexelLevels).
inline constexpr uint32_t kStepTexelLevels = 4;
struct TexelLevels {
  cudaSurfaceObject_t level[kStepTexelLevels];
  uint32_t count;
};
// The step's levels from `surfaces` (one a level, level 0 first): the first
// `levels` of them, at most kStepTexelLevels.
template <typename Surfaces>
inline TexelLevels firstTexelLevels(const Surfaces& surfaces, uint32_t levels = kStepTexelLevels) {
  TexelLevels texels{};
  texels.count = std::min({levels, uint32_t(surfaces.size()), kStepTexelLevels});
  for (uint32_t level = 0; level < texels.count; ++level) texels.level[level] = surfaces[level];
  return texels;
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

}  // namespace
}  // namespace vksim
