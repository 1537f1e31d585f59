// The CUDA device list for device choice (app/ matches uuid against Vulkan's
// deviceUUID) and for --list-devices. Runs on machines without CUDA too: every
// failure becomes a sentence in unavailableReason, never an exception or abort.
#include <cstdio>
#include <string>

#include "sim/cuda/cuda_check.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim {

std::string formatUuid(const DeviceUuid& uuid) {
  char text[37];
  int length = 0;
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text[length++] = '-';
    length += std::snprintf(text + length, sizeof(text) - static_cast<size_t>(length), "%02x", uuid[i]);
  }
  return std::string(text, static_cast<size_t>(length));
}

namespace {

// An attribute that an older driver does not know is an answer too (no CIG),
// not an error: the failure is cleared so that no later call reports it.
bool vulkanCigSupported(int ordinal) {
  int supported = 0;
  if (cudaDeviceGetAttribute(&supported, cudaDevAttrVulkanCigSupported, ordinal) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return supported != 0;
}

const char* computeModeName(int mode) {
  switch (mode) {
    case cudaComputeModeDefault:
      return "default";
    case cudaComputeModeExclusiveProcess:
      return "exclusive-process";
    case cudaComputeModeProhibited:
      return "prohibited";
    default:
      return "other";
  }
}

}  // namespace

std::string formatCudaVersion(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

CudaDeviceList listCudaDevices() {
  CudaDeviceList list;
  // Both report 0 rather than fail when no driver is installed; a statically
  // linked runtime still knows its own version.
  if (cudaDriverGetVersion(&list.driverVersion) != cudaSuccess) list.driverVersion = 0;
  if (cudaRuntimeGetVersion(&list.runtimeVersion) != cudaSuccess) list.runtimeVersion = 0;

  // Not CUDA_CHECK: no driver or no device is an expected answer on CI and on
  // lavapipe machines, reported once in words by the caller, not as an error.
  int count = 0;
  const cudaError_t result = cudaGetDeviceCount(&count);
  if (result != cudaSuccess) {
    list.unavailableReason = std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(result) + ": " +
                             cudaGetErrorString(result);
    // The failure is also recorded as the thread's last error; clear it so that
    // it is not reported later against an unrelated call.
    (void)cudaGetLastError();
    return list;
  }
  if (count == 0) {
    list.unavailableReason = "the CUDA driver reports no device";
    return list;
  }

  std::string skipped;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp properties{};
    int timeline = 0, computeMode = cudaComputeModeDefault;
    if (CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal)) != cudaSuccess ||
        CUDA_CHECK(cudaDeviceGetAttribute(&timeline, cudaDevAttrTimelineSemaphoreInteropSupported,
                                          ordinal)) != cudaSuccess ||
        CUDA_CHECK(cudaDeviceGetAttribute(&computeMode, cudaDevAttrComputeMode, ordinal)) != cudaSuccess) {
      skipped += (skipped.empty() ? "" : ", ") + std::to_string(ordinal);
      continue;
    }
    CudaDeviceInfo device;
    device.ordinal = ordinal;
    device.name = properties.name;
    for (size_t i = 0; i < device.uuid.size(); ++i)
      device.uuid[i] = static_cast<uint8_t>(properties.uuid.bytes[i]);
    device.computeMajor = properties.major;
    device.computeMinor = properties.minor;
    device.timelineSemaphoreInterop = timeline != 0;
    // Through the attribute: CUDA 13's cudaDeviceProp no longer has computeMode.
    device.computeProhibited = computeMode == cudaComputeModeProhibited;
    device.computeModeName = computeModeName(computeMode);
    device.vulkanCig = vulkanCigSupported(ordinal);
    list.devices.push_back(device);
  }
  if (list.devices.empty())
    list.unavailableReason = "no CUDA device could be queried (devices " + skipped + " failed)";
  return list;
}

}  // namespace vksim
