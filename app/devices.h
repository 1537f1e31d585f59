// Which Vulkan device renders and which backend simulates. This is where the
// Vulkan device list (renderer/) meets the CUDA device list (sim/): a CUDA
// device pairs with a Vulkan device when cudaDeviceProp::uuid equals
// VkPhysicalDeviceIDProperties::deviceUUID.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/cli.h"
#include "renderer/vulkan_context.h"
#include "sim/cuda_simulation.h"

namespace vksim {

struct DeviceChoice {
  PhysicalDeviceInfo vulkan;
  std::optional<CudaDeviceInfo> cuda;  // set when the CUDA backend runs
  bool useCuda = false;
  std::string reason;  // one line: why this backend and device
};

// Everything the CUDA backend needs of a Vulkan device: exportable memory and
// exportable timeline and binary semaphores.
bool canShareWithCuda(const PhysicalDeviceInfo& device);

// The CUDA device with the same UUID, if any.
std::optional<CudaDeviceInfo> pairedCudaDevice(const PhysicalDeviceInfo& vulkan, const CudaDeviceList& cuda);

// Applies --backend and --device to the two lists. Throws EnvironmentError
// (exit 3) with one sentence naming the devices when the request cannot be met.
DeviceChoice chooseDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda,
                           BackendChoice backend, const std::string& deviceArgument);

// The --list-devices report.
std::string describeDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda);

}  // namespace vksim
