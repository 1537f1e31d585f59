// The OpenCL GPU tests' guard: VKSIM_REQUIRE_OPENCL_INTEROP() at the start of
// a test skips it, with the reason, unless a device has everything the
// backend needs, and fails it instead under VKSIM_REQUIRE_CUDA=1 (the NVIDIA
// runs), so that a missing ICD cannot pass as a row of skips.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "gpu_environment.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim::testing {

// "" when some OpenCL device has every interop extension and handle type
// (missingOpenClInterop), else what each device lacks and what each
// platform could not list, in one line.
inline std::string openClInteropProblem() {
  const OpenClDeviceList list = listOpenClDevices();
  if (list.devices.empty() && list.platforms.empty()) return "no OpenCL device: " + list.unavailableReason;
  std::string problem;
  for (const OpenClDeviceInfo& device : list.devices) {
    const std::string missing = missingOpenClInterop(device);
    if (missing.empty()) return "";
    problem +=
        "; '" + device.name + "' (platform " + std::to_string(device.platformIndex) + ") lacks " + missing;
  }
  for (const OpenClPlatformInfo& platform : list.platforms)
    for (const std::string& failure : platform.problems)
      problem += "; platform " + std::to_string(platform.index) + " '" + platform.name + "': " + failure;
  return "no OpenCL device has the interop extensions (ICD loader " + list.loader.path + ")" + problem;
}

}  // namespace vksim::testing

// The first device that has everything the backend needs, or a skip (a
// failure under VKSIM_REQUIRE_CUDA=1) naming what the machine lacks.
#define VKSIM_REQUIRE_OPENCL_INTEROP()                                                                 \
  do {                                                                                                 \
    static const std::string problem_ = ::vksim::testing::openClInteropProblem();                     \
    if (!problem_.empty()) {                                                                           \
      if (::vksim::testing::cudaRequired()) GTEST_FAIL() << "VKSIM_REQUIRE_CUDA=1 but " << problem_;   \
      GTEST_SKIP() << problem_;                                                                        \
    }                                                                                                  \
  } while (0)
