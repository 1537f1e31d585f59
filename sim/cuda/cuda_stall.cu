// Test facility (--inject-fault sim-stalls, sim/fault_plan.h): a step that
// never completes until the host says so. It reaches the step through one
// named seam, enqueueStall(), which the step (cuda_simulation.cu) and the
// copy path's step (cuda_copy_staging.cu) call when the frame asks for the
// fault; teardown releases it (releaseInjectedStall).
#include <cuda_runtime.h>

#include <atomic>
#include <string>

#include "sim/cuda/cuda_backend.cuh"
#include "sim/cuda/cuda_check.h"

namespace vksim {
namespace {

// It spins on a flag in mapped pinned host memory (cudaHostAllocMapped), read
// through a volatile pointer so that every iteration reads the host's memory
// again instead of a value kept in a register; releaseInjectedStall() writes 1
// there at teardown. The sleep keeps the spinning thread from flooding the bus
// with reads.
__global__ void stallUntilReleasedKernel(const volatile unsigned int* release) {
  while (*release == 0u) __nanosleep(10'000);
}

}  // namespace

// At creation, before any external wait (createOwnState): the kernel loaded
// (the lazy-loading trap of design.md: it is launched from this file, so it
// is loaded from here), and the flag (a few bytes, allocated here rather than
// in a frame, where an allocation could wait behind a stream's external wait).
std::string CudaSimulation::createInjectedStall() {
  cudaFuncAttributes attributes{};
  if (cudaError_t result = CUDA_CHECK(
          cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&stallUntilReleasedKernel))))
    return cudaFailure("load stallUntilReleasedKernel", result);
  if (cudaError_t result =
          CUDA_CHECK(cudaHostAlloc(&stallRelease_, sizeof(unsigned int), cudaHostAllocMapped)))
    return cudaFailure("allocate the stall flag in mapped host memory", result);
  *stallRelease_ = 0u;
  if (cudaError_t result = CUDA_CHECK(cudaHostGetDevicePointer(&stallReleaseDevice_, stallRelease_, 0)))
    return cudaFailure("map the stall flag", result);
  return "";
}

// The injected stall: armed (the flag cleared while no kernel reads it),
// then the spinning kernel. False if the launch failed: then nothing
// stalls, and the step fails.
bool CudaSimulation::enqueueStall() {
  *static_cast<volatile unsigned int*>(stallRelease_) = 0u;
  clearStaleCudaError();
  stallUntilReleasedKernel<<<1, 1, 0, stream_>>>(stallReleaseDevice_);
  return CUDA_CHECK(cudaGetLastError()) == cudaSuccess;
}

void CudaSimulation::releaseInjectedStall() {
  // A plain store to pinned memory that the kernel reads across the bus;
  // the fence keeps it from being held back behind later host work.
  if (!stallRelease_) return;
  *static_cast<volatile unsigned int*>(stallRelease_) = 1u;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace vksim
