// --transfer copy: what a program without interop does. The kernels write
// device memory of this backend's own (cudaMalloc), and each step ends with a
// copy to pinned host memory (cudaMallocHost), where the frame loop picks the
// vertices up. No semaphores: the host orders everything. The kernels are the
// shared ones (cuda_model_launches.cu), in the same stream order.
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <utility>

#include "sim/cuda/cuda_backend.cuh"
#include "sim/cuda/cuda_check.h"

namespace vksim {

// Pinned host memory because cudaMallocHost's is the only kind that a
// cudaMemcpyAsync to the host is asynchronous with.
std::string CudaSimulation::createCopyPath() {
  if (std::string failure = checkGrid(); !failure.empty()) return failure;
  if (std::string failure = selectDeviceAndCreateStream(); !failure.empty()) return failure;
  copyPath_ = true;
  if (cudaError_t result = CUDA_CHECK(cudaMalloc(&ownVertices_, vertexBytes())))
    return cudaFailure("allocate " + std::to_string(vertexBytes()) + " bytes of vertices", result);
  if (cudaError_t result = CUDA_CHECK(cudaMallocHost(&pinnedVertices_, vertexBytes())))
    return cudaFailure("allocate " + std::to_string(vertexBytes()) + " bytes of pinned host memory", result);
  return createOwnState();
}

// The copy path's step (step() hands over to it): no semaphores, the same
// kernels, then the copy to host memory. The "wait" span is empty.
StepResult CudaSimulation::copyPathStep(bool advance, bool stall) {
  StepResult result;
  timer_.reanchorIfDue(stream_);
  timer_.beginStep(stream_);
  timer_.endWait(stream_);
  if (stall && !enqueueStall()) {  // FAULT HOOK (--inject-fault sim-stalls, cuda_stall.cu)
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

// Device-to-host into the pinned buffer, behind the kernels in stream
// order. The host reads that buffer only once the step's done event has
// completed, and the next copy is enqueued only after the host has read it
// (the frame loop copies before it calls step()): no race either way.
bool CudaSimulation::enqueueCopyToHost() {
  return CUDA_CHECK(cudaMemcpyAsync(pinnedVertices_, ownVertices_, vertexBytes(), cudaMemcpyDeviceToHost,
                                    stream_)) == cudaSuccess;
}

Result<std::unique_ptr<Simulation>> createCudaCopySimulation(const ModelParams& params, int ordinal) {
  auto simulation = std::make_unique<CudaSimulation>(params, ordinal);
  if (std::string failure = simulation->createCopyPath(); !failure.empty())
    return fail(failure, kExitEnvironment);
  return std::unique_ptr<Simulation>(std::move(simulation));
}

}  // namespace vksim
