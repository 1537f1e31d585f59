// The CUDA backend's one class, behind createCudaSimulation and its two
// variants (sim/cuda/cuda_simulation.h). Declared here once so that each of
// its jobs reads top to bottom in a file of its own:
//   cuda_simulation.cu      the lesson: the import of Vulkan's exported
//                           memory, texture and semaphores (the opaque fds),
//                           the initial state, the step (wait -> kernels ->
//                           signal) and the teardown
//   cuda_model_launches.cu  the kernels, loaded before any external wait,
//                           and each step's launches
//   cuda_owned_vertices.cu  --memory-owner cuda: the vertices in CUDA's own
//                           allocation, the semaphores and the texture
//                           imported
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
  ~CudaSimulation() override;  // the teardown of design.md, CUDA first
  CudaSimulation(const CudaSimulation&) = delete;
  CudaSimulation& operator=(const CudaSimulation&) = delete;

  // The three ways to create it; each returns "" or the sentence for *error,
  // and leaves a partial result that the destructor undoes.
  std::string create(ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                     ExternalTexture* texture);  // zero copy: imports every fd
  std::string createOnCudaMemory(const CudaVertexMemory& vertices, ExternalSemaphores& semaphores,
                                 ExternalTexture* texture);  // cuda_owned_vertices.cu
  std::string createCopyPath();                                    // cuda_copy_staging.cu

  // Simulation (sim/simulation.h).
  StepResult writeInitialState() override;
  StepResult step(const StepSync& sync, bool advance, uint64_t timeoutNs) override;
  bool finish(uint64_t timeoutNs) override;
  void setParams(const ModelParams& params) override { params_ = changeParams(params_, params); }
  const ModelParams& params() const override { return params_; }
  void addDrop(const Drop& drop) override;
  uint64_t stepCount() const override { return stepCount_; }
  std::string backendName() const override { return "cuda"; }
  std::string deviceName() const override;
  bool isStepComplete() override;
  bool takeStepTiming(StepTiming* timing) override;
  const void* hostVertices() const override { return pinnedVertices_; }
  void releaseInjectedStall() override;  // cuda_stall.cu

  // copyCudaVerticesToHost and cudaOwnedDeviceBytes (cuda_simulation.h).
  bool copyVerticesToHost(void* destination, uint64_t bytes, uint64_t timeoutNs);
  uint64_t ownedBytes() const;  // device memory allocated here, beyond the vertices

 private:
  // cuda_simulation.cu: the import, and what every path shares.
  std::string checkGrid() const;
  std::string selectDeviceAndCreateStream();
  std::string checkTimelineSupport(const ExternalSemaphores& semaphores);
  std::string importVertexBuffer(ExternalBuffer& vertices);
  std::string importTexture(ExternalTexture& texture);
  std::string importSemaphores(ExternalSemaphores& semaphores);
  std::string importSemaphore(int& fd, cudaExternalSemaphoreHandleType type, const char* name,
                              cudaExternalSemaphore_t* semaphore);
  bool hasSemaphoresFor(SyncMode mode) const;
  bool waitForStream(uint64_t timeoutNs);
  float4* vertexPointer() const;  // where the kernels write, whichever path
  uint64_t vertexBytes() const { return uint64_t(params_.grid) * params_.grid * sizeof(Vertex); }

  // cuda_model_launches.cu: the kernels.
  std::string createOwnState();
  bool enqueueInitialModelState();
  bool enqueueModelStep();
  void enqueueTexture();
  void enqueueTextureMips(uint32_t firstLevel);
  void enqueueSinewave();
  bool enqueueDrops(const std::vector<Drop>& drops);
  void enqueueRippleVertices();
  bool enqueueRippleStep();

  // The other paths and the test facility.
  StepResult copyPathStep(bool advance, bool stall);  // cuda_copy_staging.cu
  bool enqueueCopyToHost();
  std::string createInjectedStall();  // cuda_stall.cu
  bool enqueueStall();

  ModelParams params_;
  int ordinal_;
  std::string deviceName_;
  cudaStream_t stream_ = nullptr;
  // What the import made of the fds.
  cudaExternalMemory_t vertexMemory_ = nullptr;
  void* mappedVertices_ = nullptr;                  // from cudaExternalMemoryGetMappedBuffer
  cudaExternalMemory_t textureMemory_ = nullptr;    // the surface texture's imported memory
  cudaMipmappedArray_t textureArray_ = nullptr;     // from cudaExternalMemoryGetMappedMipmappedArray
  std::vector<cudaSurfaceObject_t> levelSurfaces_;  // one per level, level 0 first
  uint32_t textureSide_ = 0;  // grid: importTexture refuses any other extent
  cudaExternalSemaphore_t timeline_ = nullptr, renderDone_ = nullptr, simDone_ = nullptr;
  // The model's state on the device (ripple: one allocation, three fields).
  float* heights_ = nullptr;
  float *previous_ = nullptr, *current_ = nullptr, *next_ = nullptr;
  std::vector<Drop> queued_;
  uint64_t stepCount_ = 0;
  bool failed_ = false;  // an earlier enqueue failed: the stream's results are not trusted
  CudaStepTimer timer_;
  void* readbackBounce_ = nullptr;  // copyVerticesToHost's pinned bounce buffer, made on first use
  // The other paths' vertices and the test facility's flag.
  void* cudaOwnedVertices_ = nullptr;  // --memory-owner cuda: CudaVertexMemory::address
  bool copyPath_ = false;
  void* ownVertices_ = nullptr;     // copy path: the kernels' output (cudaMalloc)
  void* pinnedVertices_ = nullptr;  // copy path: its copy in host memory (cudaMallocHost)
  unsigned int* stallRelease_ = nullptr;        // the injected stall's flag: mapped pinned host memory
  unsigned int* stallReleaseDevice_ = nullptr;  // the same flag as the device sees it
};

}  // namespace vksim
