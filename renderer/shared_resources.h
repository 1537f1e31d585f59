// The resources shared with the simulation: the vertex buffer (exportable as
// an opaque fd) and the three semaphores of the value schedule.
#pragma once
#include <volk.h>

#include <cstdint>

#include "renderer/vulkan_context.h"

namespace vksim {

// The shared vertex buffer's usage, the one spelling of it: the
// export-capability query (vkGetPhysicalDeviceExternalBufferProperties, in
// listPhysicalDevices) only answers for the usage it was asked about, so it
// must be asked with exactly the flags the buffer is created with.
inline constexpr VkBufferUsageFlags kSharedVertexBufferUsage =
    VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

enum class VertexMemory {
  deviceLocal,  // written by CUDA through the exported fd
  hostVisible,  // written by the CPU backend through `mapped` (coherent)
};

struct SharedVertexBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;            // bytes asked for (grid*grid*sizeof(Vertex))
  VkDeviceSize allocationSize = 0;  // VkMemoryRequirements::size: what an importer must use
  bool dedicated = false;           // VkMemoryDedicatedAllocateInfo used
  bool exportable = false;          // VkExportMemoryAllocateInfo with opaque fd
  void* mapped = nullptr;           // hostVisible only, mapped for the buffer's life
  uint32_t memoryTypeIndex = 0;     // a Vulkan importer of the fd must allocate from the same type
  bool imported = false;            // the memory was imported from another API's fd (importSharedVertexBuffer)
};

// A vertex buffer (usage vertex + transfer src/dst) in its own allocation.
// With exportable, the allocation is exportable as an opaque fd and dedicated
// (always: the simplest rule that is right on every driver). Throws
// EnvironmentError when no memory type fits, or when exportable is asked of a
// device created without exportMemory or that cannot export vertex buffers.
// The caller destroys it after the importer has released it and the device
// is idle.
// extraUsage (never with exportable: the export query asked about
// kSharedVertexBufferUsage alone) adds usages for a simulation in the render
// queue: STORAGE_BUFFER for compute shaders. deviceAddress adds
// SHADER_DEVICE_ADDRESS usage and allocates the memory with
// VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT (the device needs the
// bufferDeviceAddress feature), for kernels that take its address.
SharedVertexBuffer createSharedVertexBuffer(const Device& device, VkDeviceSize size, VertexMemory kind,
                                            bool exportable, VkBufferUsageFlags extraUsage = 0,
                                            bool deviceAddress = false);
void destroySharedVertexBuffer(const Device& device, SharedVertexBuffer& buffer);

// The reverse direction: a device-local vertex buffer of `size` bytes bound
// to memory that another API allocated and exported as an opaque fd of
// `allocationSize` bytes (the exporter's size, which must cover the buffer's
// VkMemoryRequirements::size). On success the fd belongs to Vulkan from then
// on and `fd` is set to -1 (never close it); on failure `fd` is left as it
// was, still the caller's to close, nothing is left created, and the
// exception is EnvironmentError (the device cannot import, or no memory type
// fits) or RuntimeFailure (the import call failed). Needs a device created
// with exportMemory (VK_KHR_external_memory_fd). The exporter's allocation
// must outlive the returned buffer's memory: destroySharedVertexBuffer first,
// after the device is idle, then the exporter's release.
SharedVertexBuffer importSharedVertexBuffer(const Device& device, VkDeviceSize size, int& fd,
                                            VkDeviceSize allocationSize);

// A new fd for the buffer's memory (vkGetMemoryFdKHR). The caller owns it.
int exportMemoryFd(const Device& device, const SharedVertexBuffer& buffer);

struct SyncSemaphores {
  VkSemaphore timeline = VK_NULL_HANDLE;    // initial value 0
  VkSemaphore renderDone = VK_NULL_HANDLE;  // binary: Vulkan signals, simulation waits
  VkSemaphore simDone = VK_NULL_HANDLE;     // binary: simulation signals, Vulkan waits
  bool exportable = false;
};

// With exportable, all three carry VkExportSemaphoreCreateInfo (opaque fd);
// that needs a device created with exportSemaphores whose timeline and binary
// semaphores are both exportable, else EnvironmentError.
SyncSemaphores createSyncSemaphores(const Device& device, bool exportable);
void destroySyncSemaphores(const Device& device, SyncSemaphores& semaphores);

// A new fd for the semaphore (vkGetSemaphoreFdKHR, opaque fd). Caller owns it.
int exportSemaphoreFd(const Device& device, VkSemaphore semaphore);

// vkGetSemaphoreCounterValue of the timeline semaphore.
uint64_t readTimelineCounter(const Device& device, const SyncSemaphores& semaphores);

}  // namespace vksim
