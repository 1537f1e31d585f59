// The CUDA backend and the CUDA device list, behind types that carry no CUDA.
// These are always declared; on a machine without a CUDA device they report
// that in words instead of failing.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/simulation.h"

namespace vksim {

using DeviceUuid = std::array<uint8_t, 16>;
std::string formatUuid(const DeviceUuid& uuid);  // 8-4-4-4-12 lower-case hex

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  DeviceUuid uuid{};
  int computeMajor = 0, computeMinor = 0;
  bool timelineSemaphoreInterop = false;  // cudaDevAttrTimelineSemaphoreInteropSupported
};

struct CudaDeviceList {
  std::vector<CudaDeviceInfo> devices;
  std::string unavailableReason;  // why the list is empty (no driver, no device)
  int driverVersion = 0;          // e.g. 13000; 0 when unknown
  int runtimeVersion = 0;
};

// Every CUDA device, never throws. Loads the driver on first use.
CudaDeviceList listCudaDevices();

// CUDA backend on device `ordinal`: imports the vertex buffer and the
// semaphores (it takes every fd: simulation.h), loads every kernel before any
// external wait is enqueued, and runs one stream. On failure returns nullptr
// and sets *error to one sentence.
std::unique_ptr<Simulation> createCudaSimulation(const ModelParams& params, int ordinal,
                                                 const ExternalBuffer& vertices,
                                                 const ExternalSemaphores& semaphores,
                                                 std::string* error);

}  // namespace vksim
