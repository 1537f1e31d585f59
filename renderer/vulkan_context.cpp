#include "renderer/vk_newer_definitions.h"
#include "renderer/vulkan_context.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "renderer/debug_names.h"
#include "renderer/frame_sync.h"
#include "renderer/gpu_buffer.h"
#include "renderer/shared_resources.h"
#include "renderer/vk_check.h"
#include "renderer/vulkan_names.h"

namespace vksim {
namespace {

constexpr uint32_t kNvidiaVendorId = 0x10DE;

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice physical) {
  return enumerate<VkExtensionProperties>(
      "vkEnumerateDeviceExtensionProperties", [&](uint32_t* count, VkExtensionProperties* data) {
        return vkEnumerateDeviceExtensionProperties(physical, nullptr, count, data);
      });
}

std::vector<VkQueueFamilyProperties> queueFamilies(VkPhysicalDevice physical) {
  return enumerate<VkQueueFamilyProperties>("vkGetPhysicalDeviceQueueFamilyProperties",
                                            [&](uint32_t* count, VkQueueFamilyProperties* data) {
                                              vkGetPhysicalDeviceQueueFamilyProperties(physical, count, data);
                                            });
}

// Whether a semaphore of `type` can be exported as an opaque fd. For the
// timeline type, VkSemaphoreTypeCreateInfo in the query's pNext chain is what
// makes the answer about timeline semaphores (spec: without it the query
// describes binary semaphores).
bool semaphoreExportable(VkPhysicalDevice physical, VkSemaphoreType type) {
  VkSemaphoreTypeCreateInfo typeInfo{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  typeInfo.semaphoreType = type;
  typeInfo.initialValue = 0;
  VkPhysicalDeviceExternalSemaphoreInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
  query.pNext = type == VK_SEMAPHORE_TYPE_TIMELINE ? &typeInfo : nullptr;
  query.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalSemaphoreProperties properties{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
  vkGetPhysicalDeviceExternalSemaphoreProperties(physical, &query, &properties);
  return (properties.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
}

// GPU timestamps can be placed on the host clock only when the device can
// sample its own time domain together with CLOCK_MONOTONIC, the clock behind
// std::chrono::steady_clock on Linux.
bool offersHostCalibration(VkPhysicalDevice physical) {
  if (!vkGetPhysicalDeviceCalibrateableTimeDomainsEXT) return false;
  // A failed query means no calibration, not a failed run.
  const auto domains = tryEnumerate<VkTimeDomainEXT>([&](uint32_t* count, VkTimeDomainEXT* data) {
    return vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(physical, count, data);
  });
  if (!domains) return false;
  const auto has = [&](VkTimeDomainEXT domain) {
    return std::find(domains->begin(), domains->end(), domain) != domains->end();
  };
  return has(VK_TIME_DOMAIN_DEVICE_EXT) && has(VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT);
}

// Name, type, versions, the UUID that pairs the device with a CUDA device,
// and the driver.
void readIdentity(VkPhysicalDevice physical, const std::vector<VkExtensionProperties>& extensions, bool vulkan12,
                  PhysicalDeviceInfo& info) {
  // Structures that a device older than 1.2 only knows through an extension
  // are chained only when it has that extension (valid usage of pNext).
  VkPhysicalDeviceIDProperties idProperties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceDriverProperties driverProperties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  const bool hasDriverProperties = vulkan12 || contains(extensions, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  if (hasDriverProperties) idProperties.pNext = &driverProperties;
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties.pNext = &idProperties;
  vkGetPhysicalDeviceProperties2(physical, &properties);

  info.name = properties.properties.deviceName;
  info.type = properties.properties.deviceType;
  info.apiVersion = properties.properties.apiVersion;
  info.driverVersion = properties.properties.driverVersion;
  info.vendorId = properties.properties.vendorID;
  // Rule D1: the CUDA device is found by these 16 bytes, never by its index.
  std::copy(std::begin(idProperties.deviceUUID), std::end(idProperties.deviceUUID), info.deviceUuid.begin());
  if (hasDriverProperties) {
    info.driverName = driverProperties.driverName;
    info.driverInfo = driverProperties.driverInfo;
    info.driverId = driverProperties.driverID;
  }
}

// Present id and present wait: an extension is listed, and its feature is
// on (a driver may list one and not support it on every device).
bool offersPresentWait(VkPhysicalDevice physical, const std::vector<VkExtensionProperties>& extensions) {
  if (!contains(extensions, VK_KHR_PRESENT_ID_EXTENSION_NAME) ||
      !contains(extensions, VK_KHR_PRESENT_WAIT_EXTENSION_NAME))
    return false;
  VkPhysicalDevicePresentIdFeaturesKHR presentId{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR};
  VkPhysicalDevicePresentWaitFeaturesKHR presentWait{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR};
  presentId.pNext = &presentWait;
  VkPhysicalDeviceFeatures2 presentFeatures{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  presentFeatures.pNext = &presentId;
  vkGetPhysicalDeviceFeatures2(physical, &presentFeatures);
  return presentId.presentId == VK_TRUE && presentWait.presentWait == VK_TRUE;
}

// VK_KHR_maintenance8: listed, and its feature on. The structure is chained
// only when the extension is listed (valid usage of pNext).
bool offersMaintenance8(VkPhysicalDevice physical, const std::vector<VkExtensionProperties>& extensions) {
  if (!contains(extensions, VK_KHR_MAINTENANCE_8_EXTENSION_NAME)) return false;
  VkPhysicalDeviceMaintenance8FeaturesKHR maintenance8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_8_FEATURES_KHR};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &maintenance8;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  return maintenance8.maintenance8 == VK_TRUE;
}

void readFeatures(VkPhysicalDevice physical, const std::vector<VkExtensionProperties>& extensions, bool vulkan12,
                  PhysicalDeviceInfo& info) {
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceTimelineSemaphoreFeatures timelineFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  if (vulkan12)
    features.pNext = &features12;
  else if (contains(extensions, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME))
    features.pNext = &timelineFeatures;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  info.presentWait = offersPresentWait(physical, extensions);
  info.maintenance8 = offersMaintenance8(physical, extensions);
  info.timelineSemaphores =
      vulkan12 ? features12.timelineSemaphore == VK_TRUE : timelineFeatures.timelineSemaphore == VK_TRUE;
  info.hostQueryReset = vulkan12 && features12.hostQueryReset == VK_TRUE;
  info.bufferDeviceAddress = vulkan12 && features12.bufferDeviceAddress == VK_TRUE;
  info.nvxBinaryImport = contains(extensions, VK_NVX_BINARY_IMPORT_EXTENSION_NAME);
  info.nvxImageViewHandle = contains(extensions, VK_NVX_IMAGE_VIEW_HANDLE_EXTENSION_NAME);
  info.externalComputeQueue = contains(extensions, VK_NV_EXTERNAL_COMPUTE_QUEUE_EXTENSION_NAME);
  info.calibratedTimestamps =
      contains(extensions, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) && offersHostCalibration(physical);
}

// What the device can export as an opaque fd: the vertex buffer's memory and
// each semaphore type.
void readExportSupport(VkPhysicalDevice physical, const std::vector<VkExtensionProperties>& extensions,
                       PhysicalDeviceInfo& info) {
  info.externalMemoryFd = contains(extensions, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  info.externalSemaphoreFd = contains(extensions, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);

  // The same usage and handle type as the buffer that will be exported: the
  // answer is only valid for that combination.
  VkPhysicalDeviceExternalBufferInfo bufferQuery{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  bufferQuery.usage = kSharedVertexBufferUsage;  // exactly the flags createSharedVertexBuffer uses
  bufferQuery.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalBufferProperties bufferProperties{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(physical, &bufferQuery, &bufferProperties);
  const VkExternalMemoryFeatureFlags memoryFeatures =
      bufferProperties.externalMemoryProperties.externalMemoryFeatures;
  info.vertexBufferExportable = (memoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;

  if (info.timelineSemaphores)
    info.timelineExportable = semaphoreExportable(physical, VK_SEMAPHORE_TYPE_TIMELINE);
  info.binaryExportable = semaphoreExportable(physical, VK_SEMAPHORE_TYPE_BINARY);
}

PhysicalDeviceInfo describePhysicalDevice(VkPhysicalDevice physical, uint32_t index) {
  PhysicalDeviceInfo info;
  info.index = index;
  info.handle = physical;

  VkPhysicalDeviceProperties basic{};
  vkGetPhysicalDeviceProperties(physical, &basic);
  const std::vector<VkExtensionProperties> extensions = deviceExtensions(physical);
  const bool vulkan12 = basic.apiVersion >= kRequiredApiVersion;
  readIdentity(physical, extensions, vulkan12, info);
  readFeatures(physical, extensions, vulkan12, info);
  readExportSupport(physical, extensions, info);
  for (const VkQueueFamilyProperties& family : queueFamilies(physical))
    if (family.queueFlags & VK_QUEUE_GRAPHICS_BIT) info.hasGraphicsQueue = true;
  return info;
}

void requireVulkan12Device(const std::string& who, const PhysicalDeviceInfo& info) {
  if (info.apiVersion < kRequiredApiVersion)
    throw EnvironmentError(who + " offers Vulkan " + formatVersion(info.apiVersion) +
                           " and vkcuda-sim needs Vulkan 1.2.");
  if (!info.timelineSemaphores) throw EnvironmentError(who + " lacks the timelineSemaphore feature.");
}

// The extensions the options ask for, each one required, then the optional
// ones the device offers.
std::vector<const char*> enabledDeviceExtensions(const std::string& who, const PhysicalDeviceInfo& info,
                                                 const DeviceOptions& options, bool presentWait,
                                                 bool maintenance8) {
  const std::vector<VkExtensionProperties> available = deviceExtensions(info.handle);
  std::vector<const char*> extensions;
  if (options.exportMemory) extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  if (options.exportSemaphores) extensions.push_back(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
  if (options.swapchain) extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  if (options.cudaKernelLaunch) {
    if (!info.bufferDeviceAddress) throw EnvironmentError(who + " lacks the bufferDeviceAddress feature.");
    extensions.push_back(VK_NVX_BINARY_IMPORT_EXTENSION_NAME);
    extensions.push_back(VK_NVX_IMAGE_VIEW_HANDLE_EXTENSION_NAME);
  }
  std::vector<const char*> missing;
  for (const char* name : extensions)
    if (!contains(available, name)) missing.push_back(name);
  if (!missing.empty())
    throw EnvironmentError(who + " lacks the extension" + (missing.size() > 1 ? "s " : " ") +
                           joinNames(missing) + ".");
  // Optional: GPU timers place their spans on the host clock with it, and
  // fall back to an anchor at the fence without it (renderer/gpu_timer.h).
  if (info.calibratedTimestamps) extensions.push_back(VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
  // Optional too: display times for a window's captures. VK_KHR_present_wait
  // requires VK_KHR_present_id and VK_KHR_swapchain (its dependencies).
  if (presentWait) {
    extensions.push_back(VK_KHR_PRESENT_ID_EXTENSION_NAME);
    extensions.push_back(VK_KHR_PRESENT_WAIT_EXTENSION_NAME);
  }
  // Optional: narrow stages for the ownership transfers to and from
  // VK_QUEUE_FAMILY_EXTERNAL (renderer/external_transfer_stages.h).
  if (maintenance8) extensions.push_back(VK_KHR_MAINTENANCE_8_EXTENSION_NAME);
  return extensions;
}

// One family for everything: the frame's graphics, the transfers and (when
// there is a surface) present, so no queue-family ownership transfers exist.
uint32_t chooseQueueFamily(const std::string& who, const PhysicalDeviceInfo& info,
                           const std::vector<VkQueueFamilyProperties>& families, VkSurfaceKHR surface) {
  constexpr VkQueueFlags kNeeded = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  uint32_t familyIndex = UINT32_MAX;
  for (uint32_t i = 0; i < families.size() && familyIndex == UINT32_MAX; ++i) {
    if ((families[i].queueFlags & kNeeded) != kNeeded || families[i].queueCount == 0) continue;
    if (surface != VK_NULL_HANDLE) {
      VkBool32 present = VK_FALSE;
      VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(info.handle, i, surface, &present));
      if (present != VK_TRUE) continue;
    }
    familyIndex = i;
  }
  if (familyIndex == UINT32_MAX)
    throw EnvironmentError(who + " has no queue family with graphics and compute" +
                           (surface != VK_NULL_HANDLE ? " that can present to the window." : "."));
  return familyIndex;
}

// The feature structures that VkDeviceCreateInfo's pNext points at; they
// point at each other, so the chain is filled in place and never copied.
struct EnabledFeatures {
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDevicePresentIdFeaturesKHR presentId{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR};
  VkPhysicalDevicePresentWaitFeaturesKHR presentWait{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR};
  VkPhysicalDeviceMaintenance8FeaturesKHR maintenance8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_8_FEATURES_KHR};

  EnabledFeatures() = default;
  EnabledFeatures(const EnabledFeatures&) = delete;
  EnabledFeatures& operator=(const EnabledFeatures&) = delete;
};

void chainEnabledFeatures(EnabledFeatures& chain, const PhysicalDeviceInfo& info, const DeviceOptions& options,
                          bool presentWait, bool maintenance8) {
  // Timeline semaphores are a core 1.2 feature that is still opt-in
  // (VkPhysicalDeviceVulkan12Features::timelineSemaphore); features go through
  // VkPhysicalDeviceFeatures2 in pNext, so pEnabledFeatures stays null.
  chain.features12.timelineSemaphore = VK_TRUE;
  // Query pools reset from the host (vkResetQueryPool) need no command in the
  // frame's command buffer; without the feature the timer resets in it instead.
  chain.features12.hostQueryReset = info.hostQueryReset ? VK_TRUE : VK_FALSE;
  // The cuda-nvx backend passes buffer device addresses as kernel pointers.
  chain.features12.bufferDeviceAddress = options.cudaKernelLaunch ? VK_TRUE : VK_FALSE;
  chain.features.pNext = &chain.features12;
  // A feature structure is chained only with its extension enabled (valid
  // usage of VkDeviceCreateInfo's pNext).
  if (presentWait) {
    chain.presentId.presentId = VK_TRUE;
    chain.presentWait.presentWait = VK_TRUE;
    chain.presentId.pNext = &chain.presentWait;
    chain.features12.pNext = &chain.presentId;
  }
  // Inserted right after features12: without it the chain is what it always was.
  if (maintenance8) {
    chain.maintenance8.maintenance8 = VK_TRUE;
    chain.maintenance8.pNext = chain.features12.pNext;
    chain.features12.pNext = &chain.maintenance8;
  }
}

void createCommandPool(Device& device) {
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = device.queueFamily;
  VK_CHECK(vkCreateCommandPool(device.device, &poolInfo, nullptr, &device.commandPool));
}

// What the rest of the renderer reads from the device instead of asking the
// physical device again: memory types, the timestamp period and width, and
// the options and features it was created with.
void recordDeviceLimits(Device& device, const std::vector<VkQueueFamilyProperties>& families,
                        const DeviceOptions& options) {
  const PhysicalDeviceInfo& info = device.info;
  vkGetPhysicalDeviceMemoryProperties(info.handle, &device.memoryProperties);
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(info.handle, &properties);
  device.timestampPeriod = properties.limits.timestampPeriod;
  device.timestampValidBits = families[device.queueFamily].timestampValidBits;
  device.exportMemory = options.exportMemory;
  device.exportSemaphores = options.exportSemaphores;
  device.hostQueryReset = info.hostQueryReset;
  device.calibratedTimestamps = info.calibratedTimestamps;
}

}  // namespace

std::vector<PhysicalDeviceInfo> listPhysicalDevices(const Instance& instance) {
  const std::vector<VkPhysicalDevice> handles =
      enumerate<VkPhysicalDevice>("vkEnumeratePhysicalDevices", [&](uint32_t* count, VkPhysicalDevice* data) {
        return vkEnumeratePhysicalDevices(instance.instance, count, data);
      });
  std::vector<PhysicalDeviceInfo> devices;
  devices.reserve(handles.size());
  for (uint32_t i = 0; i < handles.size(); ++i) devices.push_back(describePhysicalDevice(handles[i], i));

  // The CUDA guide allows importing Vulkan memory only from a device group of
  // one physical device (app/interop/device_pairing.cpp checks it); core since Vulkan 1.1.
  const std::vector<VkPhysicalDeviceGroupProperties> groups = enumerate<VkPhysicalDeviceGroupProperties>(
      "vkEnumeratePhysicalDeviceGroups",
      [&](uint32_t* count, VkPhysicalDeviceGroupProperties* data) {
        return vkEnumeratePhysicalDeviceGroups(instance.instance, count, data);
      },
      {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES});
  for (const VkPhysicalDeviceGroupProperties& group : groups)
    for (uint32_t member = 0; member < group.physicalDeviceCount; ++member)
      for (PhysicalDeviceInfo& device : devices)
        if (device.handle == group.physicalDevices[member])
          device.deviceGroupSize = group.physicalDeviceCount;
  return devices;
}

const char* deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

std::string formatVersion(uint32_t vulkanVersion) {
  return std::to_string(VK_API_VERSION_MAJOR(vulkanVersion)) + "." +
         std::to_string(VK_API_VERSION_MINOR(vulkanVersion)) + "." +
         std::to_string(VK_API_VERSION_PATCH(vulkanVersion));
}

std::string describeDriver(const PhysicalDeviceInfo& info) {
  if (info.driverName.empty()) return formatDriverVersion(info);
  return info.driverName + " " + (info.driverInfo.empty() ? formatDriverVersion(info) : info.driverInfo);
}

std::string formatDriverVersion(const PhysicalDeviceInfo& info) {
  const uint32_t v = info.driverVersion;
  if (info.vendorId == kNvidiaVendorId) {
    // NVIDIA packs 10.8.8.6 bits (e.g. 535.104.05 -> 535.104.5.0); the
    // third part is conventionally printed with two digits.
    const unsigned tertiary = v & 0x3fu;
    std::string text = fmt::format("{}.{}.{:02}", (v >> 22) & 0x3ffu, (v >> 14) & 0xffu, (v >> 6) & 0xffu);
    if (tertiary != 0) text += fmt::format(".{}", tertiary);
    return text;
  }
  // Mesa and most others use the Vulkan version macros.
  return fmt::format("{}.{}.{}", VK_VERSION_MAJOR(v), VK_VERSION_MINOR(v), VK_VERSION_PATCH(v));
}

Device createDevice(const Instance& instance, const PhysicalDeviceInfo& info, const DeviceOptions& options) {
  (void)instance;  // the physical device handle already belongs to it
  const std::string who = "The Vulkan device '" + info.name + "'";
  requireVulkan12Device(who, info);
  const bool presentWait = options.swapchain && info.presentWait;
  const bool maintenance8 = options.maintenance8 && info.maintenance8;
  const std::vector<const char*> extensions =
      enabledDeviceExtensions(who, info, options, presentWait, maintenance8);
  const std::vector<VkQueueFamilyProperties> families = queueFamilies(info.handle);
  const uint32_t familyIndex = chooseQueueFamily(who, info, families, options.surface);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = familyIndex;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  EnabledFeatures features;
  chainEnabledFeatures(features, info, options, presentWait, maintenance8);

  VkDeviceCreateInfo createInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  createInfo.pNext = &features.features;
  createInfo.queueCreateInfoCount = 1;
  createInfo.pQueueCreateInfos = &queueInfo;
  createInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  createInfo.ppEnabledExtensionNames = extensions.data();

  Device device;
  device.physical = info.handle;
  device.info = info;
  // The validation layer's messages about an extension newer than the layer
  // are expected from here on (renderer/vulkan_instance.cpp): vkCreateDevice
  // already reports one.
  if (maintenance8) expectNewerExtensionMessages(true);
  VK_CHECK(vkCreateDevice(info.handle, &createInfo, nullptr, &device.device));
  // volk keeps one global device table: the process drives one device at a time.
  volkLoadDevice(device.device);
  device.queueFamily = familyIndex;
  device.presentWait = presentWait;
  device.maintenance8 = maintenance8;
  vkGetDeviceQueue(device.device, familyIndex, 0, &device.queue);
  nameObject(device.device, device.queue, "render queue");
  createCommandPool(device);
  recordDeviceLimits(device, families, options);
  return device;
}

void destroyDevice(Device& device) {
  if (device.commandPool != VK_NULL_HANDLE) vkDestroyCommandPool(device.device, device.commandPool, nullptr);
  if (device.device != VK_NULL_HANDLE) vkDestroyDevice(device.device, nullptr);
  if (device.maintenance8) expectNewerExtensionMessages(false);
  device = Device{};
}

void recordValidationCanary(const Device& device) {
  GpuBuffer target = createGpuBuffer(device, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0);
  VkCommandBuffer commands = beginOneTimeCommands(device);
  std::fprintf(stderr,
               "vkcuda-sim: VKSIM_VALIDATION_CANARY: the next two validation errors are deliberate\n");
  // VUID-vkCmdFillBuffer-dstOffset-00025: dstOffset must be a multiple of 4.
  vkCmdFillBuffer(commands, target.buffer, 2, 64, 0);
  // Two transfer writes of the same bytes with no barrier between them: a
  // write-after-write hazard, which only synchronization validation reports.
  vkCmdFillBuffer(commands, target.buffer, 128, 64, 0);
  vkCmdFillBuffer(commands, target.buffer, 128, 64, 1);
  VK_CHECK(vkEndCommandBuffer(commands));
  // Never submitted: the driver executes none of it.
  vkFreeCommandBuffers(device.device, device.commandPool, 1, &commands);
  destroyGpuBuffer(device, target);
}

uint32_t findMemoryType(const Device& device, uint32_t typeBits, VkMemoryPropertyFlags required,
                        VkMemoryPropertyFlags preferred) {
  const VkPhysicalDeviceMemoryProperties& memory = device.memoryProperties;
  const VkMemoryPropertyFlags wanted = required | preferred;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((typeBits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((typeBits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & required) == required) return i;
  return UINT32_MAX;
}

}  // namespace vksim
