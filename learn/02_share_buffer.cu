// Step 2: one buffer, two APIs. Vulkan allocates it and exports its memory
// as an opaque fd; CUDA imports the fd, maps the buffer, and a kernel writes
// it; Vulkan copies it to a host-visible buffer and the CPU checks every value.
//
// New against step 1 (whose pairing is now earlier.h's pairDevices), in the
// functions below, which the later steps take from earlier.h:
//   - ask whether the memory can be exported for this use, and whether it must
//     be a dedicated allocation (M19, M5);
//   - create the buffer and its memory for export (M2, M18, M20);
//   - import with the ALLOCATION's size and the dedicated flag (M1, M4, M5);
//     the fd is CUDA's after a successful import, ours after a failed one (M7, M8);
//   - map the buffer (P1, P2), write it from a kernel;
//   - Vulkan acquires the buffer from VK_QUEUE_FAMILY_EXTERNAL before reading
//     it (M21);
//   - teardown: CUDA's mapping, then CUDA's import, then Vulkan's memory (P9, M14).
// Synchronisation here is the host's only: cudaDeviceSynchronize, then a
// fence. Step 3 replaces it with semaphores.
// Usage: learn_02_share_buffer [--break import-size | --break list]
#include <string>

#define LEARN_STEP 2
#include "common/earlier.h"

// An odd count: the buffer (4,000,012 bytes, 4 x a prime) is no multiple of 8,
// so its allocation is larger where the driver rounds up: M1 at work below.
constexpr uint32_t kValueCount = 1'000'003;

// The value index i holds after the kernel.
__host__ __device__ inline uint32_t expectedValue(uint32_t i) { return i * 2654435761u + 12345u; }

__global__ void writePatternKernel(uint32_t* values, uint32_t count) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] = expectedValue(i);
}

// >>> learn/common/earlier.h holds this for the later steps
// What the export made, and what CUDA's import must know of it.
struct ExportedBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;            // what the buffer was created with
  VkDeviceSize allocationSize = 0;  // VkMemoryRequirements::size: what CUDA imports (M1)
  bool dedicated = false;           // allocated with VkMemoryDedicatedAllocateInfo (M5)
};

// A device-local buffer of `size` bytes for `usage` whose memory can be
// exported as an opaque fd; dedicated when the driver asks for it. Exit 3
// when the device cannot export it.
inline ExportedBuffer createExportedBuffer(const Pair& pair, const Device& device, VkDeviceSize size,
                                           VkBufferUsageFlags usage) {
  // M19: may this buffer's memory be exported as an opaque fd, and must its
  // allocation be dedicated to it?
  const auto handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkPhysicalDeviceExternalBufferInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  query.usage = usage;
  query.handleType = handleType;
  VkExternalBufferProperties answer{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(pair.physical, &query, &answer);
  const VkExternalMemoryFeatureFlags features = answer.externalMemoryProperties.externalMemoryFeatures;
  if ((features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) == 0)
    exitWith(kExitMissing, "%s cannot export buffer memory as an opaque fd", pair.name.c_str());

  // M20: the buffer names the handle type; M2: its requirements are asked
  // for after that, since the handle type may change them.
  ExportedBuffer result;
  result.size = size;
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = handleType;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
  bufferInfo.size = size;
  bufferInfo.usage = usage;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &result.buffer));
  VkMemoryDedicatedRequirements dedicatedNeeds{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  VkMemoryRequirements2 requirements{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicatedNeeds};
  VkBufferMemoryRequirementsInfo2 which{VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
  which.buffer = result.buffer;
  vkGetBufferMemoryRequirements2(device.device, &which, &requirements);
  result.allocationSize = requirements.memoryRequirements.size;  // M1: what CUDA imports
  result.dedicated = (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0 ||
                     dedicatedNeeds.requiresDedicatedAllocation || dedicatedNeeds.prefersDedicatedAllocation;

  // M20: memory allocated for export (and dedicated to the buffer, M5, when asked).
  VkMemoryDedicatedAllocateInfo dedicatedInfo{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicatedInfo.buffer = result.buffer;
  VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                        result.dedicated ? &dedicatedInfo : nullptr};
  exportInfo.handleTypes = handleType;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exportInfo};
  allocateInfo.allocationSize = result.allocationSize;
  allocateInfo.memoryTypeIndex = findMemoryType(pair.physical, requirements.memoryRequirements.memoryTypeBits,
                                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.memory));
  VK_CHECK(vkBindBufferMemory(device.device, result.buffer, result.memory, 0));
  return result;
}

// A new opaque fd for `memory` (M9: each call makes a new one); the caller
// owns it until an import succeeds. vkGetMemoryFdKHR is a device
// extension's function: the loader exports no symbol for it.
inline int exportMemoryFd(const Device& device, VkDeviceMemory memory) {
  auto getMemoryFd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device.device, "vkGetMemoryFdKHR"));
  VkMemoryGetFdInfoKHR info{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  info.memory = memory;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  VK_CHECK(getMemoryFd(device.device, &info, &fd));
  return fd;
}

struct CudaBuffer {
  cudaExternalMemory_t memory = nullptr;
  void* pointer = nullptr;  // the whole buffer, mapped at offset 0 (P1)
};

// Imports an allocation through `fd`. M1: the whole ALLOCATION's size, not
// the buffer's; M4, M5: the dedicated flag exactly when the allocation is
// dedicated; G4: a zeroed descriptor. The fd is CUDA's after a successful
// import (M7: never touch or close it again), ours after a failed one (M8).
inline cudaExternalMemory_t importMemoryIntoCuda(int fd, VkDeviceSize allocationSize, bool dedicated) {
  cudaExternalMemoryHandleDesc handle{};
  handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
  handle.handle.fd = fd;
  handle.size = allocationSize;
  handle.flags = dedicated ? cudaExternalMemoryDedicated : 0;
  cudaExternalMemory_t memory = nullptr;
  const cudaError_t imported = cudaImportExternalMemory(&memory, &handle);
  if (imported != cudaSuccess) {
    close(fd);  // M8: a failed import leaves the fd ours
    exitWith(kExitCheckFailed, "%s:%d: cudaImportExternalMemory(...) failed: %s", __FILE__, __LINE__,
             cudaGetErrorName(imported));
  }
  return memory;
}

// Imports `buffer`'s memory through `fd` (importMemoryIntoCuda) and maps the
// buffer (P1, P2: it lies at offset 0 of the allocation and is `size` long).
inline CudaBuffer importIntoCuda(const ExportedBuffer& buffer, int fd) {
  CudaBuffer result;
  result.memory = importMemoryIntoCuda(fd, buffer.allocationSize, buffer.dedicated);
  cudaExternalMemoryBufferDesc mapping{};
  mapping.offset = 0;
  mapping.size = buffer.size;
  CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&result.pointer, result.memory, &mapping));
  return result;
}

// The mapping first, then the memory object (P9: destroying the memory
// object does not free its mappings); before Vulkan frees the allocation
// (M14), and with no CUDA work left that touches it (M15).
inline void destroyCudaBuffer(CudaBuffer& buffer) {
  CUDA_CHECK(cudaFree(buffer.pointer));
  CUDA_CHECK(cudaDestroyExternalMemory(buffer.memory));
  buffer = {};
}

inline void destroyExportedBuffer(const Device& device, ExportedBuffer& buffer) {
  vkDestroyBuffer(device.device, buffer.buffer, nullptr);
  vkFreeMemory(device.device, buffer.memory, nullptr);
  buffer = {};
}
// <<<

int main(int argc, char** argv) {
  gStepName = "learn 02";
  parseArguments(argc, argv, {{"import-size", "CUDA imports 1000003 bytes (the value count), not the allocation"}});
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);  // step 1; CUDA's current device is the pair's
  Device device = createDevice(pair, {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME});  // M18
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);

  // Vulkan allocates and exports; CUDA imports and maps. The fd is CUDA's
  // from here on (M7).
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  ExportedBuffer described = shared;  // what CUDA is told about it
  if (breaking("import-size")) described.allocationSize = kValueCount;  // BROKEN: a count, not bytes
  CudaBuffer cudaShared = importIntoCuda(described, exportMemoryFd(device, shared.memory));

  writePatternKernel<<<(kValueCount + 255) / 256, 256>>>(static_cast<uint32_t*>(cudaShared.pointer), kValueCount);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());  // the host's synchronisation: CUDA is done

  // M21: the buffer was written outside Vulkan; Vulkan's queue family takes it
  // over from VK_QUEUE_FAMILY_EXTERNAL before the copy reads it. The acquire
  // runs in no defined stage: first scope ALL_COMMANDS, and no access to make
  // available on this side (srcAccessMask 0).
  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);
  VkCommandBuffer commands = beginOneShot(oneShot);
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  acquire.srcAccessMask = 0;
  acquire.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = device.queueFamily;
  acquire.buffer = shared.buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                       1, &acquire, 0, nullptr);
  recordReadBack(commands, shared.buffer, host, size);  // copy, then TRANSFER_WRITE -> HOST_READ
  submitAndWait(device, oneShot);

  const auto* values = static_cast<const uint32_t*>(host.mapped);
  for (uint32_t i = 0; i < kValueCount; ++i)
    EXPECT_OR_EXIT(values[i] == expectedValue(i), "value %u is 0x%08x, the kernel wrote 0x%08x", i, values[i],
                   expectedValue(i));

  // Teardown: CUDA's mapping, then its import (P9), then Vulkan's buffer and
  // memory (M14); no CUDA work is left (M15, cudaDeviceSynchronize above).
  const VkDeviceSize allocationSize = shared.allocationSize;
  const bool dedicated = shared.dedicated;
  destroyCudaBuffer(cudaShared);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  destroyExportedBuffer(device, shared);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(2, std::to_string(kValueCount) + " values written by CUDA read back by Vulkan; imported " +
                           std::to_string(allocationSize) + " bytes (allocation) for a " + std::to_string(size) +
                           "-byte buffer, " + (dedicated ? "dedicated" : "not dedicated"));
}
