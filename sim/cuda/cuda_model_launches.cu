// The CUDA backend's kernels on its stream: the state the model keeps on the
// device, every kernel loaded before any external wait is enqueued (the
// lazy-loading trap, design.md), and each step's launches. The per-vertex
// arithmetic is sim/model_math.h, the same as the CPU reference's; the host
// side of each step (time, coefficients, drops) is sim/models.h. The
// schedule's waits and signals around these launches are
// cuda_simulation.cu's.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/cuda/cuda_backend.cuh"
#include "sim/cuda/cuda_check.h"
#include "sim/cuda/cuda_kernels.cuh"
#include "sim/cuda/cuda_texture_kernels.cuh"
#include "sim/model_math.h"
#include "sim/models.h"
#include "sim/nvtx_ranges.h"

namespace vksim {

// What every path needs once the vertices have a home: the ripple state, the
// kernels loaded, the step timer's events, the injected stall's flag.
std::string CudaSimulation::createOwnState() {
  const uint32_t n = params_.grid;
  if (params_.model == ModelKind::ripple) {
    // Three fields (previous, current, next): the one-pass step
    // (BackendRippleStep, cuda_kernels.cuh) also computes its neighbours' next heights,
    // which read their previous heights, so next cannot overwrite previous
    // in place. 4 more bytes a vertex buy one pass over memory instead of two.
    if (cudaError_t result = CUDA_CHECK(cudaMalloc(&heights_, ownedBytes())))
      return cudaFailure("allocate " + std::to_string(ownedBytes()) + " bytes for the ripple state", result);
    previous_ = heights_;
    current_ = heights_ + size_t(n) * n;
    next_ = heights_ + 2 * size_t(n) * n;
  }

  // The lazy-loading trap (design.md): with lazy module loading, the first
  // launch of a kernel into a stream that is already waiting on an external
  // semaphore blocks this thread until the wait is satisfied, and this thread
  // is the one that would let it be. cudaFuncGetAttributes loads the kernel,
  // so every kernel that this file launches is loaded here, before any wait
  // is enqueued (the stall's kernel in createInjectedStall, cuda_stall.cu).
  const struct {
    const void* function;
    const char* name;
  } kernels[] = {{BackendSinewaveStep::kernel(), "sinewaveStepKernel"},
                 {reinterpret_cast<const void*>(&addDropsKernel), "addDropsKernel"},
                 {BackendRippleStep::kernel(), "rippleStepKernel"},
                 {BackendRippleStep::texelsKernel(), "rippleStepTexelsKernel"},
                 {reinterpret_cast<const void*>(&heightFieldVerticesKernel), "heightFieldVerticesKernel"},
                 {reinterpret_cast<const void*>(&surfaceTexelsKernel), "surfaceTexelsKernel"},
                 {reinterpret_cast<const void*>(&downsampleLevelsKernel), "downsampleLevelsKernel"}};
  for (const auto& kernel : kernels) {
    cudaFuncAttributes attributes{};
    if (cudaError_t result = CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel.function)))
      return cudaFailure(std::string("load ") + kernel.name, result);
  }
  if (std::string failure = timer_.create(); !failure.empty()) return "CUDA could not " + failure;
  return createInjectedStall();
}

// The model's initial state (state 0) on the stream: the vertices and, with
// an imported texture, its texels. False if a call or a launch failed.
bool CudaSimulation::enqueueInitialModelState() {
  clearStaleCudaError();
  bool written = true;
  if (params_.model == ModelKind::ripple) {
    written = CUDA_CHECK(cudaMemsetAsync(heights_, 0, ownedBytes(), stream_)) == cudaSuccess &&
              enqueueDrops({initialDrop(params_)});
    if (written) enqueueRippleVertices();
  } else {
    enqueueSinewave();
  }
  if (written) enqueueTexture();
  return written && CUDA_CHECK(cudaGetLastError()) == cudaSuccess;
}

// One step of the model's kernels on the stream, whichever path the
// vertices take afterwards. False if a launch failed.
bool CudaSimulation::enqueueModelStep() {
  const ProfileRange range("kernels");  // NVTX: what ncu's --nvtx-include "vkcuda-sim@kernels/" selects
  ++stepCount_;
  clearStaleCudaError();
  bool launched = true;
  if (params_.model == ModelKind::ripple) {
    launched = enqueueRippleStep();  // writes the texture's first levels as well
    if (launched && !levelSurfaces_.empty())
      enqueueTextureMips(firstTexelLevels(levelSurfaces_).count);
  } else {
    enqueueSinewave();
    enqueueTexture();
  }
  return CUDA_CHECK(cudaGetLastError()) == cudaSuccess && launched;
}

// The step of RippleModel::step (models.h), in stream order.
bool CudaSimulation::enqueueRippleStep() {
  const std::vector<Drop> drops = stepDrops(params_, stepCount_, queued_);
  queued_.clear();
  if (!enqueueDrops(drops)) return false;
  const RippleStepArgs args{current_, previous_, next_, params_.grid, rippleCoefficients(params_), vertexPointer()};
  // With the texture on, its first levels come from the vertices the step
  // computes, in the same kernel (no second pass over the vertex buffer).
  if (levelSurfaces_.empty()) {
    BackendRippleStep::launch(args, stream_);
  } else {
    BackendRippleStep::launchWithTexels(args, firstTexelLevels(levelSurfaces_), stream_);
  }
  // previous <- current <- next: host bookkeeping only, ordered with the
  // kernels by the stream that every launch uses.
  float* oldPrevious = previous_;
  previous_ = current_;
  current_ = next_;
  next_ = oldPrevious;
  return true;
}

bool CudaSimulation::enqueueDrops(const std::vector<Drop>& drops) {
  return CUDA_CHECK(launchDrops(drops, current_, previous_, params_.grid, stream_)) == cudaSuccess;
}

void CudaSimulation::enqueueRippleVertices() {
  heightFieldVerticesKernel<<<gridBlocks(params_.grid), dim3(kBlockX, kBlockY), 0, stream_>>>(
      current_, params_.grid, vertexPointer());
}

void CudaSimulation::enqueueSinewave() {
  BackendSinewaveStep::launch(vertexPointer(), sinewaveFrame(params_, stepCount_), stream_);
}

// The surface texture from the vertices just written, in stream order
// after them and before the step's signal: level 0, then the levels below.
// Nothing without an imported texture. Launch errors are left for the
// caller's cudaGetLastError. (The ripple step writes levels 0 to
// kStepTexelLevels - 1 itself and calls enqueueTextureMips alone.)
void CudaSimulation::enqueueTexture() {
  if (levelSurfaces_.empty()) return;
  const uint32_t n = params_.grid;
  surfaceTexelsKernel<<<texelBlocks(n, n), dim3(kBlockX, kBlockY), 0, stream_>>>(vertexPointer(), n,
                                                                                 levelSurfaces_[0]);
  enqueueTextureMips(1);
}

// Levels `firstLevel` .. the last, each from the one above, in stream
// order after the level above firstLevel: downsampleLevelsKernel, up to
// kDownsampleLevelsALaunch levels a launch (downsampleLaunches).
void CudaSimulation::enqueueTextureMips(uint32_t firstLevel) {
  for (const DownsampleLaunch& launch :
       downsampleLaunches(levelSurfaces_, uint32_t(levelSurfaces_.size()), textureSide_, firstLevel))
    downsampleLevelsKernel<<<launch.blocks, kDownsampleThreads, 0, stream_>>>(launch.levels);
}

}  // namespace vksim
