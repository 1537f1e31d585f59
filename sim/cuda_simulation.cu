// The CUDA backend: imports the renderer's vertex buffer and semaphores (opaque
// fds), and runs every frame's turn of the value schedule as
//   wait (external semaphore) -> kernels -> signal (external semaphore)
// on one non-blocking stream, so the host never waits inside a frame. The
// per-vertex arithmetic is sim/model_math.h, the same as the CPU reference's;
// the host side of each step (time, coefficients, drops) is sim/models.h.
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sim/cuda_check.h"
#include "sim/cuda_kernels.cuh"
#include "sim/cuda_simulation.h"
#include "sim/model_math.h"
#include "sim/models.h"

namespace vksim {
namespace {

// The teardown's bound on finishing outstanding work: generous against a
// slow frame, short enough that a wait nobody will signal ends in a message.
constexpr uint64_t kTeardownTimeoutNs = 5'000'000'000ull;

// The one sentence for *error when a CUDA call fails.
std::string cudaFailure(const std::string& what, cudaError_t result) {
  return "CUDA could not " + what + " (" + cudaGetErrorName(result) + ")";
}

// The fds handed to createCudaSimulation that nobody owns yet. simulation.h
// and the CUDA runtime's rule for opaque fds: a successful import transfers the
// fd to the driver, and any later use of it (close included) is undefined; an
// fd whose import failed, or was never tried, is still ours and is closed here,
// on success and on failure alike.
struct PendingFds {
  int vertices, timeline, renderDone, simDone;

  ~PendingFds() {
    for (int fd : {vertices, timeline, renderDone, simDone})
      if (fd >= 0) close(fd);
  }
  // After a successful import: the fd is CUDA's now.
  static void handOver(int& fd) { fd = -1; }
};

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
    for (cudaExternalSemaphore_t semaphore : {timeline_, renderDone_, simDone_})
      if (semaphore) CUDA_CHECK(cudaDestroyExternalSemaphore(semaphore));
    if (heights_) CUDA_CHECK(cudaFree(heights_));
    CUDA_CHECK(cudaStreamDestroy(stream_));
  }

  CudaSimulation(const CudaSimulation&) = delete;
  CudaSimulation& operator=(const CudaSimulation&) = delete;

  // Everything createCudaSimulation promises, in the order that lets the
  // destructor undo a partial result. Returns "" or the sentence for *error.
  std::string create(const ExternalBuffer& vertices, const ExternalSemaphores& semaphores, PendingFds& fds) {
    const uint32_t n = params_.grid;
    if (n < kMinGrid || n > kMaxGrid)
      return "grid " + std::to_string(n) + " is outside [" + std::to_string(kMinGrid) + ", " +
             std::to_string(kMaxGrid) + "]";
    const uint64_t needed = uint64_t(n) * n * sizeof(Vertex);
    if (vertices.fd < 0) return "no vertex buffer fd was given";
    if (vertices.size < needed)
      return "the vertex buffer holds " + std::to_string(vertices.size) + " bytes, less than the " +
             std::to_string(needed) + " that a grid of " + std::to_string(n) + " needs";
    if (vertices.allocationSize < vertices.size)
      return "the vertex buffer's allocation size (" + std::to_string(vertices.allocationSize) +
             " bytes) is less than its size (" + std::to_string(vertices.size) + " bytes)";

    if (cudaError_t result = CUDA_CHECK(cudaSetDevice(ordinal_)))
      return cudaFailure("select device " + std::to_string(ordinal_), result);
    cudaDeviceProp properties{};
    if (cudaError_t result = CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal_)))
      return cudaFailure("query device " + std::to_string(ordinal_), result);
    deviceName_ = properties.name;
    int timelineSupported = 0;
    if (cudaError_t result = CUDA_CHECK(cudaDeviceGetAttribute(
            &timelineSupported, cudaDevAttrTimelineSemaphoreInteropSupported, ordinal_)))
      return cudaFailure("query timeline semaphore support", result);
    if (semaphores.timelineFd >= 0 && !timelineSupported)
      return "CUDA device " + std::to_string(ordinal_) + " (" + deviceName_ +
             ") cannot import timeline semaphores (cudaDevAttrTimelineSemaphoreInteropSupported is 0)";

    // Non-blocking: no implicit ordering with the legacy default stream, which
    // nothing here uses; everything of a frame is ordered by this stream alone.
    if (cudaError_t result = CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)))
      return cudaFailure("create a stream", result);

    // The import must name the allocation's size (VkMemoryRequirements::size,
    // not the size the buffer asked for) and, for a dedicated allocation,
    // cudaExternalMemoryDedicated: both must match how Vulkan allocated it.
    cudaExternalMemoryHandleDesc memoryDesc{};
    memoryDesc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    memoryDesc.handle.fd = fds.vertices;
    memoryDesc.size = vertices.allocationSize;
    memoryDesc.flags = vertices.dedicated ? cudaExternalMemoryDedicated : 0u;
    if (cudaError_t result = CUDA_CHECK(cudaImportExternalMemory(&vertexMemory_, &memoryDesc)))
      return cudaFailure("import the vertex buffer's memory", result);
    PendingFds::handOver(fds.vertices);
    // The buffer sits at offset 0 of its own allocation.
    cudaExternalMemoryBufferDesc bufferDesc{};
    bufferDesc.offset = 0;
    bufferDesc.size = vertices.size;
    if (cudaError_t result =
            CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&mappedVertices_, vertexMemory_, &bufferDesc)))
      return cudaFailure("map the imported vertex buffer", result);

    if (std::string failure = importSemaphore(
            fds.timeline, cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd, "timeline", &timeline_);
        !failure.empty())
      return failure;
    if (std::string failure = importSemaphore(fds.renderDone, cudaExternalSemaphoreHandleTypeOpaqueFd,
                                              "renderDone", &renderDone_);
        !failure.empty())
      return failure;
    if (std::string failure =
            importSemaphore(fds.simDone, cudaExternalSemaphoreHandleTypeOpaqueFd, "simDone", &simDone_);
        !failure.empty())
      return failure;
    if (!timeline_ && !(renderDone_ && simDone_))
      return "neither a timeline semaphore nor both binary semaphores were given";

    if (params_.model == ModelKind::ripple) {
      // Two fields (previous, current): the step writes the next heights over
      // previous in place (each cell reads only its own previous height), so a
      // third field would only cost memory.
      if (cudaError_t result = CUDA_CHECK(cudaMalloc(&heights_, ownedBytes())))
        return cudaFailure("allocate " + std::to_string(ownedBytes()) + " bytes for the ripple state",
                           result);
      previous_ = heights_;
      current_ = heights_ + size_t(n) * n;
    }

    // The lazy-loading trap (design.md): with lazy module loading, the first
    // launch of a kernel into a stream that is already waiting on an external
    // semaphore blocks this thread until the wait is satisfied, and this thread
    // is the one that would let it be. cudaFuncGetAttributes loads the kernel,
    // so every kernel is loaded here, before any wait is enqueued.
    const struct {
      const void* function;
      const char* name;
    } kernels[] = {{reinterpret_cast<const void*>(&sinewaveKernel), "sinewaveKernel"},
                   {reinterpret_cast<const void*>(&addDropsKernel), "addDropsKernel"},
                   {reinterpret_cast<const void*>(&rippleStepKernel), "rippleStepKernel"},
                   {reinterpret_cast<const void*>(&heightFieldVerticesKernel), "heightFieldVerticesKernel"}};
    for (const auto& kernel : kernels) {
      cudaFuncAttributes attributes{};
      if (cudaError_t result = CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel.function)))
        return cudaFailure(std::string("load ") + kernel.name, result);
    }
    return "";
  }

  void writeInitialState() override {
    stepCount_ = 0;
    queued_.clear();
    failed_ = true;  // until every call below has succeeded
    if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return;
    clearStaleError();
    if (params_.model == ModelKind::ripple) {
      if (CUDA_CHECK(cudaMemsetAsync(heights_, 0, ownedBytes(), stream_)) != cudaSuccess) return;
      if (!enqueueDrops({initialDrop(params_)})) return;
      enqueueRippleVertices();
    } else {
      enqueueSinewave();
    }
    if (CUDA_CHECK(cudaGetLastError()) != cudaSuccess) return;
    // Outside the frame loop: frame 0's render reads what this wrote, and no
    // semaphore orders it, so the host waits here.
    failed_ = CUDA_CHECK(cudaStreamSynchronize(stream_)) != cudaSuccess;
  }

  StepStatus step(const StepSync& sync, bool advance,
                  uint64_t /*timeoutNs: the host never blocks here*/) override {
    if (failed_) return StepStatus::failed;
    const bool timeline = sync.mode == SyncMode::timeline;
    if (timeline ? !timeline_ : !(renderDone_ && simDone_)) {
      std::fprintf(stderr, "vkcuda-sim: the CUDA backend was given no %s semaphore%s\n",
                   timeline ? "timeline" : "binary", timeline ? "" : "s");
      return StepStatus::failed;
    }
    if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return StepStatus::failed;

    // Sim k waits for render k: timeline value >= 2k+1 (fence.value), or the
    // binary renderDone signal that render k's submission carries (its value
    // is ignored). Enqueued only: the stream, not the host, waits.
    cudaExternalSemaphoreWaitParams waitParams{};
    waitParams.params.fence.value = timeline ? sync.waitValue : 0;
    if (CUDA_CHECK(cudaWaitExternalSemaphoresAsync(timeline ? &timeline_ : &renderDone_, &waitParams, 1,
                                                   stream_)) != cudaSuccess)
      return StepStatus::failed;

    bool launched = true;
    if (advance) {
      ++stepCount_;
      clearStaleError();
      if (params_.model == ModelKind::ripple)
        launched = enqueueRippleStep();
      else
        enqueueSinewave();
      launched = CUDA_CHECK(cudaGetLastError()) == cudaSuccess && launched;
    }

    // Then signal 2k+2 (or simDone) behind the kernels in stream order: the
    // render of frame k+1 waits on it and sees every write. Signalled even when
    // a launch failed, so the other side is not left waiting for ever.
    cudaExternalSemaphoreSignalParams signalParams{};
    signalParams.params.fence.value = timeline ? sync.signalValue : 0;
    if (CUDA_CHECK(cudaSignalExternalSemaphoresAsync(timeline ? &timeline_ : &simDone_, &signalParams, 1,
                                                     stream_)) != cudaSuccess)
      return StepStatus::failed;
    if (!launched) {
      failed_ = true;
      return StepStatus::failed;
    }
    return StepStatus::ok;
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

  // Reads the vertices through CUDA's own mapping of the imported memory (for
  // the test that Vulkan and CUDA see one memory). Enqueued after every step
  // so far on the same stream, then waited for within timeoutNs.
  bool copyVerticesToHost(void* destination, uint64_t bytes, uint64_t timeoutNs) {
    const uint64_t available = uint64_t(params_.grid) * params_.grid * sizeof(Vertex);
    if (failed_ || !mappedVertices_ || bytes > available) return false;
    if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return false;
    if (CUDA_CHECK(cudaMemcpyAsync(destination, mappedVertices_, bytes, cudaMemcpyDeviceToHost, stream_)) !=
        cudaSuccess)
      return false;
    return waitForStream(timeoutNs);
  }

  // Device memory allocated here, beyond the imported vertex buffer.
  uint64_t ownedBytes() const {
    return params_.model == ModelKind::ripple ? 2 * uint64_t(params_.grid) * params_.grid * sizeof(float) : 0;
  }

 private:
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
    PendingFds::handOver(fd);
    return "";
  }

  // cudaGetLastError returns the last error recorded on this thread by any
  // runtime call, not only by launches: drop what earlier calls left (each was
  // already reported by CUDA_CHECK), so that the check after a launch reports
  // that launch. (cudaStreamQuery's cudaErrorNotReady is not recorded: seen on
  // an H200 with CUDA 13.0.)
  static void clearStaleError() { (void)cudaGetLastError(); }

  float4* vertexPointer() const { return static_cast<float4*>(mappedVertices_); }

  void enqueueSinewave() {
    sinewaveKernel<<<gridBlocks(params_.grid), dim3(kBlockX, kBlockY), 0, stream_>>>(
        vertexPointer(), sinewaveFrame(params_, stepCount_));
  }

  bool enqueueDrops(const std::vector<Drop>& drops) {
    for (size_t first = 0; first < drops.size(); first += kMaxDropsPerLaunch) {
      DropBatch batch{};
      for (size_t d = first; d < drops.size() && batch.count < kMaxDropsPerLaunch; ++d)
        batch.drops[batch.count++] = makeDropShape(drops[d]);
      addDropsKernel<<<gridBlocks(params_.grid), dim3(kBlockX, kBlockY), 0, stream_>>>(current_, previous_,
                                                                                       params_.grid, batch);
      if (CUDA_CHECK(cudaGetLastError()) != cudaSuccess) return false;
    }
    return true;
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
    rippleStepKernel<<<gridBlocks(params_.grid), dim3(kBlockX, kBlockY), 0, stream_>>>(
        current_, previous_, params_.grid, rippleCoefficients(params_));
    // The new heights are in previous_: the swap is host bookkeeping only,
    // ordered with the kernels by the stream that every launch uses.
    std::swap(previous_, current_);
    enqueueRippleVertices();
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
  cudaExternalSemaphore_t timeline_ = nullptr, renderDone_ = nullptr, simDone_ = nullptr;
  float* heights_ = nullptr;  // ripple: one allocation holding both fields
  float* previous_ = nullptr;
  float* current_ = nullptr;
  std::vector<Drop> queued_;
  uint64_t stepCount_ = 0;
  bool failed_ = false;  // an earlier enqueue failed: the stream's results are not trusted
};

}  // namespace

std::unique_ptr<Simulation> createCudaSimulation(const ModelParams& params, int ordinal,
                                                 const ExternalBuffer& vertices,
                                                 const ExternalSemaphores& semaphores, std::string* error) {
  // Declared first, destroyed last: the fds still pending are closed after a
  // failed simulation has released what it imported.
  PendingFds fds{vertices.fd, semaphores.timelineFd, semaphores.renderDoneFd, semaphores.simDoneFd};
  auto simulation = std::make_unique<CudaSimulation>(params, ordinal);
  std::string failure = simulation->create(vertices, semaphores, fds);
  if (!failure.empty()) {
    if (error) *error = failure;
    return nullptr;
  }
  return simulation;
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
