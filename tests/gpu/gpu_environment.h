// The GPU tests' guard and checks. Each test calls VKSIM_REQUIRE_CUDA_DEVICE()
// first: without a CUDA device it is reported skipped, with the reason, unless
// VKSIM_REQUIRE_CUDA=1 (set by the runs on the NVIDIA machine, scripts/gpu-check),
// which turns "no CUDA device" into a failure so that a broken driver or a
// missing device cannot pass as a row of skips.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "app_runner.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim::testing {

// True when VKSIM_REQUIRE_CUDA is "1".
inline bool cudaRequired() {
  const char* value = std::getenv("VKSIM_REQUIRE_CUDA");
  return value != nullptr && std::string(value) == "1";
}

// True when VKSIM_VALIDATION is "1": ctest sets it for gpu_tests (tests/CMakeLists.txt)
// and scripts/gpu-check does too; the tests assert that the layer was on.
inline bool validationRequestedForTests() {
  const char* value = std::getenv("VKSIM_VALIDATION");
  return value != nullptr && std::string(value) == "1";
}

// A run of the app that must have had the validation layer, synchronization
// validation included, on, and must have stayed silent: the summary line says
// which layers were on, so that a layer silently left off cannot pass as
// "zero errors".
inline void expectValidationOnAndSilent(const AppResult& result) {
  EXPECT_EQ(summaryField(result.out, "validation"), "on") << result.out;
  EXPECT_EQ(summaryField(result.out, "sync_validation"), "on") << result.out;
  EXPECT_EQ(summaryField(result.out, "validation_warnings"), "0") << result.err;
  EXPECT_EQ(summaryField(result.out, "validation_errors"), "0") << result.err;
}

}  // namespace vksim::testing

#define VKSIM_REQUIRE_CUDA_DEVICE()                                                 \
  do {                                                                              \
    static const ::vksim::CudaDeviceList cudaDevices_ = ::vksim::listCudaDevices(); \
    if (cudaDevices_.devices.empty()) {                                             \
      if (::vksim::testing::cudaRequired())                                         \
        GTEST_FAIL() << "VKSIM_REQUIRE_CUDA=1 but there is no CUDA device: "        \
                     << cudaDevices_.unavailableReason;                             \
      GTEST_SKIP() << "no CUDA device: " << cudaDevices_.unavailableReason;         \
    }                                                                               \
  } while (0)
