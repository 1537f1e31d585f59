// A plain buffer in its own allocation: staging for uploads and read-backs,
// the grid's index buffer, and test helpers. The shared vertex buffer is not
// one of these (shared_resources.h: it is exportable and dedicated).
#pragma once
#include <volk.h>

#include "renderer/vulkan_context.h"

namespace vksim {

struct GpuBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;   // bytes asked for
  void* mapped = nullptr;  // set when the memory is HOST_VISIBLE: mapped for the buffer's life
};

// A buffer of `size` bytes with `usage`, bound at offset 0 of a new allocation
// from a memory type with all of `required` (and `preferred` when one has it).
// Ask for HOST_COHERENT with HOST_VISIBLE to need no flush or invalidate.
// Throws EnvironmentError when no memory type fits.
GpuBuffer createGpuBuffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred = 0);
// After the device has finished every use of the buffer.
void destroyGpuBuffer(const Device& device, GpuBuffer& buffer);

// Records the barrier that makes transfer writes to `buffer` (a copy into
// it earlier in the command buffer) visible to host reads: a fence's signal
// covers device accesses only, so device writes reach the host through a
// barrier to the HOST stage plus the fence wait. For coherent memory no
// invalidate is needed after it.
void barrierTransferToHost(VkCommandBuffer commandBuffer, VkBuffer buffer);

}  // namespace vksim
