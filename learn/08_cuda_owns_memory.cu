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
#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

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
    exitWith(kExitMissing, "the CUDA driver has no %s at version %u (%s)", symbol, version,
             status == cudaDriverEntryPointVersionNotSufficent ? "version not sufficient" : "symbol not found");
  *function = reinterpret_cast<Function>(address);
}

Driver gDriver{};

// CUDA_CHECK for driver calls: the call, where, and the CUresult's name; exit 4.
#define CU_CHECK(call)                                                                                         \
  do {                                                                                                         \
    const CUresult cuCheckResult = (call);                                                                     \
    const char* cuCheckName = "unknown CUresult";                                                              \
    if (cuCheckResult != CUDA_SUCCESS) gDriver.getErrorName(cuCheckResult, &cuCheckName);                      \
    if (cuCheckResult != CUDA_SUCCESS)                                                                         \
      exitWith(kExitCheckFailed, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call, cuCheckName);              \
  } while (0)

int main() {
  gStepName = "learn 08";
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);  // CUDA's current device is the pair's
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  features12.timelineSemaphore = VK_TRUE;  // M18
  Device device = createDevice(pair,
                               {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME},
                               &features12);
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);

  // 1. The driver functions (E2, E3), then what the device must support.
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
  CUDA_CHECK(cudaFree(nullptr));  // the runtime's primary context, current: the mapping lives in it
  CUdevice cuDevice = 0;
  CU_CHECK(gDriver.deviceGet(&cuDevice, pair.cudaDevice));
  int virtualMemory = 0, fdExport = 0;
  CU_CHECK(gDriver.deviceGetAttribute(&virtualMemory, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, cuDevice));
  CU_CHECK(gDriver.deviceGetAttribute(&fdExport, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, cuDevice));
  if (!virtualMemory || !fdExport) exitWith(kExitMissing, "CUDA device %d cannot %s", pair.cudaDevice,
                                            !virtualMemory ? "allocate with cuMemCreate" : "export a POSIX fd");

  // 2. CUDA allocates (E8): device memory that can be exported as a POSIX fd
  //    (asked for now: an allocation made without it cannot be exported
  //    later), its size a multiple of the granularity; a range of addresses,
  //    the allocation mapped into it, and read/write access for the device.
  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location = {CU_MEM_LOCATION_TYPE_DEVICE, int(cuDevice)};
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granularity = 0;
  CU_CHECK(gDriver.memGetAllocationGranularity(&granularity, &properties, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t allocationSize = (size + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle allocation = 0;
  CU_CHECK(gDriver.memCreate(&allocation, allocationSize, &properties, 0));
  CUdeviceptr address = 0;
  CU_CHECK(gDriver.memAddressReserve(&address, allocationSize, granularity, 0, 0));
  CU_CHECK(gDriver.memMap(address, allocationSize, 0, allocation, 0));
  const CUmemAccessDesc access{properties.location, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  CU_CHECK(gDriver.memSetAccess(address, allocationSize, &access, 1));
  int fd = -1;  // a new fd, ours; it refers to the allocation (closing it frees nothing)
  CU_CHECK(gDriver.memExportToShareableHandle(&fd, allocation, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));

  // 3. Vulkan imports (E9): a buffer that names the handle type, memory of
  //    the allocation's size in a device-local type the buffer accepts (an
  //    opaque fd may not be asked vkGetMemoryFdPropertiesKHR), and dedicated
  //    only where the driver insists.
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
  VkBuffer shared = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &shared));
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device.device, shared, &requirements);
  EXPECT_OR_EXIT(requirements.size <= allocationSize, "the buffer needs %llu bytes, CUDA allocated %zu",
                 static_cast<unsigned long long>(requirements.size), allocationSize);
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.buffer = shared;
  const bool dedicatedOnly = (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) != 0;
  VkImportMemoryFdInfoKHR importInfo{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, dedicatedOnly ? &dedicated : nullptr};
  importInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  importInfo.fd = fd;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &importInfo};
  allocateInfo.allocationSize = allocationSize;  // the allocation's, not the buffer's
  allocateInfo.memoryTypeIndex =
      findMemoryType(pair.physical, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  const VkResult imported = vkAllocateMemory(device.device, &allocateInfo, nullptr, &memory);
  if (imported != VK_SUCCESS) close(fd);  // a failed import leaves the fd with us (M8)
  VK_CHECK(imported);
  fd = -1;  // Vulkan's now (VkImportMemoryFdInfoKHR): never to be used or closed again (M7)
  VK_CHECK(vkBindBufferMemory(device.device, shared, memory, 0));

  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);
  OneShot release = createOneShot(device);  // its buffer holds the release; its fence stays unused
  const VkSemaphore timeline = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_TIMELINE);
  cudaExternalSemaphore_t cudaTimeline = importSemaphoreIntoCuda(device, timeline, true);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) {
    const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
    const uint64_t cudaDone = 2 * uint64_t{round} + 2;

    // 4. Vulkan releases what round k-1's copy read and signals 2k+1 (step 5).
    VkTimelineSemaphoreSubmitInfo renderValues{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    renderValues.signalSemaphoreValueCount = 1;
    renderValues.pSignalSemaphoreValues = &renderDone;
    VkSubmitInfo render{VK_STRUCTURE_TYPE_SUBMIT_INFO, &renderValues};
    if (round > 0) {
      VkCommandBuffer commands = beginOneShot(release);
      VkBufferMemoryBarrier toExternal{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
      toExternal.srcQueueFamilyIndex = device.queueFamily;
      toExternal.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
      toExternal.buffer = shared;
      toExternal.size = VK_WHOLE_SIZE;
      vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0,
                           nullptr, 1, &toExternal, 0, nullptr);
      VK_CHECK(vkEndCommandBuffer(commands));
      render.commandBufferCount = 1;
      render.pCommandBuffers = &release.commands;
    }
    render.signalSemaphoreCount = 1;
    render.pSignalSemaphores = &timeline;
    VK_CHECK(vkQueueSubmit(device.queue, 1, &render, VK_NULL_HANDLE));

    // 5. CUDA waits for 2k+1, writes through its own mapping, signals 2k+2.
    cudaExternalSemaphoreWaitParams waitParams{};
    waitParams.params.fence.value = renderDone;
    CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&cudaTimeline, &waitParams, 1, stream));
    writeRoundKernel<<<(kValueCount + 255) / 256, 256, 0, stream>>>(reinterpret_cast<uint32_t*>(address),
                                                                    kValueCount, round);
    CUDA_CHECK(cudaGetLastError());
    cudaExternalSemaphoreSignalParams signalParams{};
    signalParams.params.fence.value = cudaDone;
    CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cudaTimeline, &signalParams, 1, stream));

    // 6. Vulkan waits for 2k+2 at ALL_COMMANDS, acquires (M21), copies out.
    VkCommandBuffer commands = beginOneShot(oneShot);
    VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    acquire.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
    acquire.dstQueueFamilyIndex = device.queueFamily;
    acquire.buffer = shared;
    acquire.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                         1, &acquire, 0, nullptr);
    recordReadBack(commands, shared, host, size);
    const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkTimelineSemaphoreSubmitInfo readBackValues{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    readBackValues.waitSemaphoreValueCount = 1;
    readBackValues.pWaitSemaphoreValues = &cudaDone;
    VkSubmitInfo readBack{VK_STRUCTURE_TYPE_SUBMIT_INFO, &readBackValues};
    readBack.waitSemaphoreCount = 1;
    readBack.pWaitSemaphores = &timeline;
    readBack.pWaitDstStageMask = &waitStage;
    submitAndWait(device, oneShot, readBack);

    const auto* values = static_cast<const uint32_t*>(host.mapped);
    for (uint32_t i = 0; i < kValueCount; ++i, ++checked)
      EXPECT_OR_EXIT(values[i] == expectedValue(round, i), "round %u: value %u is 0x%08x, expected 0x%08x", round, i,
                     values[i], expectedValue(round, i));
  }

  // 7. Teardown. Nothing may still run on either side (S17, S18). Then the
  //    importer lets go first: Vulkan frees its import, which drops its
  //    reference to CUDA's allocation. Then CUDA undoes its own steps in
  //    reverse: unmap the range (no kernel can touch it any more), free the
  //    address range (only an unmapped range may be freed), release the
  //    allocation's handle. cuMemRelease frees the memory only once no
  //    mapping and no handle (the fd, Vulkan's import) refers to it, so the
  //    other order would not pull the memory from under Vulkan, but this one
  //    leaves nothing waiting on anything (E10).
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaDestroyExternalSemaphore(cudaTimeline));
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroyBuffer(device.device, shared, nullptr);
  vkFreeMemory(device.device, memory, nullptr);
  CU_CHECK(gDriver.memUnmap(address, allocationSize));
  CU_CHECK(gDriver.memAddressFree(address, allocationSize));
  CU_CHECK(gDriver.memRelease(allocation));
  vkDestroySemaphore(device.device, timeline, nullptr);
  destroyOneShot(device, release);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(8, std::to_string(kRounds) + " rounds, " + std::to_string(checked) +
                           " values written by CUDA into its own allocation and read by Vulkan through the fd; " +
                           std::to_string(size) + "-byte buffer in a " + std::to_string(allocationSize) +
                           "-byte allocation (granularity " + std::to_string(granularity) + ")");
}
