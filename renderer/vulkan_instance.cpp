// The Vulkan instance: the loader, the validation layer and its messenger.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "renderer/debug_names.h"
#include "renderer/vk_newer_definitions.h"
#include "renderer/vk_check.h"
#include "renderer/vulkan_context.h"
#include "renderer/vulkan_names.h"

namespace vksim {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

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

// Expected only while a device with VK_KHR_maintenance8 enabled exists
// (expectNewerExtensionMessages), from a layer older than the extension:
// Debian 12's 1.3.239, the only one here and the one carried to the H200
// (Vulkan-ValidationLayers at tag v1.3.239 is where each text comes from).
// Each is matched by its exact ID and by a text its message must contain.
struct NewerExtensionMessage {
  const char* id;
  const char* text;
};
constexpr NewerExtensionMessage kMaintenance8Messages[] = {
    // layers/generated/chassis.cpp, DeviceExtensionWhitelist: a warning at
    // vkCreateDevice for every device extension missing from the layer's
    // own list, which predates VK_KHR_maintenance8 (the message has no VUID:
    // kVUIDUndefined).
    {"VUID_Undefined", "Device Extension VK_KHR_maintenance8 is not supported by this layer"},
    // layers/generated/parameter_validation.cpp, vkCmdPipelineBarrier: the
    // layer's AllVkDependencyFlagBits predates bit 5,
    // VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR,
    // which every ownership transfer to or from EXTERNAL then carries
    // (renderer/external_transfer_stages.h is the only place that sets a flag).
    {"VUID-vkCmdPipelineBarrier-dependencyFlags-parameter",
     "value of dependencyFlags contains flag bits that are not recognized members of VkDependencyFlagBits"},
};
// Not listed on purpose: VUID-VkDeviceCreateInfo-pNext-pNext for the unknown
// structure 1000574000 (that layer does not check vkGetPhysicalDeviceFeatures2's
// chain). declareNewerStructuresToLayer keeps it from being reported (seen
// here: chained on lavapipe in a scratch build, the error came without the
// declaration and not with it); should it appear, the layer has dropped the
// feature structure on its way to the driver, and the run must say so.

std::atomic<bool>& newerExtensionMessagesExpected() {
  static std::atomic<bool> expected{false};
  return expected;
}

bool isSuppressed(const char* messageIdName, const char* message) {
  if (!messageIdName) return false;
  for (const char* id : kSuppressedMessageIds)
    if (std::strcmp(id, messageIdName) == 0) return true;
  if (newerExtensionMessagesExpected().load())
    for (const NewerExtensionMessage& expected : kMaintenance8Messages)
      if (std::strcmp(expected.id, messageIdName) == 0 && message && std::strstr(message, expected.text))
        return true;
  return false;
}

// Debian 12's validation layer (1.3.239) copies VkDeviceCreateInfo before
// passing it down and leaves out of the copy every pNext structure whose
// sType it does not know (layers/generated/vk_safe_struct.cpp, SafePnextCopy):
// the driver would get VK_KHR_maintenance8 without its feature structure,
// and the layer would report the structure as unknown in vkCreateDevice.
// Its setting custom_stype_list, read from
// VK_LAYER_CUSTOM_STYPE_LIST at vkCreateInstance as "sType:size" pairs
// (layers/layer_options.cpp), makes it copy such a structure byte for byte
// and leave it unchecked. Declared before every instance, whoever enabled
// the layer (VKSIM_VALIDATION or VK_INSTANCE_LAYERS): a structure the program
// never chains changes nothing, and without the layer nobody reads it.
void declareNewerStructuresToLayer() {
  constexpr const char* kVariable = "VK_LAYER_CUSTOM_STYPE_LIST";
  const std::string entry = std::to_string(int(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_8_FEATURES_KHR)) +
                            ":" + std::to_string(sizeof(VkPhysicalDeviceMaintenance8FeaturesKHR));
  const char* current = std::getenv(kVariable);
  const std::string value = current ? current : "";
  if (value.find(entry) != std::string::npos) return;
  setenv(kVariable, (value.empty() ? entry : value + ":" + entry).c_str(), 1);
}

VKAPI_ATTR VkBool32 VKAPI_CALL debugMessengerCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                      VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                                      const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                      void* /*userData*/) {
  if (isSuppressed(data->pMessageIdName, data->pMessage)) return VK_FALSE;
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

// volk opens libvulkan.so.1 with dlopen: nothing links the loader, so a
// machine without it gets this sentence instead of a dynamic-linker error.
// Returns the loader's instance version.
uint32_t loadVulkanLoader() {
  if (volkInitialize() != VK_SUCCESS)
    throw EnvironmentError(
        "No Vulkan loader (libvulkan.so.1) was found; install a Vulkan driver and loader.");
  const uint32_t loaderVersion = volkGetInstanceVersion();
  if (loaderVersion < kRequiredApiVersion)
    throw EnvironmentError("The Vulkan loader offers version " + formatVersion(loaderVersion) +
                           " and vkcuda-sim needs Vulkan 1.2 or newer.");
  return loaderVersion;
}

std::vector<const char*> enabledLayers(const InstanceOptions& options) {
  std::vector<const char*> layers;
  if (options.validation) {
    if (!hasLayer(kValidationLayer))
      throw EnvironmentError(std::string("Validation was requested but the layer ") + kValidationLayer +
                             " is not installed (Debian package vulkan-validationlayers).");
    layers.push_back(kValidationLayer);
  }
  return layers;
}

// The names point into `options` (extraExtensions) or at string literals.
// VK_EXT_debug_utils is enabled whenever it is offered, not only for the
// validation messenger: graphics debuggers (RenderDoc, Nsight Graphics) show
// the object names and command labels it carries (renderer/debug_names.h).
// The loader offers it itself, so it is nearly always there.
std::vector<const char*> enabledInstanceExtensions(const InstanceOptions& options, bool synchronizationValidation,
                                                   bool debugUtilsOffered) {
  std::vector<const char*> extensions;
  const auto addExtension = [&](const char* name) {
    if (std::none_of(extensions.begin(), extensions.end(),
                     [&](const char* e) { return std::strcmp(e, name) == 0; }))
      extensions.push_back(name);
  };
  addExtension(VK_KHR_SURFACE_EXTENSION_NAME);
  for (const std::string& extension : options.extraExtensions) addExtension(extension.c_str());
  if (options.validation || debugUtilsOffered) addExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  // A structure in pNext is valid only when its extension is enabled; the
  // layer itself provides VK_EXT_validation_features.
  if (synchronizationValidation) addExtension(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  return extensions;
}

void requireInstanceExtensions(const InstanceOptions& options, const std::vector<const char*>& extensions,
                               bool synchronizationValidation) {
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
}

VkApplicationInfo applicationInfo() {
  VkApplicationInfo application{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  application.pApplicationName = "vkcuda-sim";
  application.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  application.pEngineName = "vkcuda-sim";
  application.engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  application.apiVersion = kRequiredApiVersion;
  return application;
}

}  // namespace

ValidationCounts& validationCounts() {
  static ValidationCounts counts;
  return counts;
}

void expectNewerExtensionMessages(bool expected) { newerExtensionMessagesExpected() = expected; }

Instance createInstance(const InstanceOptions& options) {
  const uint32_t loaderVersion = loadVulkanLoader();
  const std::vector<const char*> layers = enabledLayers(options);
  const bool synchronizationValidation = options.validation && options.synchronizationValidation;
  const bool debugUtilsOffered = contains(instanceExtensions(nullptr), VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  const std::vector<const char*> extensions =
      enabledInstanceExtensions(options, synchronizationValidation, debugUtilsOffered);
  requireInstanceExtensions(options, extensions, synchronizationValidation);
  const VkApplicationInfo application = applicationInfo();

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

  declareNewerStructuresToLayer();
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
  loadDebugUtils(instance.instance, options.validation || debugUtilsOffered);

  if (options.validation)
    VK_CHECK(vkCreateDebugUtilsMessengerEXT(instance.instance, &messengerInfo, nullptr, &instance.messenger));
  return instance;
}

void destroyInstance(Instance& instance) {
  unloadDebugUtils();
  if (instance.messenger != VK_NULL_HANDLE)
    vkDestroyDebugUtilsMessengerEXT(instance.instance, instance.messenger, nullptr);
  if (instance.instance != VK_NULL_HANDLE) vkDestroyInstance(instance.instance, nullptr);
  instance = Instance{};
}

std::string describeValidation(const Instance& instance) {
  if (!instance.validation) return "validation=off";
  return std::string("validation=on sync_validation=") + (instance.synchronizationValidation ? "on" : "off");
}

}  // namespace vksim
