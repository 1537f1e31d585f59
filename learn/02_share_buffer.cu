// Step 2: one buffer, two APIs. Vulkan allocates it and exports its memory
// as an opaque fd; CUDA imports the fd, maps the buffer, and a kernel writes
// it; Vulkan copies it to a host-visible buffer and the CPU checks every value.
//
// New against step 1 (whose pairing is now earlier.h's pairDevices):
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

// An odd count: the buffer (4,000,012 bytes) is no multiple of any alignment,
// so its allocation is larger where the driver rounds up: M1 at work below.
constexpr uint32_t kValueCount = 1'000'003;

// The value index i holds after the kernel.
__host__ __device__ inline uint32_t expectedValue(uint32_t i) { return i * 2654435761u + 12345u; }

__global__ void writePatternKernel(uint32_t* values, uint32_t count) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] = expectedValue(i);
}

// What the export made, and what CUDA's import must know of it.
struct Exported {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize allocationSize = 0;  // VkMemoryRequirements::size (M1)
  bool dedicated = false;           // allocated with VkMemoryDedicatedAllocateInfo (M5)
  int fd = -1;                      // ours until CUDA's import succeeds (M7, M8)
};

// A device-local buffer of `size` bytes whose memory is exported as an
// opaque fd; exit 3 when the device cannot export it.
Exported exportBuffer(const Pair& pair, const Device& device, VkDeviceSize size) {
  // M19: may this buffer's memory be exported as an opaque fd, and must its
  // allocation be dedicated to it?
  const VkBufferUsageFlags usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
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
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = handleType;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
  bufferInfo.size = size;
  bufferInfo.usage = usage;
  VkBuffer shared = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &shared));
  VkMemoryDedicatedRequirements dedicatedNeeds{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  VkMemoryRequirements2 requirements{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicatedNeeds};
  VkBufferMemoryRequirementsInfo2 which{VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2};
  which.buffer = shared;
  vkGetBufferMemoryRequirements2(device.device, &which, &requirements);
  const VkDeviceSize allocationSize = requirements.memoryRequirements.size;  // M1: what CUDA imports
  const bool dedicated = (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0 ||
                         dedicatedNeeds.requiresDedicatedAllocation || dedicatedNeeds.prefersDedicatedAllocation;

  VkMemoryDedicatedAllocateInfo dedicatedInfo{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicatedInfo.buffer = shared;
  VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                        dedicated ? &dedicatedInfo : nullptr};
  exportInfo.handleTypes = handleType;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exportInfo};
  allocateInfo.allocationSize = allocationSize;
  allocateInfo.memoryTypeIndex = findMemoryType(pair.physical, requirements.memoryRequirements.memoryTypeBits,
                                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, &memory));
  VK_CHECK(vkBindBufferMemory(device.device, shared, memory, 0));

  // The fd (M9: each call makes a new one). vkGetMemoryFdKHR is a device
  // extension's function: the loader exports no symbol for it.
  auto getMemoryFd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device.device, "vkGetMemoryFdKHR"));
  VkMemoryGetFdInfoKHR fdInfo{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  fdInfo.memory = memory;
  fdInfo.handleType = handleType;
  int fd = -1;
  VK_CHECK(getMemoryFd(device.device, &fdInfo, &fd));
  return {shared, memory, allocationSize, dedicated, fd};
}

int main(int argc, char** argv) {
  gStepName = "learn 02";
  parseArguments(argc, argv,
                 {{"import-size", "the import names the value count (1000003) as its size, not the allocation's bytes"}});
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);  // step 1; CUDA's current device is the pair's
  Device device = createDevice(pair, {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME});  // M18
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);

  const Exported exported = exportBuffer(pair, device, size);
  const VkBuffer shared = exported.buffer;
  const VkDeviceSize allocationSize = exported.allocationSize;
  const bool dedicated = exported.dedicated;
  int fd = exported.fd;

  // M1: the whole allocation's size, not the buffer's. M4/M5: the dedicated
  // flag exactly when the allocation was dedicated. G4: zeroed descriptors.
  cudaExternalMemoryHandleDesc handle{};
  handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
  handle.handle.fd = fd;
  handle.size = breaking("import-size") ? kValueCount : allocationSize;  // BROKEN: a count, not bytes
  handle.flags = dedicated ? cudaExternalMemoryDedicated : 0;
  cudaExternalMemory_t cudaMemory = nullptr;
  const cudaError_t imported = cudaImportExternalMemory(&cudaMemory, &handle);
  if (imported != cudaSuccess) close(fd);  // M8: a failed import leaves the fd with us
  CUDA_CHECK(imported);
  fd = -1;  // M7: the fd is the CUDA driver's now; never touch (or close) it again

  // P1, P2: the buffer lies at offset 0 of the allocation and is `size` long.
  cudaExternalMemoryBufferDesc mapping{};
  mapping.offset = 0;
  mapping.size = size;
  void* mapped = nullptr;
  CUDA_CHECK(cudaExternalMemoryGetMappedBuffer(&mapped, cudaMemory, &mapping));

  writePatternKernel<<<(kValueCount + 255) / 256, 256>>>(static_cast<uint32_t*>(mapped), kValueCount);
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
  acquire.buffer = shared;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                       1, &acquire, 0, nullptr);
  recordReadBack(commands, shared, host, size);  // copy, then TRANSFER_WRITE -> HOST_READ
  submitAndWait(device, oneShot);

  const auto* values = static_cast<const uint32_t*>(host.mapped);
  for (uint32_t i = 0; i < kValueCount; ++i)
    EXPECT_OR_EXIT(values[i] == expectedValue(i), "value %u is 0x%08x, the kernel wrote 0x%08x", i, values[i],
                   expectedValue(i));

  // Teardown: CUDA's mapping, then its import (P9), then Vulkan's buffer and
  // memory (M14); no CUDA work is left (M15, cudaDeviceSynchronize above).
  CUDA_CHECK(cudaFree(mapped));
  CUDA_CHECK(cudaDestroyExternalMemory(cudaMemory));
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  vkDestroyBuffer(device.device, shared, nullptr);
  vkFreeMemory(device.device, exported.memory, nullptr);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(2, std::to_string(kValueCount) + " values written by CUDA read back by Vulkan; imported " +
                           std::to_string(allocationSize) + " bytes (allocation) for a " + std::to_string(size) +
                           "-byte buffer, " + (dedicated ? "dedicated" : "not dedicated"));
}
