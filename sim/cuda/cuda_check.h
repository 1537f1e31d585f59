// Internal to the .cu files of sim/ and lab/: the CUDA runtime check that stays on in every
// build (house style). It never aborts: the caller decides what a failure
// means (a sentence for the user, StepStatus::failed, a skipped teardown step).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

namespace vksim {

// Prints "file:line: call failed: cudaErrorName (description)" to stderr when
// result is not cudaSuccess, and returns result unchanged.
inline cudaError_t reportCudaError(cudaError_t result, const char* call, const char* file, int line) {
  if (result != cudaSuccess)
    std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(result),
                 cudaGetErrorString(result));
  return result;
}

// The one sentence for *error when a CUDA call fails.
inline std::string cudaFailure(const std::string& what, cudaError_t result) {
  return "CUDA could not " + what + " (" + cudaGetErrorName(result) + ")";
}

// cudaGetLastError returns the last error recorded on this thread by any
// runtime call, not only by launches: drop what earlier calls left (each was
// already reported by CUDA_CHECK), so that the check after a launch reports
// that launch. (cudaStreamQuery's cudaErrorNotReady is not recorded: seen on
// an H200 with CUDA 13.0.)
inline void clearStaleCudaError() { (void)cudaGetLastError(); }

}  // namespace vksim

// Evaluates a CUDA runtime call once, reports a failure with file:line, the
// call and the error name, and yields the cudaError_t.
#define CUDA_CHECK(call) ::vksim::reportCudaError((call), #call, __FILE__, __LINE__)
