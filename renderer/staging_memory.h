// The copy path's staging buffer in the host-visible memory type that this
// machine's host writes fastest: measured when the buffer is made, not
// assumed from the vendor or from the flags (write-combined, cached and
// device-local BAR memory rank differently on different machines;
// docs/benchmarks.md, "A fair copy baseline").
#pragma once
#include <volk.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "renderer/gpu_buffer.h"
#include "renderer/vulkan_context.h"

namespace vksim {

// One candidate's measured host write speed; gigabytes (1e9 bytes) a second.
struct MemoryTypeSpeed {
  uint32_t type = 0;
  VkMemoryPropertyFlags flags = 0;
  std::optional<double> gbps;  // nothing: could not be measured (allocation failed)
};

// The memory type of `typeBits` that has all of `required` and the highest
// measure(type); the lowest index among equals. measure is called once for
// each such type and for no other; a type it gives nothing for is not chosen.
// UINT32_MAX when no type qualifies or none could be measured. `measured`,
// when given, receives every call's answer in type order.
uint32_t chooseFastestMemoryType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                                 VkMemoryPropertyFlags required,
                                 const std::function<std::optional<double>(uint32_t type)>& measure,
                                 std::vector<MemoryTypeSpeed>* measured = nullptr);

// Among `threadCounts` (each >= 1), the one with the highest
// measure(count); the first among equals; 1 when none could be measured.
uint32_t chooseFastestThreadCount(const std::vector<uint32_t>& threadCounts,
                                  const std::function<std::optional<double>(uint32_t threads)>& measure);

struct StagingChoice {
  uint32_t memoryType = UINT32_MAX;
  std::vector<MemoryTypeSpeed> measured;
  // Host threads for the frame's copy into the staging memory: the count
  // whose sample copy (thread start-up included) ran fastest.
  uint32_t hostThreads = 1;
  std::optional<double> threadedGbps;  // that count's speed, when it is above 1
};

// A TRANSFER_SRC buffer of `size` bytes, mapped for its life, in the
// HOST_VISIBLE | HOST_COHERENT type (coherent: the frame's memcpy needs no
// flush) into which a host memcpy of min(size, 16 MiB) ran fastest, best of
// three, each candidate measured in an allocation of its own that is freed
// again. When nothing could be measured, the first such type, as
// createGpuBuffer would choose. `choice` receives what was measured. Throws
// EnvironmentError when no host-visible coherent type fits a buffer.
GpuBuffer createMeasuredStagingBuffer(const Device& device, VkDeviceSize size, StagingChoice* choice);

// Copies `bytes` from `source` into `destination` (the staging buffer's
// mapping) with choice.hostThreads threads, each a contiguous share; returns
// when all are done.
void copyIntoStaging(const StagingChoice& choice, void* destination, const void* source, size_t bytes);

// "type 2 (HOST_VISIBLE|HOST_COHERENT|HOST_CACHED) 21.3 GB/s, 4 threads 40.2 GB/s; measured: 1 6.2, 2 21.3, 4 9.8":
// the choice and every candidate, for reports.
std::string describeStagingChoice(const Device& device, const StagingChoice& choice);

}  // namespace vksim
