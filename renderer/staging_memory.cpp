#include "renderer/staging_memory.h"

#include <fmt/format.h>
#include <vulkan/vk_enum_string_helper.h>

#include <algorithm>
#include <cstring>

#include "base/host_clock.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

constexpr VkMemoryPropertyFlags kStagingFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
// Large enough to run past the CPU's caches and a write-combining buffer's
// start-up, small enough that measuring every candidate costs milliseconds.
constexpr VkDeviceSize kSampleBytes = 16ull << 20;
constexpr int kSampleRepetitions = 3;

struct TypedBuffer {
  GpuBuffer buffer;
  bool allocated = false;
};

// A buffer bound to new memory of type `type`, mapped. allocated = false
// when the allocation failed (a small heap): not an error here.
TypedBuffer createBufferInType(const Device& device, VkDeviceSize size, uint32_t type) {
  TypedBuffer result;
  result.buffer.size = size;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = size;
  bufferInfo.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &result.buffer.buffer));
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(device.device, result.buffer.buffer, &requirements);
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex = type;
  if (vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.buffer.memory) != VK_SUCCESS) {
    vkDestroyBuffer(device.device, result.buffer.buffer, nullptr);
    result.buffer = GpuBuffer{};
    return result;
  }
  VK_CHECK(vkBindBufferMemory(device.device, result.buffer.buffer, result.buffer.memory, 0));
  VK_CHECK(vkMapMemory(device.device, result.buffer.memory, 0, VK_WHOLE_SIZE, 0, &result.buffer.mapped));
  result.allocated = true;
  return result;
}

uint32_t bufferTypeBits(const Device& device, VkDeviceSize size) {
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = size;
  bufferInfo.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &buffer));
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(device.device, buffer, &requirements);
  vkDestroyBuffer(device.device, buffer, nullptr);
  return requirements.memoryTypeBits;
}

}  // namespace

uint32_t chooseFastestMemoryType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                                 VkMemoryPropertyFlags required,
                                 const std::function<std::optional<double>(uint32_t type)>& measure,
                                 std::vector<MemoryTypeSpeed>* measured) {
  uint32_t best = UINT32_MAX;
  double bestGbps = 0.0;
  for (uint32_t type = 0; type < memory.memoryTypeCount; ++type) {
    const VkMemoryPropertyFlags flags = memory.memoryTypes[type].propertyFlags;
    if (!(typeBits & (1u << type)) || (flags & required) != required) continue;
    const std::optional<double> gbps = measure(type);
    if (measured) measured->push_back({type, flags, gbps});
    if (gbps && (best == UINT32_MAX || *gbps > bestGbps)) {
      best = type;
      bestGbps = *gbps;
    }
  }
  return best;
}

GpuBuffer createMeasuredStagingBuffer(const Device& device, VkDeviceSize size, StagingChoice* choice) {
  const VkDeviceSize sampleBytes = std::min(size, kSampleBytes);
  std::vector<unsigned char> source(sampleBytes, 0x5A);
  const auto measure = [&](uint32_t type) -> std::optional<double> {
    TypedBuffer sample = createBufferInType(device, sampleBytes, type);
    if (!sample.allocated) return std::nullopt;
    int64_t bestNs = 0;
    for (int r = 0; r < kSampleRepetitions; ++r) {
      const int64_t start = hostNowNs();
      std::memcpy(sample.buffer.mapped, source.data(), sampleBytes);
      const int64_t ns = std::max<int64_t>(1, hostNowNs() - start);
      bestNs = r == 0 ? ns : std::min(bestNs, ns);
    }
    destroyGpuBuffer(device, sample.buffer);
    return double(sampleBytes) / double(bestNs);
  };
  StagingChoice local;
  StagingChoice& result = choice ? *choice : local;
  result = StagingChoice{};
  result.memoryType = chooseFastestMemoryType(device.memoryProperties, bufferTypeBits(device, size), kStagingFlags,
                                              measure, &result.measured);
  if (result.memoryType != UINT32_MAX) {
    TypedBuffer staging = createBufferInType(device, size, result.memoryType);
    if (staging.allocated) return staging.buffer;
  }
  // Nothing measured, or the full size did not fit the fastest type's heap:
  // the first coherent host-visible type, as before.
  GpuBuffer fallback = createGpuBuffer(device, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, kStagingFlags);
  result.memoryType = findMemoryType(device, bufferTypeBits(device, size), kStagingFlags);
  return fallback;
}

std::string describeStagingChoice(const Device& device, const StagingChoice& choice) {
  if (choice.memoryType == UINT32_MAX) return "none";
  std::string text = fmt::format(
      "type {} ({})", choice.memoryType,
      string_VkMemoryPropertyFlags(device.memoryProperties.memoryTypes[choice.memoryType].propertyFlags));
  std::string list;
  for (const MemoryTypeSpeed& speed : choice.measured) {
    if (speed.type == choice.memoryType && speed.gbps) text += fmt::format(" {:.1f} GB/s", *speed.gbps);
    list += fmt::format("{}{} {}", list.empty() ? "" : ", ", speed.type,
                        speed.gbps ? fmt::format("{:.1f}", *speed.gbps) : std::string("n/a"));
  }
  return text + "; measured: " + list;
}

}  // namespace vksim
