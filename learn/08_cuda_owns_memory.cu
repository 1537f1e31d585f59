// Step 8: the other direction. CUDA allocates the memory and exports it as
// a POSIX fd; Vulkan imports the fd into a buffer. Every round a kernel
// writes the buffer through CUDA's own mapping and Vulkan copies it out for
// the CPU to check, with step 5's timeline schedule and ownership transfers.
//
// New against the steps before (the semaphore is still Vulkan's):
//   - driver API calls from a runtime-only program: every cu* function comes
//     from cudaGetDriverEntryPointByVersion, asked for at the version of its
//     typedef (PFN_cuMemCreate_v10020: 10020), and the status is checked, as
//     a missing symbol still returns cudaSuccess with a null pointer (E2-E5,
//     E7). The program links no libcuda;
//   - the allocation asks for CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR when it
//     is made, its size is rounded up to the allocation granularity, and the
//     mapping is usable only after cuMemSetAccess (E8);
//   - cuMemExportToShareableHandle gives a new fd, ours until Vulkan imports
//     it with VkImportMemoryFdInfoKHR into memory of the ALLOCATION's size;
//     the memory type comes from the buffer's requirements (E9, M7, M8);
//   - teardown: Vulkan's import first, then CUDA unmaps, frees the address
//     range and releases the allocation (E10).
// Unchanged from step 5: the +2 timeline schedule, the acquire at
// ALL_COMMANDS and the release after the copy (M21).
// VK_KHR_external_memory_fd imports fds from other APIs too, but an opaque
// fd only from the same driver on the same device (equal driverUUID and
// deviceUUID: D4), and CUDA reports no driver UUID, so the program cannot
// check that a CUDA-made fd qualifies. This direction works because
// NVIDIA's CUDA and Vulkan drivers share one kernel driver, and NVIDIA
// documents and ships it (E9; its CUDA sample simpleVulkanMMAP): a promise
// of one vendor, not of Vulkan.
// Usage: learn_08_cuda_owns_memory [--break granularity | --break list]
#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

#define LEARN_STEP 8
#include "common/earlier.h"

constexpr uint32_t kValueCount = 1u << 18;  // 1 MiB of uint32_t; the allocation is rounded up
constexpr uint32_t kRounds = 16;

__host__ __device__ inline uint32_t expectedValue(uint32_t round, uint32_t i) {
  return (round + 1) * 2654435761u ^ i * 40503u;
}

__global__ void writeRoundKernel(uint32_t* values, uint32_t count, uint32_t round) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] = expectedValue(round, i);
}

// The driver functions, each typed by the ABI version its typedef names (E3).
struct Driver {
  PFN_cuGetErrorName_v6000 getErrorName;
  PFN_cuDeviceGet_v2000 deviceGet;
  PFN_cuDeviceGetAttribute_v2000 deviceGetAttribute;
  PFN_cuMemGetAllocationGranularity_v10020 memGetAllocationGranularity;
  PFN_cuMemCreate_v10020 memCreate;
  PFN_cuMemExportToShareableHandle_v10020 memExportToShareableHandle;
  PFN_cuMemAddressReserve_v10020 memAddressReserve;
  PFN_cuMemMap_v10020 memMap;
  PFN_cuMemSetAccess_v10020 memSetAccess;
  PFN_cuMemUnmap_v10020 memUnmap;
  PFN_cuMemAddressFree_v10020 memAddressFree;
  PFN_cuMemRelease_v10020 memRelease;
};

// E2, E4: the call succeeds even when the symbol is missing; the status says.
template <typename Function>
void loadEntryPoint(const char* symbol, unsigned int version, Function* function) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &address, version, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || address == nullptr)
    exitWith(
        kExitMissing, "the CUDA driver has no %s at version %u (%s)", symbol, version,
        status == cudaDriverEntryPointVersionNotSufficent ? "version not sufficient" : "symbol not found");
  *function = reinterpret_cast<Function>(address);
}

Driver gDriver{};

// CUDA_CHECK for driver calls: the call, where, and the CUresult's name; exit 4.
#define CU_CHECK(call)                                                                            \
  do {                                                                                            \
    const CUresult cuCheckResult = (call);                                                        \
    const char* cuCheckName = "unknown CUresult";                                                 \
    if (cuCheckResult != CUDA_SUCCESS) gDriver.getErrorName(cuCheckResult, &cuCheckName);         \
    if (cuCheckResult != CUDA_SUCCESS)                                                            \
      exitWith(kExitCheckFailed, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call, cuCheckName); \
  } while (0)

// 1. The driver functions (E2, E3).
void loadDriver() {
  loadEntryPoint("cuGetErrorName", 6000, &gDriver.getErrorName);
  loadEntryPoint("cuDeviceGet", 2000, &gDriver.deviceGet);
  loadEntryPoint("cuDeviceGetAttribute", 2000, &gDriver.deviceGetAttribute);
  loadEntryPoint("cuMemGetAllocationGranularity", 10020, &gDriver.memGetAllocationGranularity);
  loadEntryPoint("cuMemCreate", 10020, &gDriver.memCreate);
  loadEntryPoint("cuMemExportToShareableHandle", 10020, &gDriver.memExportToShareableHandle);
  loadEntryPoint("cuMemAddressReserve", 10020, &gDriver.memAddressReserve);
  loadEntryPoint("cuMemMap", 10020, &gDriver.memMap);
  loadEntryPoint("cuMemSetAccess", 10020, &gDriver.memSetAccess);
  loadEntryPoint("cuMemUnmap", 10020, &gDriver.memUnmap);
  loadEntryPoint("cuMemAddressFree", 10020, &gDriver.memAddressFree);
  loadEntryPoint("cuMemRelease", 10020, &gDriver.memRelease);
}

// CUDA's allocation and its mapping into CUDA's address space.
struct CudaAllocation {
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr address = 0;  // where kernels see it
  size_t size = 0;          // a multiple of the granularity
  size_t granularity = 0;
};

// 2. CUDA allocates (E8): device memory that can be exported as a POSIX fd
//    (asked for now: an allocation made without it cannot be exported
//    later), its size a multiple of the granularity; a range of addresses,
//    the allocation mapped into it, and read/write access for the device.
//    Exit 3 when the device cannot do this.
CudaAllocation allocateExportable(int cudaDevice, size_t bytes) {
  CUDA_CHECK(cudaFree(nullptr));  // the runtime's primary context, current: the mapping lives in it
  CUdevice cuDevice = 0;
  CU_CHECK(gDriver.deviceGet(&cuDevice, cudaDevice));
  int virtualMemory = 0, fdExport = 0;
  CU_CHECK(gDriver.deviceGetAttribute(&virtualMemory, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                                      cuDevice));
  CU_CHECK(gDriver.deviceGetAttribute(
      &fdExport, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, cuDevice));
  if (!virtualMemory || !fdExport)
    exitWith(kExitMissing, "CUDA device %d cannot %s", cudaDevice,
             !virtualMemory ? "allocate with cuMemCreate" : "export a POSIX fd");

  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location = {CU_MEM_LOCATION_TYPE_DEVICE, int(cuDevice)};
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CudaAllocation result;
  CU_CHECK(gDriver.memGetAllocationGranularity(&result.granularity, &properties,
                                               CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  result.size = (bytes + result.granularity - 1) / result.granularity * result.granularity;
  if (breaking("granularity")) result.size = bytes;  // BROKEN (E8): not a multiple of the granularity
  CU_CHECK(gDriver.memCreate(&result.handle, result.size, &properties, 0));
  CU_CHECK(gDriver.memAddressReserve(&result.address, result.size, result.granularity, 0, 0));
  CU_CHECK(gDriver.memMap(result.address, result.size, 0, result.handle, 0));
  const CUmemAccessDesc access{properties.location, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  CU_CHECK(gDriver.memSetAccess(result.address, result.size, &access, 1));
  return result;
}

// CUDA's side of the teardown, after Vulkan freed its import (E10): unmap
// (no kernel touches the range any more), free the address range (only an
// unmapped range may be freed), release the allocation's handle.
void destroyCudaAllocation(CudaAllocation& allocation) {
  CU_CHECK(gDriver.memUnmap(allocation.address, allocation.size));
  CU_CHECK(gDriver.memAddressFree(allocation.address, allocation.size));
  CU_CHECK(gDriver.memRelease(allocation.handle));
  allocation = {};
}

struct ImportedBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

// 3. Vulkan imports `fd` (E9) as the memory of a `size`-byte buffer: the
//    buffer names the handle type, the memory has the allocation's size
//    (`allocationSize`), a device-local type the buffer accepts (an opaque fd
//    may not be asked vkGetMemoryFdPropertiesKHR), and is dedicated only
//    where the driver insists. The fd is Vulkan's once the import succeeded
//    (M7), closed here if it failed (M8).
ImportedBuffer importIntoVulkan(const Pair& pair, const Device& device, int fd, VkDeviceSize size,
                                VkDeviceSize allocationSize) {
  VkPhysicalDeviceExternalBufferInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  query.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  query.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalBufferProperties answer{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(pair.physical, &query, &answer);
  const VkExternalMemoryFeatureFlags features = answer.externalMemoryProperties.externalMemoryFeatures;
  if ((features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) == 0)
    exitWith(kExitMissing, "%s cannot import buffer memory from an opaque fd", pair.name.c_str());
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &external};
  bufferInfo.size = size;
  bufferInfo.usage = query.usage;
  ImportedBuffer result;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &result.buffer));
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device.device, result.buffer, &requirements);
  EXPECT_OR_EXIT(requirements.size <= allocationSize, "the buffer needs %llu bytes, CUDA allocated %llu",
                 static_cast<unsigned long long>(requirements.size),
                 static_cast<unsigned long long>(allocationSize));
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.buffer = result.buffer;
  const bool dedicatedOnly = (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0;
  VkImportMemoryFdInfoKHR importInfo{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                     dedicatedOnly ? &dedicated : nullptr};
  importInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  importInfo.fd = fd;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &importInfo};
  allocateInfo.allocationSize = allocationSize;  // the allocation's, not the buffer's
  allocateInfo.memoryTypeIndex =
      findMemoryType(pair.physical, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  const VkResult imported = vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.memory);
  if (imported != VK_SUCCESS) close(fd);  // a failed import leaves the fd with us (M8)
  VK_CHECK(imported);
  // Vulkan's now (VkImportMemoryFdInfoKHR): the caller must not use or close it again (M7).
  VK_CHECK(vkBindBufferMemory(device.device, result.buffer, result.memory, 0));
  return result;
}

// The objects every round uses (created in main; destroyed at its end).
struct Rig {
  Device device;
  ImportedBuffer shared;   // Vulkan's import of CUDA's allocation
  CUdeviceptr cudaShared;  // CUDA's own mapping of it
  HostBuffer host;
  OneShot oneShot;
  OneShot release;
  CudaTimeline timeline;  // the semaphore, CUDA's import, CUDA's stream (learn/common/earlier.h)
};

// Round k: render releases (k > 0) and signals 2k+1; CUDA waits for 2k+1,
// writes, signals 2k+2; the read-back waits for 2k+2 at ALL_COMMANDS,
// acquires and copies; the CPU checks. Returns the values checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const Device& device = rig.device;
  const ImportedBuffer& shared = rig.shared;
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);
  uint32_t checked = 0;
  const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
  const uint64_t cudaDone = 2 * uint64_t{round} + 2;

  // 4. Vulkan releases what round k-1's copy read (k > 0) and signals 2k+1.
  if (round > 0)
    recordBufferRelease(beginOneShot(rig.release), shared.buffer, device.queueFamily,
                        VK_PIPELINE_STAGE_TRANSFER_BIT);
  submitSignal(device, round > 0 ? &rig.release : nullptr, rig.timeline.timeline, &renderDone);

  // 5. CUDA waits for 2k+1, writes through its own mapping, signals 2k+2 (S5, S2).
  cudaWaitTimeline(rig.timeline, renderDone);
  writeRoundKernel<<<(kValueCount + 255) / 256, 256, 0, rig.timeline.stream>>>(
      reinterpret_cast<uint32_t*>(rig.cudaShared), kValueCount, round);  // CUDA's own mapping
  CUDA_CHECK(cudaGetLastError());
  cudaSignalTimeline(rig.timeline, cudaDone);

  // 6. Vulkan waits for 2k+2 at ALL_COMMANDS, acquires (M21), copies out.
  VkCommandBuffer commands = beginOneShot(rig.oneShot);
  recordBufferAcquire(commands, shared.buffer, device.queueFamily, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT);
  recordReadBack(commands, shared.buffer, rig.host, size);
  submitWaitingFor(device, rig.oneShot, rig.timeline.timeline, &cudaDone);  // the host waits, to check

  const auto* values = static_cast<const uint32_t*>(rig.host.mapped);
  for (uint32_t i = 0; i < kValueCount; ++i, ++checked)
    EXPECT_OR_EXIT(values[i] == expectedValue(round, i), "round %u: value %u is 0x%08x, expected 0x%08x",
                   round, i, values[i], expectedValue(round, i));
  return checked;
}

int main(int argc, char** argv) {
  gStepName = "learn 08";
  parseArguments(argc, argv, {{"granularity", "cuMemCreate gets the buffer's size, not whole granules"}});
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);  // CUDA's current device is the pair's
  Device device = createTimelineDevice(pair);        // both fd extensions, timeline semaphores (M18)
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);
  loadDriver();
  CudaAllocation allocation = allocateExportable(pair.cudaDevice, size);
  int fd = -1;  // a new fd, ours until imported; it refers to the allocation (closing it frees nothing)
  CU_CHECK(gDriver.memExportToShareableHandle(&fd, allocation.handle,
                                              CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  ImportedBuffer shared = importIntoVulkan(pair, device, fd, size, allocation.size);
  fd = -1;  // Vulkan's (M7)
  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);
  OneShot release = createOneShot(device);  // its buffer holds the release; its fence stays unused
  // The timeline, CUDA's import and stream; the kernel loaded before any wait (lazy loading: step 3).
  CudaTimeline timeline = createCudaTimeline(pair, device, reinterpret_cast<const void*>(writeRoundKernel));

  const Rig rig{device, shared, allocation.address, host, oneShot, release, timeline};
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) checked += runRound(rig, round);

  // Teardown. Nothing may still run on either side (S17, S18). The importer
  // lets go first (E10): Vulkan frees its import, dropping its reference to
  // CUDA's allocation; then CUDA undoes its own steps in reverse. cuMemRelease
  // frees the memory only once no mapping and no handle (the fd, Vulkan's
  // import) refers to it, so the other order would not pull the memory from
  // under Vulkan; this one leaves nothing waiting on anything.
  destroyCudaSideOfTimeline(timeline);
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroyBuffer(device.device, shared.buffer, nullptr);
  vkFreeMemory(device.device, shared.memory, nullptr);
  const size_t allocationSize = allocation.size, granularity = allocation.granularity;
  destroyCudaAllocation(allocation);
  vkDestroySemaphore(device.device, timeline.timeline, nullptr);
  destroyOneShot(device, release);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(
      8, std::to_string(kRounds) + " rounds, " + std::to_string(checked) +
             " values written by CUDA into its own allocation and read by Vulkan through the fd; " +
             std::to_string(size) + "-byte buffer in a " + std::to_string(allocationSize) +
             "-byte allocation (granularity " + std::to_string(granularity) + ")");
}
