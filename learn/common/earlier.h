// What earlier steps taught, packaged for the steps after them. A step
// defines LEARN_STEP (its number) before including this file and sees only
// what the steps before it showed; code a step shows for the first time is
// in that step's own file, between the markers
//   // >>> learn/common/earlier.h holds this for the later steps
//   // <<<
// and the same text is here, behind `#if LEARN_STEP > N` (learn/diff-steps
// --check compares the two). Each function exits (check.h's codes) instead
// of returning an error.
//
//   every step   createInstance, destroyInstance, finishStep (the validation
//                layer and its message count: plumbing, not interop)
//   step 1       requireCudaDevices, pairingProblem, graphicsComputeFamily,
//                pairDevices (step 1's pairing by UUID, as functions)
//   step 2       ExportedBuffer, createExportedBuffer, exportMemoryFd,
//                CudaBuffer, importMemoryIntoCuda, importIntoCuda,
//                destroyCudaBuffer, destroyExportedBuffer; and, from step 2
//                on, the plain Vulkan around them: createDevice,
//                findMemoryType, createHostBuffer, recordReadBack, OneShot
//                (createOneShot, beginOneShot, submitAndWait)
//   step 3       createExportedSemaphore, importSemaphoreIntoCuda
//   step 4       createTimelineDevice, CudaTimeline (createCudaTimeline,
//                cudaWaitTimeline, cudaSignalTimeline, destroyCudaSideOfTimeline)
//   step 5       recordBufferRelease, recordBufferAcquire, submitSignal,
//                submitWaitingFor
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "check.h"

// Each step defines LEARN_STEP as its number (learn/diff-steps --check
// insists); anything else that includes this file sees every helper.
#ifndef LEARN_STEP
#define LEARN_STEP 1000
#endif

// ---- the instance, and the validation layer's messages ----

// Warnings and errors the validation layer reported so far.
inline uint32_t gValidationMessages = 0;

inline VKAPI_ATTR VkBool32 VKAPI_CALL countValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                             VkDebugUtilsMessageTypeFlagsEXT,
                                                             const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    ++gValidationMessages;
    std::fprintf(stderr, "%s: validation: %s\n", gStepName, data->pMessage);
  }
  return VK_FALSE;
}

inline bool validationRequested() {
  const char* value = std::getenv("VKSIM_VALIDATION");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

inline bool instanceLayerPresent(const char* name) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceLayerProperties(&count, nullptr));
  std::vector<VkLayerProperties> layers(count);
  VK_CHECK(vkEnumerateInstanceLayerProperties(&count, layers.data()));
  for (const VkLayerProperties& layer : layers)
    if (std::strcmp(layer.layerName, name) == 0) return true;
  return false;
}

struct Instance {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;  // only with validation
};

// A Vulkan 1.2 instance (timeline semaphores and driver properties are core
// there) with `extensions` enabled. With VKSIM_VALIDATION=1 it also enables
// VK_LAYER_KHRONOS_validation with synchronization validation and a messenger
// that counts (and prints) every warning and error; exit 3 when the layer is
// not installed, or when there is no Vulkan driver at all. A step may turn
// validation on itself (`validation` true).
inline Instance createInstance(std::vector<const char*> extensions = {}, bool validation = validationRequested()) {
  const char* layer = "VK_LAYER_KHRONOS_validation";
  if (validation && !instanceLayerPresent(layer))
    exitWith(kExitMissing, "%s, but the layer %s is not installed",
             validationRequested() ? "VKSIM_VALIDATION=1" : "this step runs with validation", layer);
  if (validation) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

  VkDebugUtilsMessengerCreateInfoEXT messengerInfo{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messengerInfo.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messengerInfo.pfnUserCallback = countValidationMessage;
  VkValidationFeatureEnableEXT enabled = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, &messengerInfo};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &enabled;

  VkApplicationInfo application{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  application.pApplicationName = gStepName;
  application.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, validation ? &features : nullptr};
  info.pApplicationInfo = &application;
  info.enabledLayerCount = validation ? 1 : 0;
  info.ppEnabledLayerNames = &layer;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  Instance result;
  VkResult created = vkCreateInstance(&info, nullptr, &result.instance);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER)
    exitWith(kExitMissing, "no Vulkan driver (vkCreateInstance: %s)", string_VkResult(created));
  VK_CHECK(created);
  if (validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(result.instance, "vkCreateDebugUtilsMessengerEXT"));
    VK_CHECK(create(result.instance, &messengerInfo, nullptr, &result.messenger));
  }
  return result;
}

inline void destroyInstance(Instance& instance) {
  if (instance.messenger != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance.instance, "vkDestroyDebugUtilsMessengerEXT"));
    destroy(instance.instance, instance.messenger, nullptr);
  }
  vkDestroyInstance(instance.instance, nullptr);
  instance = {};
}

// The step's last word, after everything was destroyed: exit 4 ("validation
// reported N messages") when the validation layer spoke; otherwise prints
// "step N: ok: <okText>" on stdout and returns 0 for main to return.
inline int finishStep(int step, const std::string& okText) {
  if (gValidationMessages > 0)
    exitWith(kExitCheckFailed, "validation reported %u messages", gValidationMessages);
  std::printf("step %d: ok: %s\n", step, okText.c_str());
  return kExitOk;
}

#if LEARN_STEP > 1

// ---- step 1: the Vulkan device and the CUDA device that are one GPU ----

// The number of CUDA devices; exit 3 when there is none (no driver included).
inline int requireCudaDevices() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error == cudaSuccess && count == 0) error = cudaErrorNoDevice;
  if (error != cudaSuccess) exitWith(kExitMissing, "no CUDA device (%s)", cudaGetErrorName(error));
  return count;
}

struct Pair {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  int cudaDevice = -1;
  uint32_t queueFamily = 0;  // graphics and compute (so transfer too)
  std::string name;
};

// Why `physical` cannot be CUDA device `cudaDevice`'s exporter, or "" when
// it can (interop-reference D1-D4): same 16-byte UUID, alone in its device
// group, NVIDIA's proprietary driver, CUDA compute mode not prohibited.
inline std::string pairingProblem(VkInstance instance, VkPhysicalDevice physical, int cudaDevice) {
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES, &driver};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
  vkGetPhysicalDeviceProperties2(physical, &properties);
  cudaDeviceProp cuda{};
  CUDA_CHECK(cudaGetDeviceProperties(&cuda, cudaDevice));
  if (std::memcmp(id.deviceUUID, cuda.uuid.bytes, VK_UUID_SIZE) != 0) return "UUID differs";
  uint32_t groupCount = 0;
  VK_CHECK(vkEnumeratePhysicalDeviceGroups(instance, &groupCount, nullptr));
  std::vector<VkPhysicalDeviceGroupProperties> groups(groupCount, {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES});
  VK_CHECK(vkEnumeratePhysicalDeviceGroups(instance, &groupCount, groups.data()));
  for (const VkPhysicalDeviceGroupProperties& group : groups)
    for (uint32_t i = 0; i < group.physicalDeviceCount; ++i)
      if (group.physicalDevices[i] == physical && group.physicalDeviceCount != 1) return "in a device group of several";
  if (driver.driverID != VK_DRIVER_ID_NVIDIA_PROPRIETARY)
    return std::string("driver is ") + string_VkDriverId(driver.driverID) + ", not NVIDIA's proprietary one";
  int computeMode = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&computeMode, cudaDevAttrComputeMode, cudaDevice));
  if (computeMode == cudaComputeModeProhibited) return "CUDA compute mode is prohibited";
  return "";
}

// A queue family with graphics and compute; exit 3 when there is none.
inline uint32_t graphicsComputeFamily(VkPhysicalDevice physical) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  const VkQueueFlags wanted = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  for (uint32_t i = 0; i < count; ++i)
    if ((families[i].queueFlags & wanted) == wanted) return i;
  exitWith(kExitMissing, "the paired Vulkan device has no graphics and compute queue family");
}

// Step 1 in one call: the first Vulkan physical device with a CUDA partner,
// made current with cudaSetDevice; exit 3 naming the reasons when none pairs.
inline Pair pairDevices(VkInstance instance) {
  const int cudaCount = requireCudaDevices();
  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  if (count == 0) exitWith(kExitMissing, "no Vulkan device");
  std::vector<VkPhysicalDevice> physicals(count);
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, physicals.data()));
  std::string reasons;
  for (VkPhysicalDevice physical : physicals) {
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(physical, &properties);
    for (int cuda = 0; cuda < cudaCount; ++cuda) {
      std::string problem = pairingProblem(instance, physical, cuda);
      if (problem.empty()) {
        CUDA_CHECK(cudaSetDevice(cuda));
        return {physical, cuda, graphicsComputeFamily(physical), properties.deviceName};
      }
      reasons += std::string(reasons.empty() ? "" : "; ") + properties.deviceName + " / CUDA " +
                 std::to_string(cuda) + ": " + problem;
    }
  }
  exitWith(kExitMissing, "no Vulkan device pairs with a CUDA device (%s)", reasons.c_str());
}


// ---- plain Vulkan, from step 2 on: the logical device ----

struct Device {
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
};

// One queue of the pair's family, `extensions` enabled, and the feature
// structs chained at `features` (e.g. VkPhysicalDeviceVulkan12Features).
inline Device createDevice(const Pair& pair, const std::vector<const char*>& extensions, const void* features = nullptr) {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = pair.queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, features};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  Device result;
  result.queueFamily = pair.queueFamily;
  VK_CHECK(vkCreateDevice(pair.physical, &info, nullptr, &result.device));
  vkGetDeviceQueue(result.device, pair.queueFamily, 0, &result.queue);
  return result;
}

// The first memory type in `typeBits` with every flag of `wanted`; exit 3
// when there is none.
inline uint32_t findMemoryType(VkPhysicalDevice physical, uint32_t typeBits, VkMemoryPropertyFlags wanted) {
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((typeBits & (1u << i)) != 0 && (memory.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
  exitWith(kExitMissing, "no memory type with properties 0x%x among 0x%x", wanted, typeBits);
}

// ---- plain Vulkan, from step 2 on: the host's copy of a buffer ----

// A host-visible, coherent buffer the CPU reads results from.
struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
};

inline HostBuffer createHostBuffer(const Pair& pair, const Device& device, VkDeviceSize size) {
  HostBuffer result;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = size;
  bufferInfo.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &result.buffer));
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device.device, result.buffer, &requirements);
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex =
      findMemoryType(pair.physical, requirements.memoryTypeBits,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.memory));
  VK_CHECK(vkBindBufferMemory(device.device, result.buffer, result.memory, 0));
  VK_CHECK(vkMapMemory(device.device, result.memory, 0, VK_WHOLE_SIZE, 0, &result.mapped));
  return result;
}

inline void destroyHostBuffer(const Device& device, HostBuffer& buffer) {
  vkDestroyBuffer(device.device, buffer.buffer, nullptr);
  vkFreeMemory(device.device, buffer.memory, nullptr);  // unmaps
  buffer = {};
}

// Copies `size` bytes of `from` into `host` and makes them visible to the
// host (TRANSFER_WRITE -> HOST_READ); the caller waits for the submission.
inline void recordReadBack(VkCommandBuffer commands, VkBuffer from, const HostBuffer& host, VkDeviceSize size) {
  VkBufferCopy region{0, 0, size};
  vkCmdCopyBuffer(commands, from, host.buffer, 1, &region);
  VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                       nullptr, 0, nullptr);
}

// ---- plain Vulkan, from step 2 on: one-shot submits ----

// Every host wait is bounded: a schedule mistake ends as VK_TIMEOUT (exit 4),
// not as a hang.
constexpr uint64_t kWaitNanoseconds = 10'000'000'000ull;

// A pool, one primary command buffer and a fence: record, submit, wait.
struct OneShot {
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
};

inline OneShot createOneShot(const Device& device) {
  OneShot result;
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = device.queueFamily;
  VK_CHECK(vkCreateCommandPool(device.device, &poolInfo, nullptr, &result.pool));
  VkCommandBufferAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocateInfo.commandPool = result.pool;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  VK_CHECK(vkAllocateCommandBuffers(device.device, &allocateInfo, &result.commands));
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_CHECK(vkCreateFence(device.device, &fenceInfo, nullptr, &result.fence));
  return result;
}

// Starts recording (the buffer is reset: the previous submission finished).
inline VkCommandBuffer beginOneShot(const OneShot& oneShot) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(oneShot.commands, &begin));
  return oneShot.commands;
}

// Ends recording, submits `submit` (its command buffer set here) with the
// fence, and waits on the host until it finished.
inline void submitAndWait(const Device& device, const OneShot& oneShot, VkSubmitInfo submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO}) {
  VK_CHECK(vkEndCommandBuffer(oneShot.commands));
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &oneShot.commands;
  VK_CHECK(vkQueueSubmit(device.queue, 1, &submit, oneShot.fence));
  VK_CHECK(vkWaitForFences(device.device, 1, &oneShot.fence, VK_TRUE, kWaitNanoseconds));
  VK_CHECK(vkResetFences(device.device, 1, &oneShot.fence));
}

inline void destroyOneShot(const Device& device, OneShot& oneShot) {
  vkDestroyFence(device.device, oneShot.fence, nullptr);
  vkDestroyCommandPool(device.device, oneShot.pool, nullptr);
  oneShot = {};
}



#endif  // LEARN_STEP > 1

#if LEARN_STEP > 2

// ---- step 2: a buffer Vulkan exports and CUDA imports ----

// What the export made, and what CUDA's import must know of it.
struct ExportedBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;            // what the buffer was created with
  VkDeviceSize allocationSize = 0;  // VkMemoryRequirements::size: what CUDA imports (M1)
  bool dedicated = false;           // allocated with VkMemoryDedicatedAllocateInfo (M5)
};

// A device-local buffer of `size` bytes for `usage` whose memory can be
// exported as an opaque fd; dedicated when the driver asks for it. Exit 3
// when the device cannot export it.
inline ExportedBuffer createExportedBuffer(const Pair& pair, const Device& device, VkDeviceSize size,
                                           VkBufferUsageFlags usage) {
  // M19: may this buffer's memory be exported as an opaque fd, and must its
  // allocation be dedicated to it?
  const auto handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkPhysicalDeviceExternalBufferInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  query.usage = usage;
  query.handleType = handleType;
  VkExternalBufferProperties answer{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(pair.physical, &query, &answer);
  const VkExternalMemoryFeatureFlags features = answer.externalMemoryProperties.externalMemoryFeatures;
  if ((features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) == 0)
    exitWith(kExitMissing, "%s cannot export buffer memory as an opaque fd", pair.name.c_str());

  // M20: the buffer names the handle type; M2: its requirements are asked
  // for after that, since the handle type may change them.
  ExportedBuffer result;
  result.size = size;
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = handleType;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
  bufferInfo.size = size;
  bufferInfo.usage = usage;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &result.buffer));
  VkMemoryDedicatedRequirements dedicatedNeeds{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  VkMemoryRequirements2 requirements{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicatedNeeds};
  VkBufferMemoryRequirementsInfo2 which{VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
  which.buffer = result.buffer;
  vkGetBufferMemoryRequirements2(device.device, &which, &requirements);
  result.allocationSize = requirements.memoryRequirements.size;  // M1: what CUDA imports
  result.dedicated = (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0 ||
                     dedicatedNeeds.requiresDedicatedAllocation || dedicatedNeeds.prefersDedicatedAllocation;

  // M20: memory allocated for export (and dedicated to the buffer, M5, when asked).
  VkMemoryDedicatedAllocateInfo dedicatedInfo{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicatedInfo.buffer = result.buffer;
  VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                        result.dedicated ? &dedicatedInfo : nullptr};
  exportInfo.handleTypes = handleType;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exportInfo};
  allocateInfo.allocationSize = result.allocationSize;
  allocateInfo.memoryTypeIndex = findMemoryType(pair.physical, requirements.memoryRequirements.memoryTypeBits,
                                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.memory));
  VK_CHECK(vkBindBufferMemory(device.device, result.buffer, result.memory, 0));
  return result;
}

// A new opaque fd for `memory` (M9: each call makes a new one); the caller
// owns it until an import succeeds. vkGetMemoryFdKHR is a device
// extension's function: the loader exports no symbol for it.
inline int exportMemoryFd(const Device& device, VkDeviceMemory memory) {
  auto getMemoryFd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device.device, "vkGetMemoryFdKHR"));
  VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  info.memory = memory;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  VK_CHECK(getMemoryFd(device.device, &info, &fd));
  return fd;
}

struct CudaBuffer {
  cudaExternalMemory_t memory = nullptr;
  void* pointer = nullptr;  // the whole buffer, mapped at offset 0 (P1)
};

// Imports an allocation through `fd`. M1: the whole ALLOCATION's size, not
// the buffer's; M4, M5: the dedicated flag exactly when the allocation is
// dedicated; G4: a zeroed descriptor. The fd is CUDA's after a successful
// import (M7: never touch or close it again), ours after a failed one (M8).
inline cudaExternalMemory_t importMemoryIntoCuda(int fd, VkDeviceSize allocationSize, bool dedicated) {
  cudaExternalMemoryHandleDesc handle{};
  handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
  handle.handle.fd = fd;
  handle.size = allocationSize;
  handle.flags = dedicated ? cudaExternalMemoryDedicated : 0;
  cudaExternalMemory_t memory = nullptr;
  const cudaError_t imported = cudaImportExternalMemory(&memory, &handle);
  if (imported != cudaSuccess) {
    close(fd);  // M8: a failed import leaves the fd ours
    exitWith(kExitCheckFailed, "%s:%d: cudaImportExternalMemory(...) failed: %s", __FILE__, __LINE__,
             cudaGetErrorName(imported));
  }
  return memory;
}

// Imports `buffer`'s memory through `fd` (importMemoryIntoCuda) and maps the
// buffer (P1, P2: it lies at offset 0 of the allocation and is `size` long).
inline CudaBuffer importIntoCuda(const ExportedBuffer& buffer, int fd) {
  CudaBuffer result;
  result.memory = importMemoryIntoCuda(fd, buffer.allocationSize, buffer.dedicated);
  cudaExternalMemoryBufferDesc mapping{};
  mapping.offset = 0;
  mapping.size = buffer.size;
  CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&result.pointer, result.memory, &mapping));
  return result;
}

// The mapping first, then the memory object (P9: destroying the memory
// object does not free its mappings); before Vulkan frees the allocation
// (M14), and with no CUDA work left that touches it (M15).
inline void destroyCudaBuffer(CudaBuffer& buffer) {
  CUDA_CHECK(cudaFree(buffer.pointer));
  CUDA_CHECK(cudaDestroyExternalMemory(buffer.memory));
  buffer = {};
}

inline void destroyExportedBuffer(const Device& device, ExportedBuffer& buffer) {
  vkDestroyBuffer(device.device, buffer.buffer, nullptr);
  vkFreeMemory(device.device, buffer.memory, nullptr);
  buffer = {};
}

#endif  // LEARN_STEP > 2

// ---- step 3: semaphores Vulkan exports and CUDA imports ----
#if LEARN_STEP > 3

// A binary (VK_SEMAPHORE_TYPE_BINARY) or timeline (VK_SEMAPHORE_TYPE_TIMELINE,
// starting at 0; step 4) semaphore that can be exported as an opaque fd (S11:
// only a semaphore created with VkExportSemaphoreCreateInfo can be; M19: ask
// first). Exit 3 when the device cannot export that kind.
inline VkSemaphore createExportedSemaphore(const Pair& pair, const Device& device, VkSemaphoreType type) {
  VkSemaphoreTypeCreateInfo typeInfo{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  typeInfo.semaphoreType = type;
  VkPhysicalDeviceExternalSemaphoreInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO, &typeInfo};
  query.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalSemaphoreProperties answer{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
  vkGetPhysicalDeviceExternalSemaphoreProperties(pair.physical, &query, &answer);
  if ((answer.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) == 0)
    exitWith(kExitMissing, "%s cannot export a %s semaphore as an opaque fd", pair.name.c_str(),
             string_VkSemaphoreType(type));
  VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO, &typeInfo};
  exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exportInfo};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSemaphore(device.device, &info, nullptr, &semaphore));
  return semaphore;
}

// Exports `semaphore` as a new opaque fd and imports it into CUDA (binary:
// cudaExternalSemaphoreHandleTypeOpaqueFd; a timeline, step 4:
// ...TimelineSemaphoreFd, where the device supports it: D8, S10). OPAQUE_FD
// has reference transference: both APIs share one payload. The fd is CUDA's
// after a successful import (M7), closed here after a failed one (M8).
// Destroy with cudaDestroyExternalSemaphore before vkDestroySemaphore, with
// nothing pending on either side (S17, S18).
inline cudaExternalSemaphore_t importSemaphoreIntoCuda(const Device& device, VkSemaphore semaphore, bool timeline) {
  int current = 0, timelineInterop = 0;  // asked of the current (paired) device
  CUDA_CHECK(cudaGetDevice(&current));
  CUDA_CHECK(cudaDeviceGetAttribute(&timelineInterop, cudaDevAttrTimelineSemaphoreInteropSupported, current));
  if (timeline && !timelineInterop) exitWith(kExitMissing, "the CUDA device cannot import timeline semaphores");
  // vkGetSemaphoreFdKHR is a device extension's function: no loader symbol.
  auto getSemaphoreFd =
      reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device.device, "vkGetSemaphoreFdKHR"));
  VkSemaphoreGetFdInfoKHR fdInfo{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  fdInfo.semaphore = semaphore;
  fdInfo.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  VK_CHECK(getSemaphoreFd(device.device, &fdInfo, &fd));
  cudaExternalSemaphoreHandleDesc handle{};  // G4: zeroed
  handle.type = timeline ? cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd : cudaExternalSemaphoreHandleTypeOpaqueFd;
  handle.handle.fd = fd;
  cudaExternalSemaphore_t result = nullptr;
  const cudaError_t imported = cudaImportExternalSemaphore(&result, &handle);
  if (imported != cudaSuccess) {
    close(fd);  // M8: a failed import leaves the fd ours
    exitWith(kExitCheckFailed, "%s:%d: cudaImportExternalSemaphore(...) failed: %s", __FILE__, __LINE__,
             cudaGetErrorName(imported));
  }
  return result;
}

#endif  // LEARN_STEP > 3

// ---- step 4: the timeline device and CUDA's half of the +2 schedule ----
#if LEARN_STEP > 4

// The logical device from step 4 on: both fd extensions (M18), and the
// timelineSemaphore feature, behind which Vulkan 1.2 keeps timeline semaphores.
inline Device createTimelineDevice(const Pair& pair) {
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  features12.timelineSemaphore = VK_TRUE;
  return createDevice(pair,
                      {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME},
                      &features12);
}

// Vulkan's exported timeline, CUDA's import of it, and the non-blocking
// stream CUDA's half of each round runs on.
struct CudaTimeline {
  VkSemaphore timeline = VK_NULL_HANDLE;
  cudaExternalSemaphore_t cuda = nullptr;
  cudaStream_t stream = nullptr;
};

// `kernel` is loaded last, before any wait is enqueued: the lazy-loading trap (step 3).
inline CudaTimeline createCudaTimeline(const Pair& pair, const Device& device, const void* kernel) {
  CudaTimeline result;
  result.timeline = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_TIMELINE);
  result.cuda = importSemaphoreIntoCuda(device, result.timeline, true);
  CUDA_CHECK(cudaStreamCreateWithFlags(&result.stream, cudaStreamNonBlocking));
  cudaFuncAttributes loaded{};
  CUDA_CHECK(cudaFuncGetAttributes(&loaded, kernel));
  return result;
}

// Enqueues CUDA's wait until the timeline is at least `value` (S5: a wait
// leaves the value as it is; G4: zeroed parameters); the work after it in
// the stream runs after Vulkan's signal.
inline void cudaWaitTimeline(const CudaTimeline& timeline, uint64_t value) {
  cudaExternalSemaphoreWaitParams waitParams{};
  waitParams.params.fence.value = value;
  CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&timeline.cuda, &waitParams, 1, timeline.stream));
}

// Enqueues CUDA's signal of `value` (S5, S6: larger than any before), after
// the work before it in stream order (S2).
inline void cudaSignalTimeline(const CudaTimeline& timeline, uint64_t value) {
  cudaExternalSemaphoreSignalParams signalParams{};
  signalParams.params.fence.value = value;
  CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&timeline.cuda, &signalParams, 1, timeline.stream));
}

// CUDA's side of the timeline's teardown: nothing pending, the stream, the
// import (S17); Vulkan destroys the semaphore after its queue is idle (S18).
// The CUDA Runtime API orders nothing between this and freeing CUDA's
// mappings and memory objects: each only needs its own work finished.
inline void destroyCudaSideOfTimeline(CudaTimeline& timeline) {
  CUDA_CHECK(cudaStreamSynchronize(timeline.stream));
  CUDA_CHECK(cudaStreamDestroy(timeline.stream));
  CUDA_CHECK(cudaDestroyExternalSemaphore(timeline.cuda));
}

#endif  // LEARN_STEP > 4

// ---- step 5: ownership handed over in the submissions that signal and wait ----
#if LEARN_STEP > 5

// Records the release of `buffer` from `queueFamily` to VK_QUEUE_FAMILY_EXTERNAL
// (M21), after `stage` read it (step 5: the copy's TRANSFER; step 6: the
// draw's VERTEX_INPUT). Reads need no availability operation, so the access
// masks are 0; the destination half plays no part on the other API's side:
// what orders its writes after the release is the semaphore signal later in
// the same submission (submitSignal).
inline void recordBufferRelease(VkCommandBuffer commands, VkBuffer buffer, uint32_t queueFamily,
                                VkPipelineStageFlags stage) {
  VkBufferMemoryBarrier toExternal{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  toExternal.srcQueueFamilyIndex = queueFamily;
  toExternal.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  toExternal.buffer = buffer;
  toExternal.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, stage, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 1, &toExternal,
                       0, nullptr);
}

// Records the acquire of `buffer` from VK_QUEUE_FAMILY_EXTERNAL into
// `queueFamily` (M21), for `stage`'s `access` (step 5: TRANSFER_READ). The
// acquire runs in no defined stage: its first scope is ALL_COMMANDS, as is
// the semaphore wait in front of it (submitWaitingFor), and srcAccessMask is
// 0 (the writes were the other API's; its signal made them available).
inline void recordBufferAcquire(VkCommandBuffer commands, VkBuffer buffer, uint32_t queueFamily,
                                VkPipelineStageFlags stage, VkAccessFlags access) {
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  acquire.dstAccessMask = access;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = queueFamily;
  acquire.buffer = buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, stage, 0, 0, nullptr, 1, &acquire, 0,
                       nullptr);
}

// The submission that hands the buffer to the other API: the commands
// recorded in `recorded` (ended here; none when null, as in round 0, which
// has nothing to release), then the signal of `semaphore` in the SAME
// submission, so that its first scope holds the release (S2 on Vulkan's
// side). A timeline is set to *value; a binary semaphore (value null, step 9)
// is signalled. No fence: the host never waits for it.
inline void submitSignal(const Device& device, const OneShot* recorded, VkSemaphore semaphore,
                         const uint64_t* value) {
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = value;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, value != nullptr ? &values : nullptr};
  if (recorded != nullptr) {
    VK_CHECK(vkEndCommandBuffer(recorded->commands));
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &recorded->commands;
  }
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &semaphore;
  VK_CHECK(vkQueueSubmit(device.queue, 1, &submit, VK_NULL_HANDLE));
}

// The submission that takes the buffer back: `oneShot`'s commands (the
// acquire first) wait for `semaphore` (a timeline: for *value; binary: value
// null) at ALL_COMMANDS, a stage that covers the acquire (M21); the host
// waits for them to finish (bounded).
inline void submitWaitingFor(const Device& device, const OneShot& oneShot, VkSemaphore semaphore,
                             const uint64_t* value) {
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = 1;
  values.pWaitSemaphoreValues = value;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, value != nullptr ? &values : nullptr};
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &semaphore;
  submit.pWaitDstStageMask = &waitStage;
  submitAndWait(device, oneShot, submit);
}

#endif  // LEARN_STEP > 5
