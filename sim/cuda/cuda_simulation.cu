// The CUDA backend, the part every path shares: it runs every frame's turn of
// the value schedule as
//   wait (external semaphore) -> kernels -> signal (external semaphore)
// on one non-blocking stream, so the host never waits inside a frame. How the
// vertices get a home is each path's own file (cuda_backend.cuh lists them):
// imported from Vulkan (cuda_import.cu), CUDA's own allocation
// (cuda_owned_vertices.cu), or the copy path's memory (cuda_copy_staging.cu).
// Events around each step (sim/cuda/cuda_step_timer.cuh) time it. The
// per-vertex arithmetic is sim/model_math.h, the same as the CPU reference's;
// the host side of each step (time, coefficients, drops) is sim/models.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/config.h"
#include "sim/cuda/cuda_backend.cuh"
#include "sim/cuda/cuda_check.h"
#include "sim/cuda/cuda_kernels.cuh"
#include "sim/cuda/cuda_texture_kernels.cuh"
#include "sim/model_math.h"
#include "sim/models.h"
#include "sim/nvtx_ranges.h"

namespace vksim {
namespace {

// The teardown's bound on finishing outstanding work: generous against a
// slow frame, short enough that a wait nobody will signal ends in a message.
constexpr uint64_t kTeardownTimeoutNs = kDefaultWaitTimeoutNs;
// The bound on the initial write (kernels, a copy or a signal; no wait):
// far above its cost at the largest grid, so reaching it means a stuck device.
constexpr uint64_t kInitialStateTimeoutNs = kDefaultWaitTimeoutNs;

}  // namespace

// ---- Creation: what every path does once the vertices have a home.

std::string CudaSimulation::checkGrid() const {
  const uint32_t n = params_.grid;
  if (n >= kMinGrid && n <= kMaxGrid) return "";
  return "grid " + std::to_string(n) + " is outside [" + std::to_string(kMinGrid) + ", " +
         std::to_string(kMaxGrid) + "]";
}

std::string CudaSimulation::selectDeviceAndCreateStream() {
  if (cudaError_t result = CUDA_CHECK(cudaSetDevice(ordinal_)))
    return cudaFailure("select device " + std::to_string(ordinal_), result);
  cudaDeviceProp properties{};
  if (cudaError_t result = CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal_)))
    return cudaFailure("query device " + std::to_string(ordinal_), result);
  deviceName_ = properties.name;
  // Non-blocking: no implicit ordering with the legacy default stream, which
  // nothing here uses; everything of a frame is ordered by this stream alone.
  if (cudaError_t result = CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)))
    return cudaFailure("create a stream", result);
  return "";
}

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
                 {reinterpret_cast<const void*>(&heightFieldVerticesKernel), "heightFieldVerticesKernel"},
                 {reinterpret_cast<const void*>(&surfaceTexelsKernel), "surfaceTexelsKernel"},
                 {reinterpret_cast<const void*>(&downsampleTexelsKernel), "downsampleTexelsKernel"}};
  for (const auto& kernel : kernels) {
    cudaFuncAttributes attributes{};
    if (cudaError_t result = CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel.function)))
      return cudaFailure(std::string("load ") + kernel.name, result);
  }
  if (std::string failure = timer_.create(); !failure.empty()) return "CUDA could not " + failure;
  return createInjectedStall();
}

// ---- The initial state and the step.

StepResult CudaSimulation::writeInitialState() {
  StepResult result;
  result.status = StepStatus::failed;
  stepCount_ = 0;
  queued_.clear();
  failed_ = true;  // until every call below has succeeded
  if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return result;
  clearStaleError();
  bool written = true;
  if (params_.model == ModelKind::ripple) {
    written = CUDA_CHECK(cudaMemsetAsync(heights_, 0, ownedBytes(), stream_)) == cudaSuccess &&
              enqueueDrops({initialDrop(params_)});
    if (written) enqueueRippleVertices();
  } else {
    enqueueSinewave();
  }
  if (written) enqueueTexture();
  written = written && CUDA_CHECK(cudaGetLastError()) == cudaSuccess;
  if (copyPath_) {
    // No semaphores: the host reads hostVertices() once the copy is done.
    if (!written || !enqueueCopyToHost()) return result;
  } else {
    // Render 0 waits on simDone (app/interop/value_schedule.h), so the initial
    // writes reach Vulkan through a dependency it can see. CUDA's external
    // semaphore signal makes every write enqueued before it on the stream
    // visible to the work that waits on it (CUDA Runtime API,
    // cudaSignalExternalSemaphoresAsync). Signalled even when a write
    // failed, so that render 0 is not left waiting; failed_ then ends the
    // run at the first step.
    cudaExternalSemaphoreSignalParams signalParams{};
    if (CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&simDone_, &signalParams, 1, stream_)) != cudaSuccess)
      return result;
    result.signalEnqueued = true;
    if (!written) return result;
  }
  // The host waits for the stream here for the timer's anchor, which must be
  // recorded on an idle stream, and for the copy path, whose host copy
  // reads the result; render 0's order comes from the simDone signal.
  // Bounded: only kernels, a copy and a signal are queued, no wait.
  if (!waitForStream(kInitialStateTimeoutNs)) return result;
  failed_ = false;
  result.status = StepStatus::ok;
  timer_.restart(stream_);  // the stream is idle: the anchor's host time is accurate
  return result;
}

StepResult CudaSimulation::step(const StepSync& sync, bool advance,
                                uint64_t /*timeoutNs: the host never blocks here*/) {
  // Each field of the result is set right after the call that enqueued it
  // succeeded: the frame loop's drain waits only on what is recorded here.
  StepResult result;
  result.status = StepStatus::failed;
  if (failed_) return result;
  if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return result;
  if (copyPath_) return copyPathStep(advance, sync.fault == StepFault::stall);  // cuda_copy_staging.cu
  const ProfileRange stepRange([&] { return stepRangeName(sync); });  // NVTX: "sim step: wait 2k+1, signal 2k+2"
  const bool timeline = sync.mode == SyncMode::timeline;
  if (timeline ? !timeline_ : !(renderDone_ && simDone_)) {
    std::fprintf(stderr, "vkcuda-sim: the CUDA backend was given no %s semaphore%s\n",
                 timeline ? "timeline" : "binary", timeline ? "" : "s");
    return result;
  }

  timer_.reanchorIfDue(stream_);
  timer_.beginStep(stream_);
  // Sim k waits for render k: timeline value >= 2k+1 (fence.value), or the
  // binary renderDone signal that render k's submission carries (its value
  // is ignored). Enqueued only: the stream, not the host, waits.
  cudaExternalSemaphoreWaitParams waitParams{};
  waitParams.params.fence.value = timeline ? sync.waitValue : 0;
  if (CUDA_CHECK(cudaWaitExternalSemaphoresAsync(timeline ? &timeline_ : &renderDone_, &waitParams, 1,
                                                 stream_)) != cudaSuccess)
    return result;
  result.waitEnqueued = true;
  timer_.endWait(stream_);

  // FAULT HOOK (--inject-fault sim-stalls, cuda_stall.cu): the step never
  // completes; its kernels and signal queue up behind the spin until
  // teardown releases it.
  if (sync.fault == StepFault::stall && !enqueueStall()) {
    failed_ = true;
    return result;
  }
  const bool launched = !advance || enqueueModelStep();
  timer_.endWork(stream_);

  // Then signal 2k+2 (or simDone) behind the kernels in stream order: the
  // render of frame k+1 waits on it and sees every write. Signalled even when
  // a launch failed, so the other side is not left waiting for ever.
  // FAULT HOOK (--inject-fault sim-skips-signal): the signal is left out,
  // and the result says so (signalEnqueued stays false): the frame loop
  // then never hands a wait for it to Vulkan.
  if (sync.fault != StepFault::skipSignal) {
    cudaExternalSemaphoreSignalParams signalParams{};
    signalParams.params.fence.value = timeline ? sync.signalValue : 0;
    if (CUDA_CHECK(cudaSignalExternalSemaphoresAsync(timeline ? &timeline_ : &simDone_, &signalParams, 1,
                                                     stream_)) != cudaSuccess) {
      // The wait is queued and nothing after it will signal: no later step
      // may pretend otherwise.
      failed_ = true;
      return result;
    }
    result.signalEnqueued = true;
  }
  // After the signal in stream order: when this event has completed, so has
  // the signal, and a render waiting on it is enqueued already satisfied.
  timer_.endStep(stream_);
  if (!launched) {
    failed_ = true;
    return result;
  }
  result.status = StepStatus::ok;
  return result;
}

// One step of the model's kernels on the stream, whichever path the
// vertices take afterwards. False if a launch failed.
bool CudaSimulation::enqueueModelStep() {
  const ProfileRange range("kernels");  // NVTX: what ncu's --nvtx-include "vkcuda-sim@kernels/" selects
  ++stepCount_;
  clearStaleError();
  bool launched = true;
  if (params_.model == ModelKind::ripple)
    launched = enqueueRippleStep();
  else
    enqueueSinewave();
  if (launched) enqueueTexture();
  return CUDA_CHECK(cudaGetLastError()) == cudaSuccess && launched;
}

// The step of RippleModel::step (models.h), in stream order.
bool CudaSimulation::enqueueRippleStep() {
  const std::vector<Drop> drops = stepDrops(params_, stepCount_, queued_);
  queued_.clear();
  if (!enqueueDrops(drops)) return false;
  BackendRippleStep::launch(
      {current_, previous_, next_, params_.grid, rippleCoefficients(params_), vertexPointer()}, stream_);
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
// after them and before the step's signal: level 0, then each level from
// the one above. Nothing without an imported texture. Launch errors are
// left for the caller's cudaGetLastError.
void CudaSimulation::enqueueTexture() {
  if (levelSurfaces_.empty()) return;
  const uint32_t n = params_.grid;
  surfaceTexelsKernel<<<texelBlocks(n, n), dim3(kBlockX, kBlockY), 0, stream_>>>(vertexPointer(), n,
                                                                                 levelSurfaces_[0]);
  for (uint32_t level = 1; level < levelSurfaces_.size(); ++level) {
    const uint32_t aboveWidth = std::max(textureWidth_ >> (level - 1), 1u);
    const uint32_t aboveHeight = std::max(textureHeight_ >> (level - 1), 1u);
    const uint32_t width = std::max(textureWidth_ >> level, 1u),
                   height = std::max(textureHeight_ >> level, 1u);
    downsampleTexelsKernel<<<texelBlocks(width, height), dim3(kBlockX, kBlockY), 0, stream_>>>(
        levelSurfaces_[level - 1], aboveWidth, aboveHeight, levelSurfaces_[level], width, height);
  }
}

// ---- Between steps: the host asks, never blocks without a bound.

bool CudaSimulation::finish(uint64_t timeoutNs) {
  if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return false;
  return waitForStream(timeoutNs);
}

bool CudaSimulation::isStepComplete() {
  // Asked of the stream even after a failure: the copy path's host copy
  // must not read pinned memory that a queued copy may still write.
  if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return true;  // no context: nothing runs
  return timer_.lastStepComplete(stream_);
}

bool CudaSimulation::takeStepTiming(StepTiming* timing) {
  if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return false;
  return timer_.take(timing);
}

// Polls rather than cudaStreamSynchronize: a stream blocked on a semaphore
// that is never signalled would block the host for ever. cudaErrorNotReady
// is the expected "still running", not a failure.
bool CudaSimulation::waitForStream(uint64_t timeoutNs) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeoutNs);
  for (;;) {
    const cudaError_t result = cudaStreamQuery(stream_);
    if (result == cudaSuccess) return true;
    if (result != cudaErrorNotReady) {
      reportCudaError(result, "cudaStreamQuery(stream_)", __FILE__, __LINE__);
      return false;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// Reads the vertices through CUDA's own mapping of the imported memory (for
// the test that Vulkan and CUDA see one memory). A device-to-host copy into
// pageable memory blocks the host for as long as the stream takes to reach
// it, with no bound, so it goes through pinned memory instead (a truly
// asynchronous copy) and the host waits for it at most timeoutNs. If that
// wait times out, the pinned buffer is still a copy's destination: it is
// kept (freed by the destructor once the stream has finished), not freed.
bool CudaSimulation::copyVerticesToHost(void* destination, uint64_t bytes, uint64_t timeoutNs) {
  const uint64_t available = uint64_t(params_.grid) * params_.grid * sizeof(Vertex);
  if (failed_ || !vertexPointer() || bytes > available) return false;
  if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return false;
  if (!readbackBounce_ && CUDA_CHECK(cudaMallocHost(&readbackBounce_, vertexBytes())) != cudaSuccess) {
    readbackBounce_ = nullptr;
    return false;
  }
  if (CUDA_CHECK(cudaMemcpyAsync(readbackBounce_, vertexPointer(), bytes, cudaMemcpyDeviceToHost, stream_)) !=
      cudaSuccess)
    return false;
  if (!waitForStream(timeoutNs)) return false;
  std::memcpy(destination, readbackBounce_, bytes);
  return true;
}

// ---- Teardown.

// The teardown of design.md, CUDA first: finish the stream, cudaFree the
// mapped pointer, destroy the external memory, destroy the external
// semaphores (no wait or signal outstanding by then), free own memory,
// destroy the stream. Works on a partly created object too.
CudaSimulation::~CudaSimulation() {
  // The stream is the first object create() makes: without it there is
  // nothing to release.
  if (!stream_) return;
  if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return;
  // A stall that teardown did not release (an exception on another path)
  // would keep the stream from ever finishing.
  releaseInjectedStall();
  if (!waitForStream(kTeardownTimeoutNs)) {
    // Freeing memory that a queued kernel will still write, or destroying a
    // semaphore with a wait outstanding, is undefined behaviour; leaking
    // them until the process ends is not.
    std::fprintf(stderr,
                 "vkcuda-sim: the CUDA stream did not finish within %llu s (a semaphore wait that was never "
                 "signalled?); its imported buffer and semaphores are left in place\n",
                 static_cast<unsigned long long>(kTeardownTimeoutNs / 1'000'000'000ull));
    return;
  }
  // cudaExternalMemoryGetMappedBuffer: "The returned pointer ... must be
  // freed using cudaFree", before the external memory is destroyed.
  if (mappedVertices_) CUDA_CHECK(cudaFree(mappedVertices_));
  if (vertexMemory_) CUDA_CHECK(cudaDestroyExternalMemory(vertexMemory_));
  // The texture, in the same order: what was made from the mipmapped array
  // (its surface objects), the mipmapped array (cudaFreeMipmappedArray: the
  // level arrays are its own and are not freed separately), and only then
  // the external memory it was mapped from. Destroying the memory object
  // does not free its mappings (cudaDestroyExternalMemory).
  for (cudaSurfaceObject_t surface : levelSurfaces_) CUDA_CHECK(cudaDestroySurfaceObject(surface));
  if (textureArray_) CUDA_CHECK(cudaFreeMipmappedArray(textureArray_));
  if (textureMemory_) CUDA_CHECK(cudaDestroyExternalMemory(textureMemory_));
  for (cudaExternalSemaphore_t semaphore : {timeline_, renderDone_, simDone_})
    if (semaphore) CUDA_CHECK(cudaDestroyExternalSemaphore(semaphore));
  if (heights_) CUDA_CHECK(cudaFree(heights_));
  if (ownVertices_) CUDA_CHECK(cudaFree(ownVertices_));
  if (pinnedVertices_) CUDA_CHECK(cudaFreeHost(pinnedVertices_));
  if (readbackBounce_) CUDA_CHECK(cudaFreeHost(readbackBounce_));
  if (stallRelease_) CUDA_CHECK(cudaFreeHost(stallRelease_));
  timer_.destroy();
  CUDA_CHECK(cudaStreamDestroy(stream_));
}

// ---- The entry points of cuda_simulation.h that every path shares (each
// path's create function is in its own file).

uint64_t cudaOwnedDeviceBytes(const Simulation& simulation) {
  const auto* cuda = dynamic_cast<const CudaSimulation*>(&simulation);
  return cuda ? cuda->ownedBytes() : 0;
}

bool copyCudaVerticesToHost(Simulation& simulation, void* destination, uint64_t bytes, uint64_t timeoutNs) {
  auto* cuda = dynamic_cast<CudaSimulation*>(&simulation);
  return cuda && cuda->copyVerticesToHost(destination, bytes, timeoutNs);
}

}  // namespace vksim
