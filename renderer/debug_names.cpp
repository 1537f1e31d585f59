#include "renderer/debug_names.h"

#include <cstdint>
#include <type_traits>

namespace vksim {
namespace {

// This file's own pointers, not volk's: volk fills its table from whatever
// the loader returns, and an entry point of an extension the instance did
// not enable must not be called (the loader may still hand one out). Null
// means "not enabled", and every function below then returns at once.
struct DebugUtilsEntryPoints {
  PFN_vkSetDebugUtilsObjectNameEXT setObjectName = nullptr;
  PFN_vkCmdBeginDebugUtilsLabelEXT beginLabel = nullptr;
  PFN_vkCmdEndDebugUtilsLabelEXT endLabel = nullptr;
};
DebugUtilsEntryPoints entryPoints;

void nameHandle(VkDevice device, VkObjectType type, uint64_t handle, const char* name) {
  if (!entryPoints.setObjectName || device == VK_NULL_HANDLE || handle == 0) return;
  VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
  info.objectType = type;
  info.objectHandle = handle;
  info.pObjectName = name;
  // The only failure the specification allows is out of host memory: a
  // name lost then changes nothing the program does, so it is not checked.
  entryPoints.setObjectName(device, &info);
}

// Dispatchable handles are pointers; non-dispatchable ones are pointers on
// 64-bit platforms and uint64_t elsewhere.
template <typename Handle>
uint64_t handleBits(Handle handle) {
  if constexpr (std::is_pointer_v<Handle>)
    return uint64_t(reinterpret_cast<uintptr_t>(handle));
  else
    return uint64_t(handle);
}

}  // namespace

void loadDebugUtils(VkInstance instance, bool enabled) {
  entryPoints = {};
  if (!enabled || instance == VK_NULL_HANDLE) return;
  entryPoints.setObjectName = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
      vkGetInstanceProcAddr(instance, "vkSetDebugUtilsObjectNameEXT"));
  entryPoints.beginLabel = reinterpret_cast<PFN_vkCmdBeginDebugUtilsLabelEXT>(
      vkGetInstanceProcAddr(instance, "vkCmdBeginDebugUtilsLabelEXT"));
  entryPoints.endLabel = reinterpret_cast<PFN_vkCmdEndDebugUtilsLabelEXT>(
      vkGetInstanceProcAddr(instance, "vkCmdEndDebugUtilsLabelEXT"));
  // A begin without its end would leave regions open: both or neither.
  if (!entryPoints.beginLabel || !entryPoints.endLabel) {
    entryPoints.beginLabel = nullptr;
    entryPoints.endLabel = nullptr;
  }
}

void unloadDebugUtils() {
  entryPoints = {};
}

bool debugUtilsLoaded() {
  return entryPoints.setObjectName != nullptr;
}

void nameObject(VkDevice device, VkBuffer handle, const char* name) {
  nameHandle(device, VK_OBJECT_TYPE_BUFFER, handleBits(handle), name);
}
void nameObject(VkDevice device, VkDeviceMemory handle, const char* name) {
  nameHandle(device, VK_OBJECT_TYPE_DEVICE_MEMORY, handleBits(handle), name);
}
void nameObject(VkDevice device, VkSemaphore handle, const char* name) {
  nameHandle(device, VK_OBJECT_TYPE_SEMAPHORE, handleBits(handle), name);
}
void nameObject(VkDevice device, VkImage handle, const char* name) {
  nameHandle(device, VK_OBJECT_TYPE_IMAGE, handleBits(handle), name);
}
void nameObject(VkDevice device, VkFence handle, const char* name) {
  nameHandle(device, VK_OBJECT_TYPE_FENCE, handleBits(handle), name);
}
void nameObject(VkDevice device, VkQueue handle, const char* name) {
  nameHandle(device, VK_OBJECT_TYPE_QUEUE, handleBits(handle), name);
}
void nameObject(VkDevice device, VkCommandBuffer handle, const char* name) {
  nameHandle(device, VK_OBJECT_TYPE_COMMAND_BUFFER, handleBits(handle), name);
}

void beginCommandLabel(VkCommandBuffer commandBuffer, const char* text) {
  if (!entryPoints.beginLabel) return;
  VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
  label.pLabelName = text;
  entryPoints.beginLabel(commandBuffer, &label);
}

void endCommandLabel(VkCommandBuffer commandBuffer) {
  if (entryPoints.endLabel) entryPoints.endLabel(commandBuffer);
}

}  // namespace vksim
