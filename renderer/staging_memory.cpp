#include "renderer/staging_memory.h"

#include <fmt/format.h>
#include <vulkan/vk_enum_string_helper.h>

#include <algorithm>
#include <cstring>
#include <thread>

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

uint32_t chooseFastestThreadCount(const std::vector<uint32_t>& threadCounts,
                                  const std::function<std::optional<double>(uint32_t threads)>& measure) {
  uint32_t best = 1;
  std::optional<double> bestGbps;
  for (uint32_t threads : threadCounts) {
    const std::optional<double> gbps = measure(threads);
    if (gbps && (!bestGbps || *gbps > *bestGbps)) {
      best = threads;
      bestGbps = gbps;
    }
  }
  return best;
}

void copyIntoStaging(const StagingChoice& choice, void* destination, const void* source, size_t bytes) {
  const size_t threads = std::max<uint32_t>(1, choice.hostThreads);
  if (threads == 1) {
    std::memcpy(destination, source, bytes);
    return;
  }
  // Shares on 4 KiB boundaries, so that no two threads write one page.
  const size_t share = (bytes / threads + 4095) & ~size_t(4095);
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t) {
    const size_t begin = std::min(bytes, t * share), end = std::min(bytes, begin + share);
    if (begin < end)
      workers.emplace_back([=] {
        std::memcpy(static_cast<char*>(destination) + begin, static_cast<const char*>(source) + begin, end - begin);
      });
  }
  std::memcpy(destination, source, std::min(bytes, share));  // this thread's share
  for (std::thread& worker : workers) worker.join();
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
  // The fastest type whose heap takes the whole buffer (a small BAR heap may
  // take the sample and not the buffer): the measured types, fastest first.
  std::vector<MemoryTypeSpeed> ranked;
  for (const MemoryTypeSpeed& speed : result.measured)
    if (speed.gbps) ranked.push_back(speed);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const MemoryTypeSpeed& a, const MemoryTypeSpeed& b) { return *a.gbps > *b.gbps; });
  for (const MemoryTypeSpeed& candidate : ranked) {
    TypedBuffer staging = createBufferInType(device, size, candidate.type);
    if (staging.allocated) {
      result.memoryType = candidate.type;
      // Then the thread count, in the chosen memory: several threads help
      // where one core cannot keep the memory busy (write-combined or BAR
      // memory), and cost their start-up where the copy is small.
      std::vector<uint32_t> counts{1};
      for (uint32_t threads = 2; threads <= std::min(8u, std::thread::hardware_concurrency()); threads *= 2)
        counts.push_back(threads);
      std::optional<double> threadedGbps;
      result.hostThreads = chooseFastestThreadCount(counts, [&](uint32_t threads) -> std::optional<double> {
        StagingChoice trial = result;
        trial.hostThreads = threads;
        int64_t bestNs = 0;
        for (int r = 0; r < kSampleRepetitions; ++r) {
          const int64_t start = hostNowNs();
          copyIntoStaging(trial, staging.buffer.mapped, source.data(), size_t(sampleBytes));
          const int64_t ns = std::max<int64_t>(1, hostNowNs() - start);
          bestNs = r == 0 ? ns : std::min(bestNs, ns);
        }
        const double gbps = double(sampleBytes) / double(bestNs);
        if (threads > 1 && (!threadedGbps || gbps > *threadedGbps)) threadedGbps = gbps;
        return gbps;
      });
      if (result.hostThreads > 1) result.threadedGbps = threadedGbps;
      return staging.buffer;
    }
  }
  // Nothing measured, or no measured type took the whole buffer: the first
  // coherent host-visible type, as before.
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
    if (speed.type == choice.memoryType && choice.threadedGbps)
      text += fmt::format(", {} threads {:.1f} GB/s", choice.hostThreads, *choice.threadedGbps);
    list += fmt::format("{}{} {}", list.empty() ? "" : ", ", speed.type,
                        speed.gbps ? fmt::format("{:.1f}", *speed.gbps) : std::string("n/a"));
  }
  return text + "; measured: " + list;
}

}  // namespace vksim
