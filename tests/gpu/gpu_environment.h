// The GPU tests' guard: each test calls VKSIM_REQUIRE_CUDA_DEVICE() first and
// is reported skipped, with the reason, on a machine without a CUDA device.
#pragma once
#include <gtest/gtest.h>

#include "sim/cuda_simulation.h"

#define VKSIM_REQUIRE_CUDA_DEVICE()                                                        \
  do {                                                                                     \
    static const ::vksim::CudaDeviceList cudaDevices_ = ::vksim::listCudaDevices();        \
    if (cudaDevices_.devices.empty())                                                      \
      GTEST_SKIP() << "no CUDA device: " << cudaDevices_.unavailableReason;                \
  } while (0)
