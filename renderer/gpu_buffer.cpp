#include "renderer/gpu_buffer.h"

#include "renderer/vk_check.h"

namespace vksim {

GpuBuffer createGpuBuffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
  GpuBuffer result;
  result.size = size;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = size;
  bufferInfo.usage = usage;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;  // one queue family does everything
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &result.buffer));

  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(device.device, result.buffer, &requirements);
  const uint32_t memoryType = findMemoryType(device, requirements.memoryTypeBits, required, preferred);
  if (memoryType == UINT32_MAX) {
    vkDestroyBuffer(device.device, result.buffer, nullptr);
    throw EnvironmentError("The Vulkan device '" + device.info.name + "' has no memory type for a " +
                           std::to_string(size) + "-byte buffer with the properties it needs.");
  }
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex = memoryType;
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.memory));
  VK_CHECK(vkBindBufferMemory(device.device, result.buffer, result.memory, 0));
  if (device.memoryProperties.memoryTypes[memoryType].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    VK_CHECK(vkMapMemory(device.device, result.memory, 0, VK_WHOLE_SIZE, 0, &result.mapped));
  return result;
}

void barrierTransferToHost(VkCommandBuffer commandBuffer, VkBuffer buffer) {
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = buffer;
  barrier.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1,
                       &barrier, 0, nullptr);
}

void destroyGpuBuffer(const Device& device, GpuBuffer& buffer) {
  if (buffer.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device.device, buffer.buffer, nullptr);
  // Freeing mapped memory unmaps it implicitly (vkFreeMemory).
  if (buffer.memory != VK_NULL_HANDLE) vkFreeMemory(device.device, buffer.memory, nullptr);
  buffer = GpuBuffer{};
}

}  // namespace vksim
