// The CUDA backend's side of the lesson, in the order a frame meets it:
//   creation: import what the renderer exported (opaque fds: the vertex
//             buffer's memory, the surface texture, the semaphores), each fd
//             under the fd rule (markFdImported);
//   every turn of the value schedule:
//             wait (external semaphore) -> kernels -> signal (external semaphore)
//             on one non-blocking stream, so the host never waits inside a frame;
//   teardown: CUDA first, in the order the runtime's rules give.
// The kernels themselves are loaded and launched in cuda_model_launches.cu;
// how the vertices get a home on the other paths is each path's own file
// (cuda_backend.cuh lists them). Events around each step
// (sim/cuda/cuda_step_timer.cuh) time it.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/config.h"
#include "sim/cuda/cuda_backend.cuh"
#include "sim/cuda/cuda_check.h"
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

// After a successful import of an opaque fd: the CUDA runtime's rule is that
// the import transfers the fd to the driver, and any later use of it (close
// included) is undefined. Setting it to -1 tells the caller, who owns every
// fd until then and closes the ones left (simulation.h).
void markFdImported(int& fd) {
  fd = -1;
}

}  // namespace

// ---- Creation: import what Vulkan exported, then what every path needs.

Result<std::unique_ptr<Simulation>> createCudaSimulation(const ModelParams& params, int ordinal,
                                                         ExternalBuffer& vertices,
                                                         ExternalSemaphores& semaphores,
                                                         ExternalTexture* texture) {
  // On failure the simulation releases what it imported when it goes; the
  // fds it did not import stay >= 0 in `vertices` / `semaphores`, for the
  // caller to close.
  auto simulation = std::make_unique<CudaSimulation>(params, ordinal);
  if (std::string failure = simulation->create(vertices, semaphores, texture); !failure.empty())
    return fail(failure, kExitEnvironment);
  return std::unique_ptr<Simulation>(std::move(simulation));
}

// Everything createCudaSimulation promises, in the order that lets the
// destructor undo a partial result. Returns "" or the sentence for *error.
std::string CudaSimulation::create(ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                                   ExternalTexture* texture) {
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
  if (std::string failure = checkTimelineSupport(semaphores); !failure.empty()) return failure;
  if (std::string failure = importVertexBuffer(vertices); !failure.empty()) return failure;
  if (texture && texture->fd >= 0)
    if (std::string failure = importTexture(*texture); !failure.empty()) return failure;
  if (std::string failure = importSemaphores(semaphores); !failure.empty()) return failure;
  return createOwnState();
}

// A timeline fd needs a device that can import timeline semaphores; checked
// before anything is imported, so that no fd is taken for nothing.
std::string CudaSimulation::checkTimelineSupport(const ExternalSemaphores& semaphores) {
  int timelineSupported = 0;
  if (cudaError_t result = CUDA_CHECK(
          cudaDeviceGetAttribute(&timelineSupported, cudaDevAttrTimelineSemaphoreInteropSupported, ordinal_)))
    return cudaFailure("query timeline semaphore support", result);
  if (semaphores.timelineFd >= 0 && !timelineSupported)
    return "CUDA device " + std::to_string(ordinal_) + " (" + deviceName_ +
           ") cannot import timeline semaphores (cudaDevAttrTimelineSemaphoreInteropSupported is 0)";
  return "";
}

std::string CudaSimulation::importVertexBuffer(ExternalBuffer& vertices) {
  // The import must name the allocation's size (VkMemoryRequirements::size,
  // not the size the buffer asked for) and, for a dedicated allocation,
  // cudaExternalMemoryDedicated: both must match how Vulkan allocated it (rules M1, M4, M5).
  cudaExternalMemoryHandleDesc memoryDesc{};
  memoryDesc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  memoryDesc.handle.fd = vertices.fd;
  memoryDesc.size = vertices.allocationSize;
  memoryDesc.flags = vertices.dedicated ? cudaExternalMemoryDedicated : 0u;
  if (cudaError_t result = CUDA_CHECK(cudaImportExternalMemory(&vertexMemory_, &memoryDesc)))
    return cudaFailure("import the vertex buffer's memory", result);
  markFdImported(vertices.fd);
  // The buffer sits at offset 0 of its own allocation (rules P1, P2).
  cudaExternalMemoryBufferDesc bufferDesc{};
  bufferDesc.offset = 0;
  bufferDesc.size = vertices.size;
  if (cudaError_t result =
          CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&mappedVertices_, vertexMemory_, &bufferDesc)))
    return cudaFailure("map the imported vertex buffer", result);
  return "";
}

// The surface texture: import the image's memory, map it as a mipmapped
// array that repeats how Vulkan created the image, and make one surface
// object per level (every level is written by a kernel).
std::string CudaSimulation::importTexture(ExternalTexture& texture) {
  if (texture.width != params_.grid || texture.height != params_.grid || texture.levels == 0)
    return "the surface texture is " + std::to_string(texture.width) + "x" + std::to_string(texture.height) +
           " with " + std::to_string(texture.levels) + " levels; a grid of " + std::to_string(params_.grid) +
           " needs one texel per vertex";
  // As for the buffer: the size of the allocation (VkMemoryRequirements::size
  // of the image, which includes every level and the driver's padding) and
  // the dedicated flag, both as Vulkan allocated it (rules M1, M4, M5).
  cudaExternalMemoryHandleDesc memoryDesc{};
  memoryDesc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  memoryDesc.handle.fd = texture.fd;
  memoryDesc.size = texture.allocationSize;
  memoryDesc.flags = texture.dedicated ? cudaExternalMemoryDedicated : 0u;
  if (cudaError_t result = CUDA_CHECK(cudaImportExternalMemory(&textureMemory_, &memoryDesc)))
    return cudaFailure("import the surface texture's memory", result);
  markFdImported(texture.fd);  // CUDA's from here, as the vertex buffer's fd
  // Each field must describe the image exactly as vkCreateImage made it
  // (the external memory rules of the CUDA Programming Guide; rules P5, G5):
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
  //   cudaArrayColorAttachment (rule P6), and neither layered nor a cube map;
  arrayDesc.flags = cudaArraySurfaceLoadStore;
  // - numLevels: VkImageCreateInfo::mipLevels, the whole chain.
  arrayDesc.numLevels = texture.levels;
  // The mapping itself, with exactly those fields (rule P5); freed by
  // cudaFreeMipmappedArray in the destructor (rule P7).
  if (cudaError_t result =
          CUDA_CHECK(cudaExternalMemoryGetMappedMipmappedArray(&textureArray_, textureMemory_, &arrayDesc)))
    return cudaFailure("map the surface texture as a mipmapped array", result);
  textureSide_ = texture.width;
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

// The semaphores of both sync modes; each is imported only if it was
// exported (a mode without its semaphores is unavailable, and its step
// fails). Also what --memory-owner cuda imports (cuda_owned_vertices.cu).
std::string CudaSimulation::importSemaphores(ExternalSemaphores& semaphores) {
  if (std::string failure = importSemaphore(
          semaphores.timelineFd, cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd, "timeline", &timeline_);
      !failure.empty())
    return failure;
  if (std::string failure = importSemaphore(semaphores.renderDoneFd, cudaExternalSemaphoreHandleTypeOpaqueFd,
                                            "renderDone", &renderDone_);
      !failure.empty())
    return failure;
  if (std::string failure = importSemaphore(semaphores.simDoneFd, cudaExternalSemaphoreHandleTypeOpaqueFd,
                                            "simDone", &simDone_);
      !failure.empty())
    return failure;
  // simDone carries the initial state's signal, which render 0 waits on
  // whatever the sync mode (writeInitialState); renderDone only binary steps.
  if (!simDone_) return "no simDone semaphore was given (the initial state's signal needs it)";
  return "";
}

// One semaphore's fd, under the fd rules M7 and M8: handed over only after a
// successful import; on failure it stays the caller's, who closes it.
std::string CudaSimulation::importSemaphore(int& fd, cudaExternalSemaphoreHandleType type, const char* name,
                                            cudaExternalSemaphore_t* semaphore) {
  if (fd < 0) return "";  // not exported: that sync mode is unavailable
  cudaExternalSemaphoreHandleDesc desc{};  // zeroed: its reserved words and flags stay 0 (rule G4)
  desc.type = type;
  desc.handle.fd = fd;
  if (cudaError_t result = CUDA_CHECK(cudaImportExternalSemaphore(semaphore, &desc))) {
    *semaphore = nullptr;
    return cudaFailure(std::string("import the ") + name + " semaphore", result);
  }
  markFdImported(fd);
  return "";
}

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

// ---- The initial state and the step.

StepResult CudaSimulation::writeInitialState() {
  StepResult result;
  result.status = StepStatus::failed;
  stepCount_ = 0;
  queued_.clear();
  failed_ = true;  // until every call below has succeeded
  if (CUDA_CHECK(cudaSetDevice(ordinal_)) != cudaSuccess) return result;
  const bool written = enqueueInitialModelState();  // cuda_model_launches.cu
  if (copyPath_) {
    // No semaphores: the host reads hostVertices() once the copy is done.
    if (!written || !enqueueCopyToHost()) return result;
  } else {
    // Render 0 waits on simDone (app/interop/value_schedule.h), so the initial
    // writes reach Vulkan through a dependency it can see. CUDA's external
    // semaphore signal makes every write enqueued before it on the stream
    // visible to the work that waits on it (rules S2, S7; CUDA Runtime API,
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

// Whether the semaphores of `mode` were imported (each mode's are exported
// only where the device offers them); says so on stderr when not.
bool CudaSimulation::hasSemaphoresFor(SyncMode mode) const {
  const bool timeline = mode == SyncMode::timeline;
  if (timeline ? timeline_ != nullptr : (renderDone_ && simDone_)) return true;
  std::fprintf(stderr, "vkcuda-sim: the CUDA backend was given no %s semaphore%s\n", timeline ? "timeline" : "binary",
               timeline ? "" : "s");
  return false;
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
  if (!hasSemaphoresFor(sync.mode)) return result;

  timer_.reanchorIfDue(stream_);
  timer_.beginStep(stream_);
  // Sim k waits for render k: timeline value >= 2k+1 (fence.value, rule S5), or
  // the binary renderDone signal that render k's submission carries (its value
  // is ignored, rule S3). Enqueued only (rule S1): the stream, not the host, waits.
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
  // render of frame k+1 waits on it and sees every write (rule S2). Signalled even when
  // a launch failed, so the other side is not left waiting for ever.
  // FAULT HOOK (--inject-fault sim-skips-signal): the signal is left out,
  // and the result says so (signalEnqueued stays false): the frame loop
  // then never hands a wait for it to Vulkan.
  if (sync.fault != StepFault::skipSignal) {
    cudaExternalSemaphoreSignalParams signalParams{};
    signalParams.params.fence.value = timeline ? sync.signalValue : 0;  // 2k+2 > 2k+1: rule S6
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
    // them until the process ends is not (rules M15, P10, S17).
    std::fprintf(stderr,
                 "vkcuda-sim: the CUDA stream did not finish within %llu s (a semaphore wait that was never "
                 "signalled?); its imported buffer and semaphores are left in place\n",
                 static_cast<unsigned long long>(kTeardownTimeoutNs / 1'000'000'000ull));
    return;
  }
  // cudaExternalMemoryGetMappedBuffer: "The returned pointer ... must be
  // freed using cudaFree", before the external memory is destroyed (rules P4, P9).
  if (mappedVertices_) CUDA_CHECK(cudaFree(mappedVertices_));
  if (vertexMemory_) CUDA_CHECK(cudaDestroyExternalMemory(vertexMemory_));
  // The texture, in the same order: what was made from the mipmapped array
  // (its surface objects), the mipmapped array (cudaFreeMipmappedArray: the
  // level arrays are its own and are not freed separately), and only then
  // the external memory it was mapped from. Destroying the memory object
  // does not free its mappings (cudaDestroyExternalMemory; rules P7, P9).
  for (cudaSurfaceObject_t surface : levelSurfaces_) CUDA_CHECK(cudaDestroySurfaceObject(surface));
  if (textureArray_) CUDA_CHECK(cudaFreeMipmappedArray(textureArray_));
  if (textureMemory_) CUDA_CHECK(cudaDestroyExternalMemory(textureMemory_));
  for (cudaExternalSemaphore_t semaphore : {timeline_, renderDone_, simDone_})  // idle stream: rule S17
    if (semaphore) CUDA_CHECK(cudaDestroyExternalSemaphore(semaphore));
  if (heights_) CUDA_CHECK(cudaFree(heights_));
  if (ownVertices_) CUDA_CHECK(cudaFree(ownVertices_));
  if (pinnedVertices_) CUDA_CHECK(cudaFreeHost(pinnedVertices_));
  if (readbackBounce_) CUDA_CHECK(cudaFreeHost(readbackBounce_));
  if (stallRelease_) CUDA_CHECK(cudaFreeHost(stallRelease_));
  timer_.destroy();
  CUDA_CHECK(cudaStreamDestroy(stream_));
}

// ---- What the class answers.

// Where the kernels write: the imported buffer, CUDA's own allocation
// (--memory-owner cuda), or (copy path) memory of this backend's own.
float4* CudaSimulation::vertexPointer() const {
  return static_cast<float4*>(copyPath_ ? ownVertices_ : cudaOwnedVertices_ ? cudaOwnedVertices_ : mappedVertices_);
}

uint64_t CudaSimulation::ownedBytes() const {
  return params_.model == ModelKind::ripple ? 3 * uint64_t(params_.grid) * params_.grid * sizeof(float) : 0;
}

void CudaSimulation::addDrop(const Drop& drop) {
  if (params_.model == ModelKind::ripple) queued_.push_back(drop);
}

std::string CudaSimulation::deviceName() const {
  return deviceName_ + " (CUDA device " + std::to_string(ordinal_) + ")";
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
