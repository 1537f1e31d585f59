// Step 1: which Vulkan device and which CUDA device are the same GPU?
//
// Memory and semaphores exported by Vulkan can only be imported by CUDA on
// the device that made them (docs/interop-reference.md, section 1). The two
// APIs enumerate devices in their own orders, so never pair by index: pair by
// the 16-byte UUID both report (D1). Then three more conditions:
//   - the Vulkan device is alone in its device group (D2);
//   - the Vulkan driver is NVIDIA's proprietary one: opaque fds mean something
//     only between the same driver on the same device, and CUDA reports no
//     driver UUID to compare (D4);
//   - the CUDA device's compute mode allows a context (D3).
//
// Exit 0 with the pair, 3 when there is none (saying why), 4 on an API error.
// Usage: learn_01_pair_devices [--break driver-uuid | --break list]
#include <string>
#include <vector>

#define LEARN_STEP 1
#include "common/earlier.h"

int main(int argc, char** argv) {
  gStepName = "learn 01";
  parseArguments(argc, argv, {{"driver-uuid", "CUDA's UUID compared with driverUUID, not deviceUUID: nothing pairs"}});

  // CUDA first: without a driver the static runtime answers here, before any
  // Vulkan work, with cudaErrorInsufficientDriver or cudaErrorNoDevice.
  int cudaCount = 0;
  cudaError_t counted = cudaGetDeviceCount(&cudaCount);
  if (counted == cudaSuccess && cudaCount == 0) counted = cudaErrorNoDevice;
  if (counted != cudaSuccess) exitWith(kExitMissing, "no CUDA device (%s)", cudaGetErrorName(counted));

  Instance instance = createInstance();  // Vulkan 1.2: driver properties are core
  uint32_t vulkanCount = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(instance.instance, &vulkanCount, nullptr));
  if (vulkanCount == 0) exitWith(kExitMissing, "no Vulkan device");
  std::vector<VkPhysicalDevice> physicals(vulkanCount);
  VK_CHECK(vkEnumeratePhysicalDevices(instance.instance, &vulkanCount, physicals.data()));

  // D2: a device that shares a group with others cannot be an exporter here.
  uint32_t groupCount = 0;
  VK_CHECK(vkEnumeratePhysicalDeviceGroups(instance.instance, &groupCount, nullptr));
  std::vector<VkPhysicalDeviceGroupProperties> groups(groupCount,
                                                      {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES});
  VK_CHECK(vkEnumeratePhysicalDeviceGroups(instance.instance, &groupCount, groups.data()));

  std::string reasons;  // why each Vulkan device did not pair
  int pairedVulkan = -1, pairedCuda = -1;
  for (uint32_t v = 0; v < vulkanCount && pairedVulkan < 0; ++v) {
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, &driver};
    VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
    vkGetPhysicalDeviceProperties2(physicals[v], &properties);
    const std::string name = properties.properties.deviceName;

    // D1: the CUDA device whose uuid holds the same 16 bytes as deviceUUID.
    int cuda = -1;
    cudaDeviceProp cudaProperties{};
    for (int c = 0; c < cudaCount && cuda < 0; ++c) {
      CUDA_CHECK(cudaGetDeviceProperties(&cudaProperties, c));
      // BROKEN with driver-uuid: driverUUID names the driver's build, not the device.
      const uint8_t* vulkanUuid = breaking("driver-uuid") ? id.driverUUID : id.deviceUUID;
      if (std::memcmp(cudaProperties.uuid.bytes, vulkanUuid, VK_UUID_SIZE) == 0) cuda = c;
    }
    uint32_t groupSize = 0;
    for (const VkPhysicalDeviceGroupProperties& group : groups)
      for (uint32_t i = 0; i < group.physicalDeviceCount; ++i)
        if (group.physicalDevices[i] == physicals[v]) groupSize = group.physicalDeviceCount;
    int computeMode = cudaComputeModeDefault;
    if (cuda >= 0) CUDA_CHECK(cudaDeviceGetAttribute(&computeMode, cudaDevAttrComputeMode, cuda));

    std::string problem;
    if (cuda < 0)
      problem = "no CUDA device has its UUID";
    else if (groupSize != 1)
      problem = "in a device group of " + std::to_string(groupSize);  // D2
    else if (driver.driverID != VK_DRIVER_ID_NVIDIA_PROPRIETARY)
      problem = std::string("driver ") + string_VkDriverId(driver.driverID) + ", not NVIDIA's proprietary one";  // D4
    else if (computeMode == cudaComputeModeProhibited)
      problem = "CUDA device " + std::to_string(cuda) + "'s compute mode is prohibited";  // D3
    std::printf("Vulkan device %u '%s' (%s): %s\n", v, name.c_str(), string_VkDriverId(driver.driverID),
                problem.empty() ? ("is CUDA device " + std::to_string(cuda)).c_str() : problem.c_str());
    if (problem.empty()) {
      pairedVulkan = static_cast<int>(v);
      pairedCuda = cuda;
    } else {
      reasons += (reasons.empty() ? "" : "; ") + name + ": " + problem;
    }
  }
  destroyInstance(instance);
  if (pairedVulkan < 0)
    exitWith(kExitMissing, "no Vulkan device pairs with a CUDA device (%s)", reasons.c_str());

  // From here on, every CUDA call of this program is for the paired device.
  CUDA_CHECK(cudaSetDevice(pairedCuda));
  return finishStep(1, "Vulkan device " + std::to_string(pairedVulkan) + " is CUDA device " +
                           std::to_string(pairedCuda) + " (UUID equal, device group of 1, NVIDIA proprietary driver, " +
                           "compute mode not prohibited; " + std::to_string(vulkanCount) + " Vulkan and " +
                           std::to_string(cudaCount) + " CUDA devices looked at)");
}
