// Names and labels for graphics debuggers (RenderDoc, Nsight Graphics, the
// validation layer's messages), through VK_EXT_debug_utils. A reader who opens
// a capture then sees "shared vertex buffer" and "render 3: wait 6, signal 7"
// instead of handles and anonymous barriers.
//
// The extension is enabled whenever the instance offers it (the loader itself
// does, and so does every layer that captures); createInstance loads the
// entry points below into this file's own pointers. Where it is absent the
// pointers stay null and every call here does nothing: names and labels
// never change what the GPU does.
#pragma once
#include <volk.h>

namespace vksim {

// Called by createInstance after vkCreateInstance: loads the three entry
// points through vkGetInstanceProcAddr when `enabled` (the instance enabled
// VK_EXT_debug_utils), else leaves them null. unloadDebugUtils (from
// destroyInstance) nulls them again. One instance at a time, like volk.
void loadDebugUtils(VkInstance instance, bool enabled);
void unloadDebugUtils();
// Whether names and labels reach anything (for tests and the docs' claims).
bool debugUtilsLoaded();

// Gives `handle`, an object of `device`, a name shown by the tools. The text
// is copied by the implementation; nullptr or an empty text removes the name.
void nameObject(VkDevice device, VkBuffer handle, const char* name);
void nameObject(VkDevice device, VkDeviceMemory handle, const char* name);
void nameObject(VkDevice device, VkSemaphore handle, const char* name);
void nameObject(VkDevice device, VkImage handle, const char* name);
void nameObject(VkDevice device, VkFence handle, const char* name);
void nameObject(VkDevice device, VkQueue handle, const char* name);
void nameObject(VkDevice device, VkCommandBuffer handle, const char* name);

// Opens and closes a labelled region of a command buffer being recorded;
// regions nest and must close in the same command buffer.
void beginCommandLabel(VkCommandBuffer commandBuffer, const char* text);
void endCommandLabel(VkCommandBuffer commandBuffer);

// A labelled region for the current scope: one line at a call site.
class ScopedCommandLabel {
 public:
  ScopedCommandLabel(VkCommandBuffer commandBuffer, const char* text) : commandBuffer_(commandBuffer) {
    beginCommandLabel(commandBuffer_, text);
  }
  ~ScopedCommandLabel() { endCommandLabel(commandBuffer_); }
  ScopedCommandLabel(const ScopedCommandLabel&) = delete;
  ScopedCommandLabel& operator=(const ScopedCommandLabel&) = delete;

 private:
  VkCommandBuffer commandBuffer_;
};

}  // namespace vksim
