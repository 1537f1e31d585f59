// The CUDA backend's one class, behind createCudaSimulation and its two
// variants (sim/cuda/cuda_simulation.h). Declared here once so that each of
// its jobs reads top to bottom in a file of its own:
//   cuda_simulation.cu      what every path shares: device and stream, the
//                           kernels loaded before any external wait, the
//                           initial state, the step (wait -> kernels ->
//                           signal), the teardown
//   cuda_import.cu          zero copy: the import of Vulkan's exported
//                           memory, texture and semaphores (the opaque fds)
//   cuda_owned_vertices.cu  --memory-owner cuda: the vertices in CUDA's own
//                           allocation, only the semaphores imported
//   cuda_copy_staging.cu    --transfer copy: device memory of its own, then a
//                           copy to pinned host memory, no semaphores
//   cuda_stall.cu           fault injection: the injected stall's kernel and flag
// Internal to sim/cuda/: it carries CUDA types, so only those .cu files
// include it. Every kernel is loaded (the lazy-loading trap, design.md) by
// the file that launches it: each .cu file compiles its own copy of the
// kernels it includes (anonymous namespace, no separable compilation), and
// loading one copy does not load another.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/config.h"
#include "sim/cuda/cuda_simulation.h"
#include "sim/cuda/cuda_step_timer.cuh"
#include "sim/models.h"

namespace vksim {

class CudaSimulation final : public Simulation {
 public:
  CudaSimulation(const ModelParams& params, int ordinal)
      : params_(clampModelParams(params)), ordinal_(ordinal) {}
  ~CudaSimulation() override;  // the teardown of design.md, CUDA first (cuda_simulation.cu)
  CudaSimulation(const CudaSimulation&) = delete;
  CudaSimulation& operator=(const CudaSimulation&) = delete;

  // The three ways to create it, one a file; each returns "" or the sentence
  // for *error, and leaves a partial result that the destructor undoes.
  std::string create(ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                     ExternalTexture* texture);  // cuda_import.cu
  std::string createOnCudaMemory(const CudaVertexMemory& vertices,
                                 ExternalSemaphores& semaphores);  // cuda_owned_vertices.cu
  std::string createCopyPath();                                    // cuda_copy_staging.cu

  // Simulation (sim/simulation.h).
  StepResult writeInitialState() override;
  StepResult step(const StepSync& sync, bool advance, uint64_t timeoutNs) override;
  void setParams(const ModelParams& params) override { params_ = changeParams(params_, params); }
  const ModelParams& params() const override { return params_; }
  void addDrop(const Drop& drop) override {
    if (params_.model == ModelKind::ripple) queued_.push_back(drop);
  }
  uint64_t stepCount() const override { return stepCount_; }
  bool finish(uint64_t timeoutNs) override;
  std::string backendName() const override { return "cuda"; }
  std::string deviceName() const override {
    return deviceName_ + " (CUDA device " + std::to_string(ordinal_) + ")";
  }
  bool isStepComplete() override;
  bool takeStepTiming(StepTiming* timing) override;
  const void* hostVertices() const override { return pinnedVertices_; }
  void releaseInjectedStall() override;  // cuda_stall.cu

  // copyCudaVerticesToHost and cudaOwnedDeviceBytes (cuda_simulation.h).
  bool copyVerticesToHost(void* destination, uint64_t bytes, uint64_t timeoutNs);
  // Device memory allocated here, beyond the imported vertex buffer.
  uint64_t ownedBytes() const {
    return params_.model == ModelKind::ripple ? 3 * uint64_t(params_.grid) * params_.grid * sizeof(float) : 0;
  }

 private:
  // The one sentence for *error when a CUDA call fails.
  static std::string cudaFailure(const std::string& what, cudaError_t result) {
    return "CUDA could not " + what + " (" + cudaGetErrorName(result) + ")";
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
    return static_cast<float4*>(copyPath_            ? ownVertices_
                                : cudaOwnedVertices_ ? cudaOwnedVertices_
                                                     : mappedVertices_);
  }
  uint64_t vertexBytes() const { return uint64_t(params_.grid) * params_.grid * sizeof(Vertex); }

  // cuda_simulation.cu: what every path shares.
  std::string checkGrid() const;
  std::string selectDeviceAndCreateStream();
  std::string createOwnState();
  bool enqueueModelStep();
  void enqueueTexture();
  void enqueueSinewave();
  bool enqueueDrops(const std::vector<Drop>& drops);
  void enqueueRippleVertices();
  bool enqueueRippleStep();
  bool waitForStream(uint64_t timeoutNs);

  // cuda_import.cu: the fds and what they carry.
  std::string checkTimelineSupport(const ExternalSemaphores& semaphores);
  std::string importVertexBuffer(ExternalBuffer& vertices);
  std::string importTexture(ExternalTexture& texture);
  std::string importSemaphores(ExternalSemaphores& semaphores);
  std::string importSemaphore(int& fd, cudaExternalSemaphoreHandleType type, const char* name,
                              cudaExternalSemaphore_t* semaphore);

  // cuda_copy_staging.cu: the copy path's step and its copy to the host.
  StepResult copyPathStep(bool advance, bool stall);
  bool enqueueCopyToHost();

  // cuda_stall.cu: the injected stall (--inject-fault sim-stalls).
  std::string createInjectedStall();
  bool enqueueStall();

  ModelParams params_;
  int ordinal_;
  std::string deviceName_;
  cudaStream_t stream_ = nullptr;
  cudaExternalMemory_t vertexMemory_ = nullptr;
  void* mappedVertices_ = nullptr;                  // from cudaExternalMemoryGetMappedBuffer
  cudaExternalMemory_t textureMemory_ = nullptr;    // the surface texture's imported memory
  cudaMipmappedArray_t textureArray_ = nullptr;     // from cudaExternalMemoryGetMappedMipmappedArray
  std::vector<cudaSurfaceObject_t> levelSurfaces_;  // one per level, level 0 first
  uint32_t textureWidth_ = 0, textureHeight_ = 0;
  cudaExternalSemaphore_t timeline_ = nullptr, renderDone_ = nullptr, simDone_ = nullptr;
  void* ownVertices_ = nullptr;     // copy path: the kernels' output (cudaMalloc)
  void* pinnedVertices_ = nullptr;  // copy path: its copy in host memory (cudaMallocHost)
  void* readbackBounce_ = nullptr;  // copyVerticesToHost's pinned bounce buffer, made on first use
  void* cudaOwnedVertices_ =
      nullptr;  // --memory-owner cuda: the borrowed mapping (CudaVertexMemory::address)
  bool copyPath_ = false;
  CudaStepTimer timer_;
  float* heights_ = nullptr;  // ripple: one allocation holding the three fields
  float* previous_ = nullptr;
  float* current_ = nullptr;
  float* next_ = nullptr;
  std::vector<Drop> queued_;
  uint64_t stepCount_ = 0;
  bool failed_ = false;                   // an earlier enqueue failed: the stream's results are not trusted
  unsigned int* stallRelease_ = nullptr;  // the injected stall's flag: mapped pinned host memory
  unsigned int* stallReleaseDevice_ = nullptr;  // the same flag as the device sees it
};

}  // namespace vksim
