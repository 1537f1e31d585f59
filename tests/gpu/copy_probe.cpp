// The copy path's candidates, measured on the machine (docs/benchmarks.md,
// "A fair copy baseline"): for every host-visible memory type Vulkan offers,
// how fast the simulation's output gets into it and from it into the
// device-local vertex buffer. A probe, not a test: it prints a table and
// exits 0; with no CUDA device or no paired Vulkan device it says so and
// exits 0 or 3.
//   copy_probe [GRID ...]       default: 2048 4096 (bytes = GRID^2 * 32)
//
// Per memory type, each the best of a few repetitions, GB/s:
//   memcpy 1t / Nt   host memcpy from pinned host memory (the copy path's
//                    hostVertices) into the mapped memory, 1 or N threads
//   D2H pageable     cudaMemcpy device -> the mapped pointer as CUDA sees it
//                    unregistered (staged through CUDA's own pinned buffers)
//   D2H registered   the same after cudaHostRegister of the mapped pointer
//                    (host memory types only): the copy engine writes the
//                    staging memory itself, no host memcpy at all
//   upload gfx/xfer  vkCmdCopyBuffer from that memory into a device-local
//                    buffer on the graphics queue / a transfer-only queue,
//                    host time around submit and fence wait
#include <volk.h>
#include <vulkan/vk_enum_string_helper.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/host_clock.h"
#include "renderer/vk_check.h"
#include "renderer/vulkan_context.h"
#include "sim/cuda/cuda_simulation.h"
#include "lab/cuda/cuda_transfer_probe.h"

namespace vksim {
namespace {

constexpr int kRepetitions = 4;
constexpr uint64_t kFenceTimeoutNs = 5'000'000'000;

struct ProbeDevice {
  VkDevice device = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory{};
  uint32_t graphicsFamily = UINT32_MAX, transferFamily = UINT32_MAX;  // transfer-only; UINT32_MAX if none
  VkQueue graphicsQueue = VK_NULL_HANDLE, transferQueue = VK_NULL_HANDLE;
  VkCommandPool graphicsPool = VK_NULL_HANDLE, transferPool = VK_NULL_HANDLE;
};

ProbeDevice createProbeDevice(VkPhysicalDevice physical) {
  ProbeDevice probe;
  vkGetPhysicalDeviceMemoryProperties(physical, &probe.memory);
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
  for (uint32_t f = 0; f < count; ++f) {
    const VkQueueFlags flags = families[f].queueFlags;
    if (probe.graphicsFamily == UINT32_MAX && (flags & VK_QUEUE_GRAPHICS_BIT)) probe.graphicsFamily = f;
    if (probe.transferFamily == UINT32_MAX && (flags & VK_QUEUE_TRANSFER_BIT) &&
        !(flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)))
      probe.transferFamily = f;
  }
  const float priority = 1.0f;
  std::vector<VkDeviceQueueCreateInfo> queues;
  for (uint32_t family : {probe.graphicsFamily, probe.transferFamily}) {
    if (family == UINT32_MAX) continue;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueFamilyIndex = family;
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    queues.push_back(queue);
  }
  VkDeviceCreateInfo createInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  createInfo.queueCreateInfoCount = uint32_t(queues.size());
  createInfo.pQueueCreateInfos = queues.data();
  VK_CHECK(vkCreateDevice(physical, &createInfo, nullptr, &probe.device));
  volkLoadDevice(probe.device);
  for (uint32_t family : {probe.graphicsFamily, probe.transferFamily}) {
    if (family == UINT32_MAX) continue;
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = family;
    VkCommandPool& pool = family == probe.graphicsFamily ? probe.graphicsPool : probe.transferPool;
    VK_CHECK(vkCreateCommandPool(probe.device, &poolInfo, nullptr, &pool));
    vkGetDeviceQueue(probe.device, family, 0,
                     family == probe.graphicsFamily ? &probe.graphicsQueue : &probe.transferQueue);
  }
  return probe;
}

void destroyProbeDevice(ProbeDevice& probe) {
  vkDeviceWaitIdle(probe.device);
  if (probe.transferPool) vkDestroyCommandPool(probe.device, probe.transferPool, nullptr);
  if (probe.graphicsPool) vkDestroyCommandPool(probe.device, probe.graphicsPool, nullptr);
  vkDestroyDevice(probe.device, nullptr);
}

struct ProbeBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
};

// A buffer bound to its own allocation of memory type `type`; nothing when
// the buffer cannot live in that type or the allocation fails (a small heap).
std::optional<ProbeBuffer> createProbeBuffer(const ProbeDevice& probe, uint64_t bytes, uint32_t type,
                                             std::string* why) {
  ProbeBuffer result;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = bytes;
  bufferInfo.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(probe.device, &bufferInfo, nullptr, &result.buffer));
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(probe.device, result.buffer, &requirements);
  VkResult allocated = VK_ERROR_UNKNOWN;
  if (requirements.memoryTypeBits & (1u << type)) {
    VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocateInfo.allocationSize = requirements.size;
    allocateInfo.memoryTypeIndex = type;
    allocated = vkAllocateMemory(probe.device, &allocateInfo, nullptr, &result.memory);
    *why = allocated == VK_SUCCESS ? "" : string_VkResult(allocated);
  } else {
    *why = "not for buffers";
  }
  if (allocated != VK_SUCCESS) {
    vkDestroyBuffer(probe.device, result.buffer, nullptr);
    return std::nullopt;
  }
  VK_CHECK(vkBindBufferMemory(probe.device, result.buffer, result.memory, 0));
  if (probe.memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    VK_CHECK(vkMapMemory(probe.device, result.memory, 0, VK_WHOLE_SIZE, 0, &result.mapped));
  return result;
}

void destroyProbeBuffer(const ProbeDevice& probe, ProbeBuffer& buffer) {
  if (buffer.mapped) vkUnmapMemory(probe.device, buffer.memory);
  vkDestroyBuffer(probe.device, buffer.buffer, nullptr);
  vkFreeMemory(probe.device, buffer.memory, nullptr);
}

template <typename Work>
double bestGBps(uint64_t bytes, Work&& work) {
  double bestNs = 0.0;
  for (int r = 0; r < kRepetitions; ++r) {
    const int64_t start = hostNowNs();
    if (!work()) return -1.0;
    const double ns = double(hostNowNs() - start);
    bestNs = r == 0 ? ns : std::min(bestNs, ns);
  }
  return double(bytes) / bestNs;
}

void parallelMemcpy(void* destination, const void* source, uint64_t bytes, unsigned threads) {
  std::vector<std::thread> workers;
  const uint64_t chunk = (bytes / threads + 4095) & ~uint64_t(4095);
  for (unsigned t = 0; t < threads; ++t) {
    const uint64_t begin = std::min(bytes, t * chunk), end = std::min(bytes, begin + chunk);
    if (begin < end)
      workers.emplace_back([=] {
        std::memcpy(static_cast<char*>(destination) + begin, static_cast<const char*>(source) + begin, end - begin);
      });
  }
  for (std::thread& worker : workers) worker.join();
}

// vkCmdCopyBuffer source -> destination on `queue`, host time around the
// submission and its fence. False on a timeout.
bool uploadOnce(const ProbeDevice& probe, VkQueue queue, VkCommandPool pool, VkBuffer source, VkBuffer destination,
                uint64_t bytes) {
  VkCommandBufferAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocateInfo.commandPool = pool;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(probe.device, &allocateInfo, &commandBuffer));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(commandBuffer, &begin));
  const VkBufferCopy region{0, 0, bytes};
  vkCmdCopyBuffer(commandBuffer, source, destination, 1, &region);
  VK_CHECK(vkEndCommandBuffer(commandBuffer));
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFence(probe.device, &fenceInfo, nullptr, &fence));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commandBuffer;
  VK_CHECK(vkQueueSubmit(queue, 1, &submit, fence));
  const bool done = vkWaitForFences(probe.device, 1, &fence, VK_TRUE, kFenceTimeoutNs) == VK_SUCCESS;
  if (done) {
    vkDestroyFence(probe.device, fence, nullptr);
    vkFreeCommandBuffers(probe.device, pool, 1, &commandBuffer);
  }
  return done;
}

std::string cell(double gbps) { return gbps < 0 ? "-" : std::to_string(int(gbps * 10 + 0.5) / 10) + "." + std::to_string(int(gbps * 10 + 0.5) % 10); }

void probeGrid(const ProbeDevice& probe, CudaTransferProbe& cuda, uint32_t grid, uint64_t bytes) {
  const unsigned threads = std::max(2u, std::min(8u, std::thread::hardware_concurrency()));
  std::printf("\ngrid %u: %llu bytes of vertices; GB/s, best of %d\n", grid, (unsigned long long)bytes, kRepetitions);
  std::printf("%-4s %-62s %9s %9s %9s %9s %11s %10s %10s  %s\n", "type", "flags", "memcpy 1t",
              ("memcpy " + std::to_string(threads) + "t").c_str(), "D2H page", "D2H reg", "(register)", "upload gfx",
              "upload xfr", "note");
  std::memset(cuda.pinnedHost(), 0x3C, bytes);
  const Result<double> pinnedD2H = cuda.deviceToHostGBps(cuda.pinnedHost(), kRepetitions);
  std::string why;
  std::optional<ProbeBuffer> deviceLocal;
  for (uint32_t type = 0; type < probe.memory.memoryTypeCount && !deviceLocal; ++type)
    if (probe.memory.memoryTypes[type].propertyFlags == VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
      deviceLocal = createProbeBuffer(probe, bytes, type, &why);
  for (uint32_t type = 0; type < probe.memory.memoryTypeCount; ++type) {
    const VkMemoryPropertyFlags flags = probe.memory.memoryTypes[type].propertyFlags;
    if (!(flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) continue;
    std::optional<ProbeBuffer> staging = createProbeBuffer(probe, bytes, type, &why);
    const std::string flagNames = string_VkMemoryPropertyFlags(flags) + " heap " +
                                  std::to_string(probe.memory.memoryTypes[type].heapIndex);
    if (!staging) {
      std::printf("%-4u %-62s %s\n", type, flagNames.c_str(), ("not allocated: " + why).c_str());
      continue;
    }
    const double one = bestGBps(bytes, [&] { std::memcpy(staging->mapped, cuda.pinnedHost(), bytes); return true; });
    const double many = bestGBps(bytes, [&] { parallelMemcpy(staging->mapped, cuda.pinnedHost(), bytes, threads); return true; });
    const Result<double> pageable = cuda.deviceToHostGBps(staging->mapped, kRepetitions);
    const bool deviceLocalType = flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    // Device-local memory is not registered: CUDA writing the GPU's own
    // memory through its BAR would be interop by another name, not a copy.
    Result<> registered = fail("n/a", kExitEnvironment);
    std::string registration = "n/a";
    if (!deviceLocalType) {
      registered = cuda.registerHost(staging->mapped, bytes, /*ioMemory=*/false);
      registration = registered ? "default" : registered.error().message;
    }
    double registeredGBps = -1.0;
    if (registered) {
      const Result<double> d2h = cuda.deviceToHostGBps(staging->mapped, kRepetitions);
      registeredGBps = d2h ? *d2h : -1.0;
      cuda.unregisterHost(staging->mapped);
    }
    double graphics = -1.0, transfer = -1.0;
    if (deviceLocal) {
      graphics = bestGBps(bytes, [&] {
        return uploadOnce(probe, probe.graphicsQueue, probe.graphicsPool, staging->buffer, deviceLocal->buffer, bytes);
      });
      if (probe.transferQueue)
        transfer = bestGBps(bytes, [&] {
          return uploadOnce(probe, probe.transferQueue, probe.transferPool, staging->buffer, deviceLocal->buffer,
                            bytes);
        });
    }
    std::printf("%-4u %-62s %9s %9s %9s %9s %11s %10s %10s  %s\n", type, flagNames.c_str(), cell(one).c_str(),
                cell(many).c_str(), cell(pageable ? *pageable : -1.0).c_str(), cell(registeredGBps).c_str(),
                registration.c_str(), cell(graphics).c_str(), cell(transfer).c_str(),
                deviceLocalType ? "device-local: the vertices could live here (no upload)" : "");
    destroyProbeBuffer(probe, *staging);
  }
  std::printf("D2H into cudaMallocHost memory (today's first half of the copy path): %s GB/s\n",
              cell(pinnedD2H ? *pinnedD2H : -1.0).c_str());
  if (deviceLocal) destroyProbeBuffer(probe, *deviceLocal);
}

}  // namespace
}  // namespace vksim

int main(int argc, char** argv) {
  using namespace vksim;
  std::vector<uint32_t> grids;
  for (int a = 1; a < argc; ++a) {
    const long grid = std::strtol(argv[a], nullptr, 10);
    if (grid < 2 || grid > 8192) {
      std::fprintf(stderr, "copy_probe: a grid is a number from 2 to 8192, not '%s'\n", argv[a]);
      return kExitUsage;
    }
    grids.push_back(uint32_t(grid));
  }
  if (grids.empty()) grids = {2048, 4096};
  const CudaDeviceList cuda = listCudaDevices();
  if (cuda.devices.empty()) {
    std::printf("copy_probe: no CUDA device (%s); nothing to measure\n", cuda.unavailableReason.c_str());
    return 0;
  }
  try {
    Instance instance = createInstance({});
    const std::vector<PhysicalDeviceInfo> devices = listPhysicalDevices(instance);
    const auto paired = std::find_if(devices.begin(), devices.end(), [&](const PhysicalDeviceInfo& device) {
      return device.deviceUuid == cuda.devices[0].uuid;
    });
    if (paired == devices.end()) {
      std::fprintf(stderr, "copy_probe: no Vulkan device has the UUID of CUDA device 0 (%s)\n",
                   cuda.devices[0].name.c_str());
      destroyInstance(instance);
      return kExitEnvironment;
    }
    ProbeDevice probe = createProbeDevice(paired->handle);
    std::printf("copy_probe on %s (%s); transfer-only queue family: %s; %u host threads\n", paired->name.c_str(),
                describeDriver(*paired).c_str(),
                probe.transferFamily == UINT32_MAX ? "none" : std::to_string(probe.transferFamily).c_str(),
                std::thread::hardware_concurrency());
    for (uint32_t h = 0; h < probe.memory.memoryHeapCount; ++h)
      std::printf("heap %u: %llu MiB %s\n", h, (unsigned long long)(probe.memory.memoryHeaps[h].size >> 20),
                  string_VkMemoryHeapFlags(probe.memory.memoryHeaps[h].flags).c_str());
    for (uint32_t grid : grids) {
      const uint64_t bytes = uint64_t(grid) * grid * 32;
      Result<std::unique_ptr<CudaTransferProbe>> transfer = CudaTransferProbe::create(0, bytes);
      if (!transfer) {
        std::fprintf(stderr, "copy_probe: %s\n", transfer.error().message.c_str());
        continue;
      }
      probeGrid(probe, **transfer, grid, bytes);
    }
    destroyProbeDevice(probe);
    destroyInstance(instance);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "copy_probe: %s\n", error.what());
    return kExitEnvironment;
  }
  return 0;
}
