// Instance, physical-device description and logical device. Everything is a
// plain struct with a createX / destroyX pair; teardown is explicit and in
// reverse order of creation.
#pragma once
#include <volk.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace vksim {

// Counted by the debug messenger over the whole process; tests assert both
// stay zero.
struct ValidationCounts {
  std::atomic<uint32_t> warnings{0};
  std::atomic<uint32_t> errors{0};
};
ValidationCounts& validationCounts();

// Set by createDevice while a device with VK_KHR_maintenance8 enabled exists
// (cleared by destroyDevice): the messages that a validation layer older than
// that extension reports about it are then expected, and neither printed nor
// counted. renderer/vulkan_instance.cpp lists them, each by its exact message
// ID and text; without the extension nothing of that list is suppressed.
void expectNewerExtensionMessages(bool expected);

struct InstanceOptions {
  bool validation = false;                   // VK_LAYER_KHRONOS_validation + messenger
  // With validation: also the layer's synchronization validation, asked for
  // through VkValidationFeaturesEXT on the instance (VK_EXT_validation_features).
  bool synchronizationValidation = false;
  std::vector<std::string> extraExtensions;  // e.g. what glfwGetRequiredInstanceExtensions lists
};

struct Instance {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  bool validation = false;                 // the layer is enabled on this instance
  bool synchronizationValidation = false;  // ...and its synchronization validation
  uint32_t apiVersion = 0;                 // what the loader offers
};

// Loads the Vulkan loader through volk and creates a Vulkan 1.2 instance with
// VK_KHR_surface always enabled (ImGui's loader needs it even headless).
// Throws EnvironmentError when there is no loader or no 1.2 instance, when an
// extension is missing, or when validation is asked for and the layer is
// missing, or synchronization validation is asked for and the layer does not
// offer VK_EXT_validation_features. With validation, a VK_EXT_debug_utils messenger (also chained into
// vkCreateInstance / vkDestroyInstance) prints every warning and error with
// its message ID to stderr and counts it in validationCounts().
Instance createInstance(const InstanceOptions& options);
// After every device and surface made from the instance is destroyed.
void destroyInstance(Instance& instance);

// "validation=on sync_validation=on", "validation=on sync_validation=off" or
// "validation=off": what the instance enabled, for the run's summary line.
std::string describeValidation(const Instance& instance);

struct PhysicalDeviceInfo {
  uint32_t index = 0;  // enumeration order
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  std::string driverName, driverInfo;  // VkPhysicalDeviceDriverProperties
  VkDriverId driverId = VkDriverId(0);  // VkPhysicalDeviceDriverProperties::driverID; 0 when unknown
  // Physical devices in this device's group (vkEnumeratePhysicalDeviceGroups);
  // 0 when it was not found in any group.
  uint32_t deviceGroupSize = 0;
  uint32_t apiVersion = 0, driverVersion = 0, vendorId = 0;
  std::array<uint8_t, 16> deviceUuid{};  // VkPhysicalDeviceIDProperties::deviceUUID
  bool timelineSemaphores = false;       // feature timelineSemaphore
  bool externalMemoryFd = false;         // VK_KHR_external_memory_fd
  bool externalSemaphoreFd = false;      // VK_KHR_external_semaphore_fd
  // vkGetPhysicalDeviceExternalBufferProperties for a vertex buffer, opaque fd:
  // (exported memory is always allocated dedicated, so whether the driver
  // requires it is not asked: renderer/shared_resources.cpp)
  bool vertexBufferExportable = false;
  // vkGetPhysicalDeviceExternalSemaphoreProperties, opaque fd:
  bool timelineExportable = false;
  bool binaryExportable = false;
  bool hasGraphicsQueue = false;
  bool hostQueryReset = false;  // feature hostQueryReset (core 1.2): vkResetQueryPool from the host
  // VK_EXT_calibrated_timestamps offering both the device's time domain and
  // CLOCK_MONOTONIC (std::chrono::steady_clock's clock on Linux):
  bool calibratedTimestamps = false;
  bool nvxBinaryImport = false;      // VK_NVX_binary_import (CUDA kernels from a command buffer)
  // VK_NVX_image_view_handle: an image view's handle, which such a kernel
  // takes as a cudaSurfaceObject_t.
  bool nvxImageViewHandle = false;
  // VK_NV_external_compute_queue: the Vulkan half of CUDA in Graphics (CIG),
  // which would run CUDA's work in the Vulkan device's own context.
  bool externalComputeQueue = false;
  bool bufferDeviceAddress = false;  // feature bufferDeviceAddress (core 1.2)
  // VK_KHR_present_id and VK_KHR_present_wait, both with their features: a
  // window's presents can then be waited for until they reach the display
  // (renderer/render_targets.h, pollPresentDisplayed).
  bool presentWait = false;
  // VK_KHR_maintenance8 listed and its feature maintenance8 on: ownership
  // transfers to and from VK_QUEUE_FAMILY_EXTERNAL can then use narrow stages
  // (renderer/external_transfer_stages.h).
  bool maintenance8 = false;
};

// Every physical device, described. Never throws for a device that lacks
// features; the flags above say what it has.
std::vector<PhysicalDeviceInfo> listPhysicalDevices(const Instance& instance);
// Display text for --list-devices and the overlay ("discrete GPU", "CPU",
// ...), not the enumerant's name: string_VkPhysicalDeviceType would print
// VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU to a user who asked which GPU is which.
const char* deviceTypeName(VkPhysicalDeviceType type);
std::string formatVersion(uint32_t vulkanVersion);      // "1.3.230"
// NVIDIA's 10.8.8.6-bit packing for vendor 0x10DE ("535.104.05"), else the
// Vulkan version macros ("22.3.6" for Mesa).
std::string formatDriverVersion(const PhysicalDeviceInfo& info);
// The driver as captures, the bench and the overlay name it: driverName and
// driverInfo ("NVIDIA 580.159.04", "llvmpipe Mesa 22.3.6"), or the packed
// version alone when the driver does not report VkPhysicalDeviceDriverProperties.
std::string describeDriver(const PhysicalDeviceInfo& info);

struct DeviceOptions {
  bool swapchain = false;           // VK_KHR_swapchain
  bool exportMemory = false;        // VK_KHR_external_memory_fd
  bool exportSemaphores = false;    // VK_KHR_external_semaphore_fd
  VkSurfaceKHR surface = VK_NULL_HANDLE;  // when set, the queue family must present to it
  // VK_NVX_binary_import, VK_NVX_image_view_handle and the
  // bufferDeviceAddress feature (the cuda-nvx backend only: nothing else
  // turns them on).
  bool cudaKernelLaunch = false;
  // VK_KHR_maintenance8 with its feature, when the device offers both (the
  // app turns it off with VKSIM_DISABLE_MAINTENANCE8=1, for an A/B of its cost).
  bool maintenance8 = true;
};

struct Device {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  PhysicalDeviceInfo info;
  VkDevice device = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;  // graphics + compute + transfer (+ present when asked)
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;  // resettable command buffers, queueFamily
  VkPhysicalDeviceMemoryProperties memoryProperties{};
  float timestampPeriod = 0.0f;     // ns per tick
  uint32_t timestampValidBits = 0;  // of queueFamily; 0 = no timestamps
  bool exportMemory = false, exportSemaphores = false;
  bool hostQueryReset = false;        // enabled when the device has it (renderer/gpu_timer.h uses it)
  bool calibratedTimestamps = false;  // VK_EXT_calibrated_timestamps enabled (see PhysicalDeviceInfo)
  bool presentWait = false;  // VK_KHR_present_id + VK_KHR_present_wait enabled (swapchain devices only)
  // VK_KHR_maintenance8 and its feature enabled: the transfers to and from
  // VK_QUEUE_FAMILY_EXTERNAL use narrow stages (renderer/external_transfer_stages.h).
  bool maintenance8 = false;
};

// Creates the logical device with timeline semaphores enabled and the
// extensions asked for; also enables, when the device offers them, the
// hostQueryReset feature and VK_EXT_calibrated_timestamps (for GPU timers), with a swapchain
// VK_KHR_present_id + VK_KHR_present_wait (display times for captures), and, unless options.maintenance8 is
// false, VK_KHR_maintenance8 with its feature (narrow ownership transfers). Throws EnvironmentError if the
// device lacks them (or Vulkan 1.2, or a graphics + compute family that can present to surface). Loads the
// device's entry points with volkLoadDevice: volk keeps one global table, so a process drives one Device at a
// time (create the next one after destroying the previous).
Device createDevice(const Instance& instance, const PhysicalDeviceInfo& info, const DeviceOptions& options);
// After vkDeviceWaitIdle and after every object made from the device is gone.
void destroyDevice(Device& device);

// Records, in a command buffer from device.commandPool that is never
// submitted, one call that breaks a valid-usage rule (a fill at an offset that
// is not a multiple of 4) and one write-after-write hazard with no barrier
// between two fills of the same buffer. The layer reports the first as a
// VUID error and, only when synchronization validation is really on, the
// second as SYNC-HAZARD-WRITE-AFTER-WRITE: a run that sees both knows its
// counters count. Nothing reaches the queue, so the driver never executes the
// invalid command. Call only with the validation layer enabled (otherwise the
// call is undefined behaviour); everything it creates is destroyed before it
// returns.
void recordValidationCanary(const Device& device);

// Index of a memory type in typeBits with all of `required` (and, if one
// exists, also `preferred`); UINT32_MAX if none.
uint32_t findMemoryType(const Device& device, uint32_t typeBits, VkMemoryPropertyFlags required,
                        VkMemoryPropertyFlags preferred = 0);

}  // namespace vksim
