// The CUDA backend: imports the renderer's vertex buffer and semaphores (opaque
// fds), and runs every frame's turn of the value schedule as
//   wait (external semaphore) -> kernels -> signal (external semaphore)
// on one non-blocking stream, so the host never waits inside a frame. The copy
// path (createCudaCopySimulation) is the same step without interop: kernels
// into memory of its own, then a copy to pinned host memory, no semaphores.
// Events around each step (sim/cuda/cuda_step_timer.cuh) time it. The
// per-vertex arithmetic is sim/model_math.h, the same as the CPU reference's;
// the host side of each step (time, coefficients, drops) is sim/models.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/config.h"
#include "sim/cuda/cuda_check.h"
#include "sim/cuda/cuda_kernels.cuh"
#include "sim/cuda/cuda_simulation.h"
#include "sim/cuda/cuda_step_timer.cuh"
#include "sim/cuda/cuda_texture_kernels.cuh"
#include "sim/model_math.h"
#include "sim/models.h"

namespace vksim {
namespace {

// The teardown's bound on finishing outstanding work: generous against a
// slow frame, short enough that a wait nobody will signal ends in a message.
constexpr uint64_t kTeardownTimeoutNs = kDefaultWaitTimeoutNs;
// The bound on the initial write (kernels, a copy or a signal; no wait):
// far above its cost at the largest grid, so reaching it means a stuck device.
constexpr uint64_t kInitialStateTimeoutNs = kDefaultWaitTimeoutNs;

// Test facility (--inject-fault sim-stalls, sim/fault_plan.h): a step that
// never completes until the host says so. It spins on a flag in mapped pinned
// host memory (cudaHostAllocMapped), read through a volatile pointer so that
// every iteration reads the host's memory again instead of a value kept in a
// register; releaseInjectedStall() writes 1 there at teardown. The sleep keeps
// the spinning thread from flooding the bus with reads.
__global__ void stallUntilReleasedKernel(const volatile unsigned int* release) {
  while (*release == 0u) __nanosleep(10'000);
}

// The one sentence for *error when a CUDA call fails.
std::string cudaFailure(const std::string& what, cudaError_t result) {
  return "CUDA could not " + what + " (" + cudaGetErrorName(result) + ")";
}

// After a successful import of an opaque fd: the CUDA runtime's rule is that
// the import transfers the fd to the driver, and any later use of it (close
// included) is undefined. Setting it to -1 tells the caller, who owns every
// fd until then and closes the ones left (simulation.h).
void handOverFd(int& fd) { fd = -1; }

class CudaSimulation final : public Simulation {
 public:
  CudaSimulation(const ModelParams& params, int ordinal)
      : params_(clampModelParams(params)), ordinal_(ordinal) {}

  // The teardown of design.md, CUDA first: finish the stream, cudaFree the
  // mapped pointer, destroy the external memory, destroy the external
  // semaphores (no wait or signal outstanding by then), free own memory,
  // destroy the stream. Works on a partly created object too.
  ~CudaSimulation() override {
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
      std::fprintf(
          stderr,
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

  CudaSimulation(const CudaSimulation&) = delete;
  CudaSimulation& operator=(const CudaSimulation&) = delete;

  // Everything createCudaSimulation promises, in the order that lets the
  // destructor undo a partial result. Returns "" or the sentence for *error.
  std::string create(ExternalBuffer& vertices, ExternalSemaphores& semaphores, ExternalTexture* texture) {
    if (std::string failure = checkGrid(); !failure.empty()) return failure;
    const uint64_t needed = vertexBytes();
    const uint32_t n = params_.grid;
    if (vertices.fd < 0) return "no vertex buffer fd was given";
    if (vertices.size < needed)
      return "the vertex buffer holds " + std::to_string(vertices.size) + " bytes, less than the " +
             std::to_string(needed) + " that a grid of " + std::to_string(n) + " needs";
    if (vertices.allocationSize < vertices.size)
      return "the vertex buffer's allocation size (" + std::to_string(vertices.allocationSize) +
             " bytes) is less than its size (" + std::to_string(vertices.size) + " bytes)";

    if (std::string failure = selectDeviceAndCreateStream(); !failure.empty()) return failure;
    int timelineSupported = 0;
    if (cudaError_t result = CUDA_CHECK(cudaDeviceGetAttribute(
            &timelineSupported, cudaDevAttrTimelineSemaphoreInteropSupported, ordinal_)))
      return cudaFailure("query timeline semaphore support", result);
    if (semaphores.timelineFd >= 0 && !timelineSupported)
      return "CUDA device " + std::to_string(ordinal_) + " (" + deviceName_ +
             ") cannot import timeline semaphores (cudaDevAttrTimelineSemaphoreInteropSupported is 0)";

    // The import must name the allocation's size (VkMemoryRequirements::size,
    // not the size the buffer asked for) and, for a dedicated allocation,
    // cudaExternalMemoryDedicated: both must match how Vulkan allocated it.
    cudaExternalMemoryHandleDesc memoryDesc{};
    memoryDesc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    memoryDesc.handle.fd = vertices.fd;
    memoryDesc.size = vertices.allocationSize;
    memoryDesc.flags = vertices.dedicated ? cudaExternalMemoryDedicated : 0u;
    if (cudaError_t result = CUDA_CHECK(cudaImportExternalMemory(&vertexMemory_, &memoryDesc)))
      return cudaFailure("import the vertex buffer's memory", result);
    handOverFd(vertices.fd);
    // The buffer sits at offset 0 of its own allocation.
    cudaExternalMemoryBufferDesc bufferDesc{};
    bufferDesc.offset = 0;
    bufferDesc.size = vertices.size;
    if (cudaError_t result =
            CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&mappedVertices_, vertexMemory_, &bufferDesc)))
      return cudaFailure("map the imported vertex buffer", result);
    if (texture && texture->fd >= 0)
      if (std::string failure = importTexture(*texture); !failure.empty()) return failure;

    if (std::string failure = importSemaphore(
            semaphores.timelineFd, cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd, "timeline", &timeline_);
        !failure.empty())
      return failure;
    if (std::string failure = importSemaphore(semaphores.renderDoneFd, cudaExternalSemaphoreHandleTypeOpaqueFd,
                                              "renderDone", &renderDone_);
        !failure.empty())
      return failure;
    if (std::string failure =
            importSemaphore(semaphores.simDoneFd, cudaExternalSemaphoreHandleTypeOpaqueFd, "simDone", &simDone_);
        !failure.empty())
      return failure;
    // simDone carries the initial state's signal, which render 0 waits on
    // whatever the sync mode (writeInitialState); renderDone only binary steps.
    if (!simDone_) return "no simDone semaphore was given (the initial state's signal needs it)";
    return createOwnState();
  }

  // --memory-owner cuda: the vertices live in CUDA's own allocation, mapped
  // at vertices.address (createCudaVertexMemory), and only the semaphores
  // cross from Vulkan. The allocation is borrowed, never released here: the
  // renderer's import of it must be freed first (app/interop/teardown.cpp).
  std::string createOnCudaMemory(const CudaVertexMemory& vertices, ExternalSemaphores& semaphores) {
    if (std::string failure = checkGrid(); !failure.empty()) return failure;
    if (vertices.address == 0 || !vertices.mapped) return "no mapped CUDA vertex memory was given";
    if (vertices.ordinal != ordinal_)
      return "the vertex memory lives on CUDA device " + std::to_string(vertices.ordinal) + ", not " +
             std::to_string(ordinal_);
    if (vertices.size < vertexBytes())
      return "the CUDA vertex memory holds " + std::to_string(vertices.size) + " bytes, less than the " +
             std::to_string(vertexBytes()) + " that a grid of " + std::to_string(params_.grid) + " needs";
    if (std::string failure = selectDeviceAndCreateStream(); !failure.empty()) return failure;
    int timelineSupported = 0;
    if (cudaError_t result = CUDA_CHECK(cudaDeviceGetAttribute(
            &timelineSupported, cudaDevAttrTimelineSemaphoreInteropSupported, ordinal_)))
      return cudaFailure("query timeline semaphore support", result);
    if (semaphores.timelineFd >= 0 && !timelineSupported)
      return "CUDA device " + std::to_string(ordinal_) + " (" + deviceName_ +
             ") cannot import timeline semaphores (cudaDevAttrTimelineSemaphoreInteropSupported is 0)";
    cudaOwnedVertices_ = reinterpret_cast<void*>(static_cast<uintptr_t>(vertices.address));
    if (std::string failure = importSemaphore(
            semaphores.timelineFd, cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd, "timeline", &timeline_);
        !failure.empty())
      return failure;
    if (std::string failure = importSemaphore(semaphores.renderDoneFd, cudaExternalSemaphoreHandleTypeOpaqueFd,
                                              "renderDone", &renderDone_);
        !failure.empty())
      return failure;
    if (std::string failure =
            importSemaphore(semaphores.simDoneFd, cudaExternalSemaphoreHandleTypeOpaqueFd, "simDone", &simDone_);
        !failure.empty())
      return failure;
    if (!simDone_) return "no simDone semaphore was given (the initial state's signal needs it)";
    return createOwnState();
  }

  // The copy path: the vertices go to memory of this backend's own, then to
  // pinned host memory (cudaMallocHost: the only kind a cudaMemcpyAsync to the
  // host is asynchronous with), where the frame loop picks them up.
  std::string createCopyPath() {
    if (std::string failure = checkGrid(); !failure.empty()) return failure;
    if (std::string failure = selectDeviceAndCreateStream(); !failure.empty()) return failure;
    copyPath_ = true;
    if (cudaError_t result = CUDA_CHECK(cudaMalloc(&ownVertices_, vertexBytes())))
      return cudaFailure("allocate " + std::to_string(vertexBytes()) + " bytes of vertices", result);
    if (cudaError_t result = CUDA_CHECK(cudaMallocHost(&pinnedVertices_, vertexBytes())))
      return cudaFailure("allocate " + std::to_string(vertexBytes()) + " bytes of pinned host memory",
                         result);
    return createOwnState();
  }

  // What both paths need once the vertices have a home: the ripple state, the
  // kernels loaded, the step timer's events.
  std::string createOwnState() {
    const uint32_t n = params_.grid;
    if (params_.model == ModelKind::ripple) {
      // Three fields (previous, current, next): the one-pass step
      // (BackendRippleStep, cuda_kernels.cuh) also computes its neighbours' next heights,
      // which read their previous heights, so next cannot overwrite previous
      // in place. 4 more bytes a vertex buy one pass over memory instead of two.
      if (cudaError_t result = CUDA_CHECK(cudaMalloc(&heights_, ownedBytes())))
        return cudaFailure("allocate " + std::to_string(ownedBytes()) + " bytes for the ripple state",
                           result);
      previous_ = heights_;
      current_ = heights_ + size_t(n) * n;
      next_ = heights_ + 2 * size_t(n) * n;
    }

    // The lazy-loading trap (design.md): with lazy module loading, the first
    // launch of a kernel into a stream that is already waiting on an external
    // semaphore blocks this thread until the wait is satisfied, and this thread
    // is the one that would let it be. cudaFuncGetAttributes loads the kernel,
    // so every kernel is loaded here, before any wait is enqueued.
    const struct {
      const void* function;
      const char* name;
    } kernels[] = {{BackendSinewaveStep::kernel(), "sinewaveStepKernel"},
                   {reinterpret_cast<const void*>(&addDropsKernel), "addDropsKernel"},
                   {BackendRippleStep::kernel(), "rippleStepKernel"},
                   {reinterpret_cast<const void*>(&heightFieldVerticesKernel), "heightFieldVerticesKernel"},
                   {reinterpret_cast<const void*>(&stallUntilReleasedKernel), "stallUntilReleasedKernel"},
                   {reinterpret_cast<const void*>(&surfaceTexelsKernel), "surfaceTexelsKernel"},
                   {reinterpret_cast<const void*>(&downsampleTexelsKernel), "downsampleTexelsKernel"}};
    for (const auto& kernel : kernels) {
      cudaFuncAttributes attributes{};
      if (cudaError_t result = CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel.function)))
        return cudaFailure(std::string("load ") + kernel.name, result);
    }
    if (std::string failure = timer_.create(); !failure.empty()) return "CUDA could not " + failure;
    // The injected stall's flag (a few bytes, allocated here rather than in a
    // frame, where an allocation could wait behind a stream's external wait).
    if (cudaError_t result = CUDA_CHECK(cudaHostAlloc(&stallRelease_, sizeof(unsigned int), cudaHostAllocMapped)))
      return cudaFailure("allocate the stall flag in mapped host memory", result);
    *stallRelease_ = 0u;
    if (cudaError_t result = CUDA_CHECK(cudaHostGetDevicePointer(&stallReleaseDevice_, stallRelease_, 0)))
      return cudaFailure("map the stall flag", result);
    return "";
  }

  void releaseInjectedStall() override {
    // A plain store to pinned memory that the kernel reads across the bus;
    // the fence keeps it from being held back behind later host work.
    if (!stallRelease_) return;
    *static_cast<volatile unsigned int*>(stallRelease_) = 1u;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }

  StepResult writeInitialState() override {
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

  StepResult step(const StepSync& sync, bool advance,
                  uint64_t /*timeoutNs: the host never blocks here*/) override {
    // Each field of the result is set right after the call that enqueued it
    // succeeded: the frame loop's drain waits only on what is recorded here.
    StepResult result;
    result.status = StepStatus::failed;
    if (failed_) return result;
    if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return result;
    if (copyPath_) return copyPathStep(advance, sync.fault == StepFault::stall);
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

    // FAULT HOOK (--inject-fault sim-stalls): the step never completes; its
    // kernels and signal queue up behind the spin until teardown releases it.
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

  void setParams(const ModelParams& params) override { params_ = changeParams(params_, params); }
  const ModelParams& params() const override { return params_; }

  void addDrop(const Drop& drop) override {
    if (params_.model == ModelKind::ripple) queued_.push_back(drop);
  }

  uint64_t stepCount() const override { return stepCount_; }

  bool finish(uint64_t timeoutNs) override {
    if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return false;
    return waitForStream(timeoutNs);
  }

  std::string backendName() const override { return "cuda"; }
  std::string deviceName() const override {
    return deviceName_ + " (CUDA device " + std::to_string(ordinal_) + ")";
  }

  bool isStepComplete() override {
    // Asked of the stream even after a failure: the copy path's host copy
    // must not read pinned memory that a queued copy may still write.
    if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return true;  // no context: nothing runs
    return timer_.lastStepComplete(stream_);
  }

  bool takeStepTiming(StepTiming* timing) override {
    if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return false;
    return timer_.take(timing);
  }

  const void* hostVertices() const override { return pinnedVertices_; }

  // Reads the vertices through CUDA's own mapping of the imported memory (for
  // the test that Vulkan and CUDA see one memory). A device-to-host copy into
  // pageable memory blocks the host for as long as the stream takes to reach
  // it, with no bound, so it goes through pinned memory instead (a truly
  // asynchronous copy) and the host waits for it at most timeoutNs. If that
  // wait times out, the pinned buffer is still a copy's destination: it is
  // kept (freed by the destructor once the stream has finished), not freed.
  bool copyVerticesToHost(void* destination, uint64_t bytes, uint64_t timeoutNs) {
    const uint64_t available = uint64_t(params_.grid) * params_.grid * sizeof(Vertex);
    if (failed_ || !vertexPointer() || bytes > available) return false;
    if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return false;
    if (!readbackBounce_ &&
        CUDA_CHECK(cudaMallocHost(&readbackBounce_, vertexBytes())) != cudaSuccess) {
      readbackBounce_ = nullptr;
      return false;
    }
    if (CUDA_CHECK(cudaMemcpyAsync(readbackBounce_, vertexPointer(), bytes, cudaMemcpyDeviceToHost,
                                   stream_)) != cudaSuccess)
      return false;
    if (!waitForStream(timeoutNs)) return false;
    std::memcpy(destination, readbackBounce_, bytes);
    return true;
  }

  // Device memory allocated here, beyond the imported vertex buffer.
  uint64_t ownedBytes() const {
    return params_.model == ModelKind::ripple ? 3 * uint64_t(params_.grid) * params_.grid * sizeof(float) : 0;
  }

 private:
  // The surface texture: import the image's memory, map it as a mipmapped
  // array that repeats how Vulkan created the image, and make one surface
  // object per level (every level is written by a kernel).
  std::string importTexture(ExternalTexture& texture) {
    if (texture.width != params_.grid || texture.height != params_.grid || texture.levels == 0)
      return "the surface texture is " + std::to_string(texture.width) + "x" + std::to_string(texture.height) +
             " with " + std::to_string(texture.levels) + " levels; a grid of " + std::to_string(params_.grid) +
             " needs one texel per vertex";
    // As for the buffer: the size of the allocation (VkMemoryRequirements::size
    // of the image, which includes every level and the driver's padding) and
    // the dedicated flag, both as Vulkan allocated it.
    cudaExternalMemoryHandleDesc memoryDesc{};
    memoryDesc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    memoryDesc.handle.fd = texture.fd;
    memoryDesc.size = texture.allocationSize;
    memoryDesc.flags = texture.dedicated ? cudaExternalMemoryDedicated : 0u;
    if (cudaError_t result = CUDA_CHECK(cudaImportExternalMemory(&textureMemory_, &memoryDesc)))
      return cudaFailure("import the surface texture's memory", result);
    handOverFd(texture.fd);  // CUDA's from here, as the vertex buffer's fd
    // Each field must describe the image exactly as vkCreateImage made it
    // (the external memory rules of the CUDA Programming Guide):
    cudaExternalMemoryMipmappedArrayDesc arrayDesc{};
    // - offset: the image sits at offset 0 of its dedicated allocation
    //   (vkBindImageMemory with offset 0);
    arrayDesc.offset = 0;
    // - formatDesc: VK_FORMAT_R8G8B8A8_UNORM is four 8-bit unsigned channels
    //   (read as uchar4; UNORM's scaling is the sampler's business);
    arrayDesc.formatDesc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    // - extent: VkImageCreateInfo::extent of a 2D image; depth 0, as
    //   cudaMalloc3DArray takes a 2D array (not 1, which would be 3D);
    arrayDesc.extent = make_cudaExtent(texture.width, texture.height, 0);
    // - flags: VK_IMAGE_USAGE_STORAGE_BIT corresponds to
    //   cudaArraySurfaceLoadStore (the kernels write through surface
    //   objects); the image is no colour attachment, so no
    //   cudaArrayColorAttachment, and neither layered nor a cube map;
    arrayDesc.flags = cudaArraySurfaceLoadStore;
    // - numLevels: VkImageCreateInfo::mipLevels, the whole chain.
    arrayDesc.numLevels = texture.levels;
    if (cudaError_t result =
            CUDA_CHECK(cudaExternalMemoryGetMappedMipmappedArray(&textureArray_, textureMemory_, &arrayDesc)))
      return cudaFailure("map the surface texture as a mipmapped array", result);
    textureWidth_ = texture.width;
    textureHeight_ = texture.height;
    for (uint32_t level = 0; level < texture.levels; ++level) {
      // The level's array belongs to the mipmapped array (freed with it).
      cudaArray_t levelArray = nullptr;
      if (cudaError_t result = CUDA_CHECK(cudaGetMipmappedArrayLevel(&levelArray, textureArray_, level)))
        return cudaFailure("get level " + std::to_string(level) + " of the surface texture", result);
      cudaResourceDesc resource{};
      resource.resType = cudaResourceTypeArray;
      resource.res.array.array = levelArray;
      cudaSurfaceObject_t surface = 0;
      if (cudaError_t result = CUDA_CHECK(cudaCreateSurfaceObject(&surface, &resource)))
        return cudaFailure("create a surface object for level " + std::to_string(level), result);
      levelSurfaces_.push_back(surface);
    }
    return "";
  }

  std::string importSemaphore(int& fd, cudaExternalSemaphoreHandleType type, const char* name,
                              cudaExternalSemaphore_t* semaphore) {
    if (fd < 0) return "";  // not exported: that sync mode is unavailable
    cudaExternalSemaphoreHandleDesc desc{};
    desc.type = type;
    desc.handle.fd = fd;
    if (cudaError_t result = CUDA_CHECK(cudaImportExternalSemaphore(semaphore, &desc))) {
      *semaphore = nullptr;
      return cudaFailure(std::string("import the ") + name + " semaphore", result);
    }
    handOverFd(fd);
    return "";
  }

  // cudaGetLastError returns the last error recorded on this thread by any
  // runtime call, not only by launches: drop what earlier calls left (each was
  // already reported by CUDA_CHECK), so that the check after a launch reports
  // that launch. (cudaStreamQuery's cudaErrorNotReady is not recorded: seen on
  // an H200 with CUDA 13.0.)
  static void clearStaleError() { (void)cudaGetLastError(); }

  // Where the kernels write: the imported buffer, CUDA's own allocation
  // (--memory-owner cuda), or (copy path) memory of this backend's own.
  float4* vertexPointer() const {
    return static_cast<float4*>(copyPath_ ? ownVertices_ : cudaOwnedVertices_ ? cudaOwnedVertices_ : mappedVertices_);
  }
  uint64_t vertexBytes() const { return uint64_t(params_.grid) * params_.grid * sizeof(Vertex); }

  std::string checkGrid() const {
    const uint32_t n = params_.grid;
    if (n >= kMinGrid && n <= kMaxGrid) return "";
    return "grid " + std::to_string(n) + " is outside [" + std::to_string(kMinGrid) + ", " +
           std::to_string(kMaxGrid) + "]";
  }

  std::string selectDeviceAndCreateStream() {
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

  // Device-to-host into the pinned buffer, behind the kernels in stream
  // order. The host reads that buffer only once the step's done event has
  // completed, and the next copy is enqueued only after the host has read it
  // (the frame loop copies before it calls step()): no race either way.
  bool enqueueCopyToHost() {
    return CUDA_CHECK(cudaMemcpyAsync(pinnedVertices_, ownVertices_, vertexBytes(), cudaMemcpyDeviceToHost,
                                      stream_)) == cudaSuccess;
  }

  // The copy path's step: no semaphores (the host orders everything), the
  // same kernels, then the copy to host memory. The "wait" span is empty.
  StepResult copyPathStep(bool advance, bool stall) {
    StepResult result;
    timer_.reanchorIfDue(stream_);
    timer_.beginStep(stream_);
    timer_.endWait(stream_);
    if (stall && !enqueueStall()) {  // FAULT HOOK (--inject-fault sim-stalls)
      failed_ = true;
      result.status = StepStatus::failed;
      return result;
    }
    const bool launched = !advance || enqueueModelStep();
    if (!launched || !enqueueCopyToHost()) {
      failed_ = true;
      result.status = StepStatus::failed;
      return result;
    }
    timer_.endWork(stream_);
    timer_.endStep(stream_);
    return result;
  }

  // The injected stall: armed (the flag cleared while no kernel reads it),
  // then the spinning kernel, loaded at creation like every other.
  // False if the launch failed: then nothing stalls, and the step fails.
  bool enqueueStall() {
    *static_cast<volatile unsigned int*>(stallRelease_) = 0u;
    clearStaleError();
    stallUntilReleasedKernel<<<1, 1, 0, stream_>>>(stallReleaseDevice_);
    return CUDA_CHECK(cudaGetLastError()) == cudaSuccess;
  }

  // One step of the model's kernels on the stream, whichever path the
  // vertices take afterwards. False if a launch failed.
  bool enqueueModelStep() {
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

  // The surface texture from the vertices just written, in stream order
  // after them and before the step's signal: level 0, then each level from
  // the one above. Nothing without an imported texture. Launch errors are
  // left for the caller's cudaGetLastError.
  void enqueueTexture() {
    if (levelSurfaces_.empty()) return;
    const uint32_t n = params_.grid;
    surfaceTexelsKernel<<<texelBlocks(n, n), dim3(kBlockX, kBlockY), 0, stream_>>>(vertexPointer(), n,
                                                                                   levelSurfaces_[0]);
    for (uint32_t level = 1; level < levelSurfaces_.size(); ++level) {
      const uint32_t aboveWidth = std::max(textureWidth_ >> (level - 1), 1u);
      const uint32_t aboveHeight = std::max(textureHeight_ >> (level - 1), 1u);
      const uint32_t width = std::max(textureWidth_ >> level, 1u), height = std::max(textureHeight_ >> level, 1u);
      downsampleTexelsKernel<<<texelBlocks(width, height), dim3(kBlockX, kBlockY), 0, stream_>>>(
          levelSurfaces_[level - 1], aboveWidth, aboveHeight, levelSurfaces_[level], width, height);
    }
  }

  void enqueueSinewave() {
    BackendSinewaveStep::launch(vertexPointer(), sinewaveFrame(params_, stepCount_), stream_);
  }

  bool enqueueDrops(const std::vector<Drop>& drops) {
    return CUDA_CHECK(launchDrops(drops, current_, previous_, params_.grid, stream_)) == cudaSuccess;
  }

  void enqueueRippleVertices() {
    heightFieldVerticesKernel<<<gridBlocks(params_.grid), dim3(kBlockX, kBlockY), 0, stream_>>>(
        current_, params_.grid, vertexPointer());
  }

  // The step of RippleModel::step (models.h), in stream order.
  bool enqueueRippleStep() {
    const std::vector<Drop> drops = stepDrops(params_, stepCount_, queued_);
    queued_.clear();
    if (!enqueueDrops(drops)) return false;
    BackendRippleStep::launch({current_, previous_, next_, params_.grid, rippleCoefficients(params_), vertexPointer()},
                              stream_);
    // previous <- current <- next: host bookkeeping only, ordered with the
    // kernels by the stream that every launch uses.
    float* oldPrevious = previous_;
    previous_ = current_;
    current_ = next_;
    next_ = oldPrevious;
    return true;
  }

  // Polls rather than cudaStreamSynchronize: a stream blocked on a semaphore
  // that is never signalled would block the host for ever. cudaErrorNotReady
  // is the expected "still running", not a failure.
  bool waitForStream(uint64_t timeoutNs) {
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

  ModelParams params_;
  int ordinal_;
  std::string deviceName_;
  cudaStream_t stream_ = nullptr;
  cudaExternalMemory_t vertexMemory_ = nullptr;
  void* mappedVertices_ = nullptr;  // from cudaExternalMemoryGetMappedBuffer
  cudaExternalMemory_t textureMemory_ = nullptr;       // the surface texture's imported memory
  cudaMipmappedArray_t textureArray_ = nullptr;        // from cudaExternalMemoryGetMappedMipmappedArray
  std::vector<cudaSurfaceObject_t> levelSurfaces_;     // one per level, level 0 first
  uint32_t textureWidth_ = 0, textureHeight_ = 0;
  cudaExternalSemaphore_t timeline_ = nullptr, renderDone_ = nullptr, simDone_ = nullptr;
  void* ownVertices_ = nullptr;     // copy path: the kernels' output (cudaMalloc)
  void* pinnedVertices_ = nullptr;  // copy path: its copy in host memory (cudaMallocHost)
  void* readbackBounce_ = nullptr;  // copyVerticesToHost's pinned bounce buffer, made on first use
  void* cudaOwnedVertices_ = nullptr;  // --memory-owner cuda: the borrowed mapping (CudaVertexMemory::address)
  bool copyPath_ = false;
  CudaStepTimer timer_;
  float* heights_ = nullptr;  // ripple: one allocation holding the three fields
  float* previous_ = nullptr;
  float* current_ = nullptr;
  float* next_ = nullptr;
  std::vector<Drop> queued_;
  uint64_t stepCount_ = 0;
  bool failed_ = false;  // an earlier enqueue failed: the stream's results are not trusted
  unsigned int* stallRelease_ = nullptr;        // the injected stall's flag: mapped pinned host memory
  unsigned int* stallReleaseDevice_ = nullptr;  // the same flag as the device sees it
};

}  // namespace

Result<std::unique_ptr<Simulation>> createCudaSimulation(const ModelParams& params, int ordinal,
                                                         ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                                                         ExternalTexture* texture) {
  // On failure the simulation releases what it imported when it goes; the
  // fds it did not import stay >= 0 in `vertices` / `semaphores`, for the
  // caller to close.
  auto simulation = std::make_unique<CudaSimulation>(params, ordinal);
  if (std::string failure = simulation->create(vertices, semaphores, texture); !failure.empty())
    return fail(failure, kExitEnvironment);
  return std::unique_ptr<Simulation>(std::move(simulation));
}

Result<std::unique_ptr<Simulation>> createCudaSimulationOnCudaMemory(const ModelParams& params, int ordinal,
                                                                     const CudaVertexMemory& vertices,
                                                                     ExternalSemaphores& semaphores) {
  auto simulation = std::make_unique<CudaSimulation>(params, ordinal);
  if (std::string failure = simulation->createOnCudaMemory(vertices, semaphores); !failure.empty())
    return fail(failure, kExitEnvironment);
  return std::unique_ptr<Simulation>(std::move(simulation));
}

Result<std::unique_ptr<Simulation>> createCudaCopySimulation(const ModelParams& params, int ordinal) {
  auto simulation = std::make_unique<CudaSimulation>(params, ordinal);
  if (std::string failure = simulation->createCopyPath(); !failure.empty()) return fail(failure, kExitEnvironment);
  return std::unique_ptr<Simulation>(std::move(simulation));
}

uint64_t cudaOwnedDeviceBytes(const Simulation& simulation) {
  const auto* cuda = dynamic_cast<const CudaSimulation*>(&simulation);
  return cuda ? cuda->ownedBytes() : 0;
}

bool copyCudaVerticesToHost(Simulation& simulation, void* destination, uint64_t bytes, uint64_t timeoutNs) {
  auto* cuda = dynamic_cast<CudaSimulation*>(&simulation);
  return cuda && cuda->copyVerticesToHost(destination, bytes, timeoutNs);
}

}  // namespace vksim
