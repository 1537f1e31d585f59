// Where ImGui's Vulkan backend puts the overlay's vertex and index buffers.
// ImGui 1.86 (imgui_impl_vulkan.cpp) allocates them in the first memory type
// that is HOST_VISIBLE among those the buffer allows; on a discrete GPU that
// is system memory, which the draw then reads across PCIe. The backend gets
// vkGetBufferMemoryRequirements from this app's loader (overlay.cpp), so the
// loader hands it one whose memoryTypeBits keep only the device-local
// host-visible types when the buffer allows any: the backend's own search
// then lands in video memory, and nothing of ImGui's is changed.
#pragma once
#include <volk.h>

#include <cstdint>

namespace vksim {

// typeBits narrowed to the types that are both DEVICE_LOCAL and HOST_VISIBLE,
// or typeBits unchanged where none of them is.
uint32_t overlayBufferMemoryTypes(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits);

}  // namespace vksim
