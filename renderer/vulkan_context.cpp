#include "renderer/vulkan_context.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "renderer/frame_sync.h"
#include "renderer/gpu_buffer.h"
#include "renderer/shared_resources.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr uint32_t kRequiredApiVersion = VK_API_VERSION_1_2;
constexpr uint32_t kNvidiaVendorId = 0x10DE;

// The messages suppressed, each by its exact messageIdName, never by severity
// or type. Both report the layer's own state tracker giving up, not a rule of
// the application: the message says "This is most likely a validation bug".
// Debian 12's layer (1.3.239) waits up to 10 s for its model of a timeline
// value signalled from the host (vkSignalSemaphore, the CPU backend's
// signals) while another thread reads the counter or a queue wait on it is
// pending, and then gives up (Vulkan-ValidationLayers issues 4649 and 4968;
// the tracking was rewritten in pull request 8519, 2024). Seen here under a
// loaded 2-core machine in the --frame-tags runs, where a worker thread
// signals while the frame loop polls. A false positive on a semaphore
// signalled by CUDA would be added the same way.
constexpr const char* kSuppressedMessageIds[] = {
    "UNASSIGNED-VkSemaphore-state-timeout",
    "UNASSIGNED-VkFence-state-timeout",
};

bool isSuppressed(const char* messageIdName) {
  if (!messageIdName) return false;
  for (const char* id : kSuppressedMessageIds)
    if (std::strcmp(id, messageIdName) == 0) return true;
  return false;
}

VKAPI_ATTR VkBool32 VKAPI_CALL debugMessengerCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                      VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                                      const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                      void* /*userData*/) {
  if (isSuppressed(data->pMessageIdName)) return VK_FALSE;
  const bool error = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0;
  if (error)
    ++validationCounts().errors;
  else
    ++validationCounts().warnings;
  std::fprintf(stderr, "vulkan %s [%s]: %s\n", error ? "error" : "warning",
               data->pMessageIdName ? data->pMessageIdName : "no message ID",
               data->pMessage ? data->pMessage : "");
  // VK_FALSE: the spec reserves VK_TRUE (abort the call) for layer development.
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messengerCreateInfo() {
  VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = debugMessengerCallback;
  return info;
}

bool hasLayer(const char* name) {
  const std::vector<VkLayerProperties> layers =
      enumerate<VkLayerProperties>("vkEnumerateInstanceLayerProperties", vkEnumerateInstanceLayerProperties);
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& layer) { return std::strcmp(layer.layerName, name) == 0; });
}

std::vector<VkExtensionProperties> instanceExtensions(const char* layer) {
  return enumerate<VkExtensionProperties>("vkEnumerateInstanceExtensionProperties",
                                          [&](uint32_t* count, VkExtensionProperties* data) {
                                            return vkEnumerateInstanceExtensionProperties(layer, count, data);
                                          });
}

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice physical) {
  return enumerate<VkExtensionProperties>(
      "vkEnumerateDeviceExtensionProperties", [&](uint32_t* count, VkExtensionProperties* data) {
        return vkEnumerateDeviceExtensionProperties(physical, nullptr, count, data);
      });
}

bool contains(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
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

PhysicalDeviceInfo describePhysicalDevice(VkPhysicalDevice physical, uint32_t index) {
  PhysicalDeviceInfo info;
  info.index = index;
  info.handle = physical;

  VkPhysicalDeviceProperties basic{};
  vkGetPhysicalDeviceProperties(physical, &basic);
  const std::vector<VkExtensionProperties> extensions = deviceExtensions(physical);
  const bool vulkan12 = basic.apiVersion >= kRequiredApiVersion;

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
  std::copy(std::begin(idProperties.deviceUUID), std::end(idProperties.deviceUUID), info.deviceUuid.begin());
  if (hasDriverProperties) {
    info.driverName = driverProperties.driverName;
    info.driverInfo = driverProperties.driverInfo;
    info.driverId = driverProperties.driverID;
  }

  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceTimelineSemaphoreFeatures timelineFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  if (vulkan12)
    features.pNext = &features12;
  else if (contains(extensions, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME))
    features.pNext = &timelineFeatures;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  // Present id and present wait: an extension is listed, and its feature is
  // on (a driver may list one and not support it on every device).
  if (contains(extensions, VK_KHR_PRESENT_ID_EXTENSION_NAME) &&
      contains(extensions, VK_KHR_PRESENT_WAIT_EXTENSION_NAME)) {
    VkPhysicalDevicePresentIdFeaturesKHR presentId{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR};
    VkPhysicalDevicePresentWaitFeaturesKHR presentWait{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR};
    presentId.pNext = &presentWait;
    VkPhysicalDeviceFeatures2 presentFeatures{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    presentFeatures.pNext = &presentId;
    vkGetPhysicalDeviceFeatures2(physical, &presentFeatures);
    info.presentWait = presentId.presentId == VK_TRUE && presentWait.presentWait == VK_TRUE;
  }
  info.timelineSemaphores =
      vulkan12 ? features12.timelineSemaphore == VK_TRUE : timelineFeatures.timelineSemaphore == VK_TRUE;
  info.hostQueryReset = vulkan12 && features12.hostQueryReset == VK_TRUE;
  info.bufferDeviceAddress = vulkan12 && features12.bufferDeviceAddress == VK_TRUE;
  info.nvxBinaryImport = contains(extensions, VK_NVX_BINARY_IMPORT_EXTENSION_NAME);
  info.calibratedTimestamps =
      contains(extensions, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) && offersHostCalibration(physical);

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

  for (const VkQueueFamilyProperties& family : queueFamilies(physical))
    if (family.queueFlags & VK_QUEUE_GRAPHICS_BIT) info.hasGraphicsQueue = true;
  return info;
}

std::string joinNames(const std::vector<const char*>& names) {
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) joined += i + 1 == names.size() ? " and " : ", ";
    joined += names[i];
  }
  return joined;
}

}  // namespace

ValidationCounts& validationCounts() {
  static ValidationCounts counts;
  return counts;
}

Instance createInstance(const InstanceOptions& options) {
  // volk opens libvulkan.so.1 with dlopen: nothing links the loader, so a
  // machine without it gets this sentence instead of a dynamic-linker error.
  if (volkInitialize() != VK_SUCCESS)
    throw EnvironmentError(
        "No Vulkan loader (libvulkan.so.1) was found; install a Vulkan driver and loader.");
  const uint32_t loaderVersion = volkGetInstanceVersion();
  if (loaderVersion < kRequiredApiVersion)
    throw EnvironmentError("The Vulkan loader offers version " + formatVersion(loaderVersion) +
                           " and vkcuda-sim needs Vulkan 1.2 or newer.");

  std::vector<const char*> layers;
  if (options.validation) {
    if (!hasLayer(kValidationLayer))
      throw EnvironmentError(std::string("Validation was requested but the layer ") + kValidationLayer +
                             " is not installed (Debian package vulkan-validationlayers).");
    layers.push_back(kValidationLayer);
  }

  std::vector<const char*> extensions;
  const auto addExtension = [&](const char* name) {
    if (std::none_of(extensions.begin(), extensions.end(),
                     [&](const char* e) { return std::strcmp(e, name) == 0; }))
      extensions.push_back(name);
  };
  addExtension(VK_KHR_SURFACE_EXTENSION_NAME);
  for (const std::string& extension : options.extraExtensions) addExtension(extension.c_str());
  if (options.validation) addExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  const bool synchronizationValidation = options.validation && options.synchronizationValidation;
  // A structure in pNext is valid only when its extension is enabled; the
  // layer itself provides VK_EXT_validation_features.
  if (synchronizationValidation) addExtension(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);

  // An extension may come from the loader/driver or from an enabled layer
  // (the validation layer itself provides VK_EXT_debug_utils).
  std::vector<VkExtensionProperties> available = instanceExtensions(nullptr);
  if (options.validation) {
    std::vector<VkExtensionProperties> layerExtensions = instanceExtensions(kValidationLayer);
    available.insert(available.end(), layerExtensions.begin(), layerExtensions.end());
  }
  std::vector<const char*> missing;
  for (const char* name : extensions)
    if (!contains(available, name)) missing.push_back(name);
  if (synchronizationValidation && !contains(available, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME))
    throw EnvironmentError(std::string("Synchronization validation was requested but the layer ") +
                           kValidationLayer + " does not offer VK_EXT_validation_features.");
  if (!missing.empty())
    throw EnvironmentError("The Vulkan loader lacks the instance extension" +
                           std::string(missing.size() > 1 ? "s " : " ") + joinNames(missing) + ".");

  VkApplicationInfo application{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  application.pApplicationName = "vkcuda-sim";
  application.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  application.pEngineName = "vkcuda-sim";
  application.engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  application.apiVersion = kRequiredApiVersion;

  // The messenger create info in pNext also covers vkCreateInstance and
  // vkDestroyInstance themselves (VK_EXT_debug_utils: the messenger object
  // only exists between those two calls).
  const VkDebugUtilsMessengerCreateInfoEXT messengerInfo = messengerCreateInfo();
  // Synchronization validation is off in the layer by default; the features
  // structure is the application's own way to turn it on, and the layer
  // reads it at vkCreateInstance (VK_EXT_validation_features). The canary
  // (recordValidationCanary) shows it took effect.
  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT validationFeatures{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  validationFeatures.pNext = &messengerInfo;
  validationFeatures.enabledValidationFeatureCount = 1;
  validationFeatures.pEnabledValidationFeatures = enables;
  VkInstanceCreateInfo createInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  createInfo.pNext = synchronizationValidation ? static_cast<const void*>(&validationFeatures)
                     : options.validation      ? static_cast<const void*>(&messengerInfo)
                                               : nullptr;
  createInfo.pApplicationInfo = &application;
  createInfo.enabledLayerCount = static_cast<uint32_t>(layers.size());
  createInfo.ppEnabledLayerNames = layers.data();
  createInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  createInfo.ppEnabledExtensionNames = extensions.data();

  Instance instance;
  const VkResult result = vkCreateInstance(&createInfo, nullptr, &instance.instance);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
    throw EnvironmentError("No Vulkan driver offers a Vulkan 1.2 instance on this machine.");
  if (result != VK_SUCCESS) failVulkanCall("vkCreateInstance", result, __FILE__, __LINE__);
  instance.validation = options.validation;
  instance.synchronizationValidation = synchronizationValidation;
  instance.apiVersion = loaderVersion;
  // Device entry points loaded here go through the loader's trampolines until
  // createDevice's volkLoadDevice replaces them with the driver's own.
  volkLoadInstance(instance.instance);

  if (options.validation)
    VK_CHECK(vkCreateDebugUtilsMessengerEXT(instance.instance, &messengerInfo, nullptr, &instance.messenger));
  return instance;
}

void destroyInstance(Instance& instance) {
  if (instance.messenger != VK_NULL_HANDLE)
    vkDestroyDebugUtilsMessengerEXT(instance.instance, instance.messenger, nullptr);
  if (instance.instance != VK_NULL_HANDLE) vkDestroyInstance(instance.instance, nullptr);
  instance = Instance{};
}

std::string describeValidation(const Instance& instance) {
  if (!instance.validation) return "validation=off";
  return std::string("validation=on sync_validation=") + (instance.synchronizationValidation ? "on" : "off");
}

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
  if (info.apiVersion < kRequiredApiVersion)
    throw EnvironmentError(who + " offers Vulkan " + formatVersion(info.apiVersion) +
                           " and vkcuda-sim needs Vulkan 1.2.");
  if (!info.timelineSemaphores) throw EnvironmentError(who + " lacks the timelineSemaphore feature.");

  const std::vector<VkExtensionProperties> available = deviceExtensions(info.handle);
  std::vector<const char*> extensions;
  if (options.exportMemory) extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  if (options.exportSemaphores) extensions.push_back(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
  if (options.swapchain) extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  if (options.cudaKernelLaunch) {
    if (!info.bufferDeviceAddress) throw EnvironmentError(who + " lacks the bufferDeviceAddress feature.");
    extensions.push_back(VK_NVX_BINARY_IMPORT_EXTENSION_NAME);
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
  const bool presentWait = options.swapchain && info.presentWait;
  if (presentWait) {
    extensions.push_back(VK_KHR_PRESENT_ID_EXTENSION_NAME);
    extensions.push_back(VK_KHR_PRESENT_WAIT_EXTENSION_NAME);
  }

  // One family for everything: the frame's graphics, the transfers and (when
  // there is a surface) present, so no queue-family ownership transfers exist.
  const std::vector<VkQueueFamilyProperties> families = queueFamilies(info.handle);
  constexpr VkQueueFlags kNeeded = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  uint32_t familyIndex = UINT32_MAX;
  for (uint32_t i = 0; i < families.size() && familyIndex == UINT32_MAX; ++i) {
    if ((families[i].queueFlags & kNeeded) != kNeeded || families[i].queueCount == 0) continue;
    if (options.surface != VK_NULL_HANDLE) {
      VkBool32 present = VK_FALSE;
      VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(info.handle, i, options.surface, &present));
      if (present != VK_TRUE) continue;
    }
    familyIndex = i;
  }
  if (familyIndex == UINT32_MAX)
    throw EnvironmentError(who + " has no queue family with graphics and compute" +
                           (options.surface != VK_NULL_HANDLE ? " that can present to the window." : "."));

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = familyIndex;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;

  // Timeline semaphores are a core 1.2 feature that is still opt-in
  // (VkPhysicalDeviceVulkan12Features::timelineSemaphore); features go through
  // VkPhysicalDeviceFeatures2 in pNext, so pEnabledFeatures stays null.
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  features12.timelineSemaphore = VK_TRUE;
  // Query pools reset from the host (vkResetQueryPool) need no command in the
  // frame's command buffer; without the feature the timer resets in it instead.
  features12.hostQueryReset = info.hostQueryReset ? VK_TRUE : VK_FALSE;
  // The cuda-nvx backend passes buffer device addresses as kernel pointers.
  features12.bufferDeviceAddress = options.cudaKernelLaunch ? VK_TRUE : VK_FALSE;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &features12;
  // A feature structure is chained only with its extension enabled (valid
  // usage of VkDeviceCreateInfo's pNext).
  VkPhysicalDevicePresentIdFeaturesKHR presentIdFeatures{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR};
  VkPhysicalDevicePresentWaitFeaturesKHR presentWaitFeatures{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR};
  if (presentWait) {
    presentIdFeatures.presentId = VK_TRUE;
    presentWaitFeatures.presentWait = VK_TRUE;
    presentIdFeatures.pNext = &presentWaitFeatures;
    features12.pNext = &presentIdFeatures;
  }

  VkDeviceCreateInfo createInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  createInfo.pNext = &features;
  createInfo.queueCreateInfoCount = 1;
  createInfo.pQueueCreateInfos = &queueInfo;
  createInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  createInfo.ppEnabledExtensionNames = extensions.data();

  Device device;
  device.physical = info.handle;
  device.info = info;
  VK_CHECK(vkCreateDevice(info.handle, &createInfo, nullptr, &device.device));
  // volk keeps one global device table: the process drives one device at a time.
  volkLoadDevice(device.device);
  device.queueFamily = familyIndex;
  device.presentWait = presentWait;
  vkGetDeviceQueue(device.device, familyIndex, 0, &device.queue);

  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = familyIndex;
  VK_CHECK(vkCreateCommandPool(device.device, &poolInfo, nullptr, &device.commandPool));

  vkGetPhysicalDeviceMemoryProperties(info.handle, &device.memoryProperties);
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(info.handle, &properties);
  device.timestampPeriod = properties.limits.timestampPeriod;
  device.timestampValidBits = families[familyIndex].timestampValidBits;
  device.exportMemory = options.exportMemory;
  device.exportSemaphores = options.exportSemaphores;
  device.hostQueryReset = info.hostQueryReset;
  device.calibratedTimestamps = info.calibratedTimestamps;
  return device;
}

void destroyDevice(Device& device) {
  if (device.commandPool != VK_NULL_HANDLE) vkDestroyCommandPool(device.device, device.commandPool, nullptr);
  if (device.device != VK_NULL_HANDLE) vkDestroyDevice(device.device, nullptr);
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
