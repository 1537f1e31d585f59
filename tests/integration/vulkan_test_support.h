// Pieces shared by the in-process renderer tests (integration, on lavapipe)
// and the export test that needs NVIDIA's driver (gpu_tests): a validation
// message counter scoped to one test, a byte pattern, and a second Vulkan
// buffer over an exported allocation.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "renderer/shared_resources.h"
#include "renderer/vk_check.h"
#include "renderer/vulkan_context.h"

namespace vksim {

// Counts validation messages from the point it is made, so that one test's
// messages are not blamed on the next.
class ValidationWatch {
 public:
  ValidationWatch() : warnings_(validationCounts().warnings), errors_(validationCounts().errors) {}
  uint32_t newWarnings() const { return validationCounts().warnings - warnings_; }
  uint32_t newErrors() const { return validationCounts().errors - errors_; }

 private:
  uint32_t warnings_, errors_;
};

// `size` bytes of a linear congruential sequence started at `seed`: no two
// seeds give the same bytes, and no byte pattern repeats within a buffer.
inline std::vector<uint8_t> testPattern(size_t size, uint32_t seed) {
  std::vector<uint8_t> bytes(size);
  uint32_t state = seed;
  for (uint8_t& byte : bytes) {
    state = state * 1664525u + 1013904223u;
    byte = static_cast<uint8_t>(state >> 24);
  }
  return bytes;
}

struct ImportedBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

// A second buffer over the exported payload. Opaque fd imports must use the
// exporter's allocation size and memory type (vkGetMemoryFdPropertiesKHR is
// not allowed for opaque fds), and a dedicated export is imported dedicated.
// A successful import owns the fd; a failed one leaves it ours to close.
inline ImportedBuffer importBuffer(const Device& device, int fd, const SharedVertexBuffer& exported) {
  ImportedBuffer result;
  VkExternalMemoryBufferCreateInfo externalInfo{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  externalInfo.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.pNext = &externalInfo;
  bufferInfo.size = exported.size;
  bufferInfo.usage = kSharedVertexBufferUsage;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &result.buffer));
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(device.device, result.buffer, &requirements);
  EXPECT_TRUE(requirements.memoryTypeBits & (1u << exported.memoryTypeIndex));
  EXPECT_EQ(requirements.size, exported.allocationSize);

  VkMemoryDedicatedAllocateInfo dedicatedInfo{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicatedInfo.buffer = result.buffer;
  VkImportMemoryFdInfoKHR importInfo{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
  importInfo.pNext = exported.dedicated ? &dedicatedInfo : nullptr;
  importInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  importInfo.fd = fd;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.pNext = &importInfo;
  allocateInfo.allocationSize = exported.allocationSize;
  allocateInfo.memoryTypeIndex = exported.memoryTypeIndex;
  const VkResult imported = vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.memory);
  if (imported != VK_SUCCESS) {
    close(fd);
    vkDestroyBuffer(device.device, result.buffer, nullptr);
    failVulkanCall("vkAllocateMemory (import)", imported, __FILE__, __LINE__);
  }
  VK_CHECK(vkBindBufferMemory(device.device, result.buffer, result.memory, 0));
  return result;
}

inline void destroyImportedBuffer(const Device& device, ImportedBuffer& buffer) {
  vkDestroyBuffer(device.device, buffer.buffer, nullptr);
  vkFreeMemory(device.device, buffer.memory, nullptr);
  buffer = ImportedBuffer{};
}

}  // namespace vksim
