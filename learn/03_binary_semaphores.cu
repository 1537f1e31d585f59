// Step 3: the host stops waiting between the APIs; semaphores order them.
//
// New against step 2 (whose exported buffer and CUDA import are now
// earlier.h's createExportedBuffer, exportMemoryFd and importIntoCuda):
//   - two binary semaphores created for export and imported into CUDA
//     (createExportedSemaphore, importSemaphoreIntoCuda, below; S11, M7);
//   - every round: Vulkan signals `vulkanDone`; a CUDA stream waits on it,
//     runs the kernel and signals `cudaDone` (S1, S2); Vulkan waits on
//     `cudaDone` at ALL_COMMANDS (a stage that covers the acquire, M21, as
//     in step 2), acquires the buffer and copies it out; the CPU checks it;
//   - THE rule of binary semaphores (S4): a wait is submitted only after the
//     signal it consumes has been submitted. One signal satisfies exactly one
//     wait (S3), so each round has one signal and one wait per semaphore.
// The host waits only for the read-back (fence), to check the values.
// Left for step 5: the release back to VK_QUEUE_FAMILY_EXTERNAL.
// Usage: learn_03_binary_semaphores [--break no-wait | --break list]
#include <string>

#define LEARN_STEP 3
#include "common/earlier.h"

constexpr uint32_t kValueCount = 1u << 16;
constexpr uint32_t kRounds = 16;

__host__ __device__ inline uint32_t expectedValue(uint32_t round, uint32_t i) {
  return (round + 1) * 2654435761u ^ i * 40503u;
}

// About 2 ms of a real simulation's work first, so that a reader
// that does not wait for the kernel (--break no-wait) reads before the writes.
__global__ void writeRoundKernel(uint32_t* values, uint32_t count, uint32_t round) {
  for (int i = 0; i < 20; ++i) __nanosleep(100'000);
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] = expectedValue(round, i);
}

// >>> learn/common/earlier.h holds this for the later steps
// A binary (VK_SEMAPHORE_TYPE_BINARY) or timeline (VK_SEMAPHORE_TYPE_TIMELINE,
// starting at 0; step 4) semaphore that can be exported as an opaque fd (S11:
// only a semaphore created with VkExportSemaphoreCreateInfo can be; M19: ask
// first). Exit 3 when the device cannot export that kind.
inline VkSemaphore createExportedSemaphore(const Pair& pair, const Device& device, VkSemaphoreType type) {
  VkSemaphoreTypeCreateInfo typeInfo{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  typeInfo.semaphoreType = type;
  VkPhysicalDeviceExternalSemaphoreInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO, &typeInfo};
  query.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalSemaphoreProperties answer{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
  vkGetPhysicalDeviceExternalSemaphoreProperties(pair.physical, &query, &answer);
  if ((answer.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) == 0)
    exitWith(kExitMissing, "%s cannot export a %s semaphore as an opaque fd", pair.name.c_str(),
             string_VkSemaphoreType(type));
  VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO, &typeInfo};
  exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &exportInfo};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSemaphore(device.device, &info, nullptr, &semaphore));
  return semaphore;
}

// Exports `semaphore` as a new opaque fd and imports it into CUDA (binary:
// cudaExternalSemaphoreHandleTypeOpaqueFd; a timeline, step 4:
// ...TimelineSemaphoreFd, where the device supports it: D8, S10). OPAQUE_FD
// has reference transference: both APIs share one payload. The fd is CUDA's
// after a successful import (M7), closed here after a failed one (M8).
// Destroy with cudaDestroyExternalSemaphore before vkDestroySemaphore, with
// nothing pending on either side (S17, S18).
inline cudaExternalSemaphore_t importSemaphoreIntoCuda(const Device& device, VkSemaphore semaphore, bool timeline) {
  int current = 0, timelineInterop = 0;  // asked of the current (paired) device
  CUDA_CHECK(cudaGetDevice(&current));
  CUDA_CHECK(cudaDeviceGetAttribute(&timelineInterop, cudaDevAttrTimelineSemaphoreInteropSupported, current));
  if (timeline && !timelineInterop) exitWith(kExitMissing, "the CUDA device cannot import timeline semaphores");
  // vkGetSemaphoreFdKHR is a device extension's function: no loader symbol.
  auto getSemaphoreFd =
      reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device.device, "vkGetSemaphoreFdKHR"));
  VkSemaphoreGetFdInfoKHR fdInfo{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  fdInfo.semaphore = semaphore;
  fdInfo.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  VK_CHECK(getSemaphoreFd(device.device, &fdInfo, &fd));
  cudaExternalSemaphoreHandleDesc handle{};  // G4: zeroed
  handle.type = timeline ? cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd : cudaExternalSemaphoreHandleTypeOpaqueFd;
  handle.handle.fd = fd;
  cudaExternalSemaphore_t result = nullptr;
  const cudaError_t imported = cudaImportExternalSemaphore(&result, &handle);
  if (imported != cudaSuccess) {
    close(fd);  // M8: a failed import leaves the fd ours
    exitWith(kExitCheckFailed, "%s:%d: cudaImportExternalSemaphore(...) failed: %s", __FILE__, __LINE__,
             cudaGetErrorName(imported));
  }
  return result;
}
// <<<

// The objects every round uses (created in main, in this order).
struct Rig {
  Device device;
  ExportedBuffer shared;
  CudaBuffer cudaShared;
  HostBuffer host;
  OneShot oneShot;
  VkSemaphore vulkanDone, cudaDone;                     // Vulkan's semaphores
  cudaExternalSemaphore_t cudaVulkanDone, cudaCudaDone;  // CUDA's imports of them
  cudaStream_t stream;
};

// One round: Vulkan signals, CUDA waits, writes and signals, Vulkan waits
// and reads back; the CPU checks. Returns the number of values checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  // 1. Vulkan signals `vulkanDone` (a stand-in for a frame's rendering: a
  //    submission with no commands, only the signal).
  VkSubmitInfo render{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  render.signalSemaphoreCount = 1;
  render.pSignalSemaphores = &rig.vulkanDone;
  VK_CHECK(vkQueueSubmit(rig.device.queue, 1, &render, VK_NULL_HANDLE));

  // 2. CUDA waits on it. S4: this wait is enqueued only now, after the
  //    vkQueueSubmit that signals it has returned. Enqueued first, CUDA
  //    could consume an older signal, or none at all (undefined). Then the
  //    kernel, then the signal (S2: whoever waits on it sees the writes).
  cudaExternalSemaphoreWaitParams waitParams{};      // G4: zeroed; binary: no value (S3)
  cudaExternalSemaphoreSignalParams signalParams{};  // likewise
  CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&rig.cudaVulkanDone, &waitParams, 1, rig.stream));
  writeRoundKernel<<<(kValueCount + 255) / 256, 256, 0, rig.stream>>>(static_cast<uint32_t*>(rig.cudaShared.pointer),
                                                                      kValueCount, round);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&rig.cudaCudaDone, &signalParams, 1, rig.stream));

  // 3. Vulkan waits on `cudaDone`. S4 again: submitted after CUDA enqueued
  //    the signal (the call above returned). The host does not wait for CUDA.
  VkCommandBuffer commands = beginOneShot(rig.oneShot);
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};  // M21, as in step 2
  acquire.srcAccessMask = 0;
  acquire.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = rig.device.queueFamily;
  acquire.buffer = rig.shared.buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                       1, &acquire, 0, nullptr);
  recordReadBack(commands, rig.shared.buffer, rig.host, rig.shared.size);
  // The wait is at ALL_COMMANDS: the acquire runs in no defined stage, and a
  // narrower wait (TRANSFER, the copy's) need not hold it back (M21).
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo readBack{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  readBack.waitSemaphoreCount = breaking("no-wait") ? 0 : 1;  // BROKEN: the copy does not wait for CUDA
  readBack.pWaitSemaphores = &rig.cudaDone;
  readBack.pWaitDstStageMask = &waitStage;
  submitAndWait(rig.device, rig.oneShot, readBack);  // the host waits for the copy, to check it

  const auto* values = static_cast<const uint32_t*>(rig.host.mapped);
  for (uint32_t i = 0; i < kValueCount; ++i)
    EXPECT_OR_EXIT(values[i] == expectedValue(round, i), "round %u: value %u is 0x%08x, expected 0x%08x", round, i,
                   values[i], expectedValue(round, i));
  return kValueCount;
}

int main(int argc, char** argv) {
  gStepName = "learn 03";
  parseArguments(argc, argv, {{"no-wait", "the read-back does not wait for cudaDone: it reads while CUDA writes"}});
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);
  Device device = createDevice(pair, {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                                      VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME});  // M18
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  CudaBuffer cudaShared = importIntoCuda(shared, exportMemoryFd(device, shared.memory));
  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);

  const VkSemaphore vulkanDone = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_BINARY);
  const VkSemaphore cudaDone = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_BINARY);
  cudaExternalSemaphore_t cudaVulkanDone = importSemaphoreIntoCuda(device, vulkanDone, false);
  cudaExternalSemaphore_t cudaCudaDone = importSemaphoreIntoCuda(device, cudaDone, false);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // The lazy-loading trap (docs/interop-walkthrough.md, section 6):
  // CUDA loads a kernel at its first launch, and a launch into a stream that
  // already waits on a semaphore blocks the host until that wait ends. Load
  // the kernel now, before any wait is enqueued.
  cudaFuncAttributes loaded{};
  CUDA_CHECK(cudaFuncGetAttributes(&loaded, writeRoundKernel));

  const Rig rig{device, shared, cudaShared, host, oneShot, vulkanDone, cudaDone, cudaVulkanDone, cudaCudaDone, stream};
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) checked += runRound(rig, round);

  // Teardown. Each signal found its wait (S18), and the stream is idle (S17,
  // M15): only then CUDA's mapping and memory, its semaphores (in either
  // order: the CUDA Runtime API asks only that nothing is pending on each),
  // then Vulkan's objects.
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  destroyCudaBuffer(cudaShared);
  CUDA_CHECK(cudaDestroyExternalSemaphore(cudaVulkanDone));
  CUDA_CHECK(cudaDestroyExternalSemaphore(cudaCudaDone));
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroySemaphore(device.device, vulkanDone, nullptr);
  vkDestroySemaphore(device.device, cudaDone, nullptr);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  destroyExportedBuffer(device, shared);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(3, std::to_string(kRounds) + " rounds, " + std::to_string(checked) +
                           " values checked; 2 binary semaphores, each signalled and waited " +
                           std::to_string(kRounds) + " times, every wait submitted after its signal");
}
