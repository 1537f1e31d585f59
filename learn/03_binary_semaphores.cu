// Step 3: the host stops waiting between the APIs; semaphores order them.
//
// New against step 2 (whose exported buffer and CUDA import are now
// earlier.h's createExportedBuffer, exportMemoryFd and importIntoCuda):
//   - two binary semaphores created for export (VkExportSemaphoreCreateInfo,
//     opaque fd; S11) and imported with cudaImportExternalSemaphore (M7);
//   - every round: Vulkan signals `vulkanDone`; a CUDA stream waits on it,
//     runs the kernel and signals `cudaDone` (S1, S2); Vulkan waits on
//     `cudaDone`, acquires the buffer and copies it out; the CPU checks it;
//   - THE rule of binary semaphores (S4): a wait is submitted only after the
//     signal it consumes has been submitted. One signal satisfies exactly one
//     wait (S3), so each round has one signal and one wait per semaphore.
// The host waits only for the read-back (fence), to check the values.
// What step 5 adds: the release back to VK_QUEUE_FAMILY_EXTERNAL, and the
// acquire's wait at ALL_COMMANDS; here it waits at TRANSFER, the copy's stage.
#include <string>

#include "common/earlier.h"

constexpr uint32_t kValueCount = 1u << 16;
constexpr uint32_t kRounds = 16;

__host__ __device__ inline uint32_t expectedValue(uint32_t round, uint32_t i) {
  return (round + 1) * 2654435761u ^ i * 40503u;
}

__global__ void writeRoundKernel(uint32_t* values, uint32_t count, uint32_t round) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] = expectedValue(round, i);
}

// The objects every round uses (created in main, in this order).
struct Rig {
  Device device;
  ExportedBuffer shared;
  CudaBuffer cudaShared;
  HostBuffer host;
  OneShot oneShot;
  VkSemaphore vulkanDone;
  VkSemaphore cudaDone;
  cudaExternalSemaphore_t cudaVulkanDone;
  cudaExternalSemaphore_t cudaCudaDone;
  cudaStream_t stream;
};

// One round: Vulkan signals, CUDA waits, writes and signals, Vulkan waits
// and reads back; the CPU checks. Returns the number of values checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const Device& device = rig.device;
  const ExportedBuffer& shared = rig.shared;
  const CudaBuffer& cudaShared = rig.cudaShared;
  const HostBuffer& host = rig.host;
  const OneShot& oneShot = rig.oneShot;
  const VkSemaphore& vulkanDone = rig.vulkanDone;
  const VkSemaphore& cudaDone = rig.cudaDone;
  const cudaExternalSemaphore_t& cudaVulkanDone = rig.cudaVulkanDone;
  const cudaExternalSemaphore_t& cudaCudaDone = rig.cudaCudaDone;
  const cudaStream_t& stream = rig.stream;
  const VkDeviceSize size = shared.size;
  cudaExternalSemaphoreWaitParams waitParams{};      // G4: zeroed; binary: value ignored (S3)
  cudaExternalSemaphoreSignalParams signalParams{};  // likewise
  uint32_t checked = 0;
  // 1. Vulkan signals `vulkanDone` (a stand-in for a frame's rendering: a
  //    submission with no commands, only the signal).
  VkSubmitInfo render{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  render.signalSemaphoreCount = 1;
  render.pSignalSemaphores = &vulkanDone;
  VK_CHECK(vkQueueSubmit(device.queue, 1, &render, VK_NULL_HANDLE));

  // 2. CUDA waits on it. S4: this wait is enqueued only now, after the
  //    vkQueueSubmit that signals it has returned. Enqueued first, CUDA
  //    could consume an older signal, or none at all (undefined).
  CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&cudaVulkanDone, &waitParams, 1, stream));
  writeRoundKernel<<<(kValueCount + 255) / 256, 256, 0, stream>>>(static_cast<uint32_t*>(cudaShared.pointer),
                                                                  kValueCount, round);
  CUDA_CHECK(cudaGetLastError());
  // S2: the signal comes after the kernel in stream order; whoever waits on
  // it sees the kernel's writes.
  CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cudaCudaDone, &signalParams, 1, stream));

  // 3. Vulkan waits on `cudaDone`. S4 again: submitted after CUDA enqueued
  //    the signal (the call above returned). The host does not wait for CUDA.
  VkCommandBuffer commands = beginOneShot(oneShot);
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};  // M21, as in step 2
  acquire.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = device.queueFamily;
  acquire.buffer = shared.buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 1,
                       &acquire, 0, nullptr);
  recordReadBack(commands, shared.buffer, host, size);
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkSubmitInfo readBack{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  readBack.waitSemaphoreCount = 1;
  readBack.pWaitSemaphores = &cudaDone;
  readBack.pWaitDstStageMask = &waitStage;
  submitAndWait(device, oneShot, readBack);  // the host waits for the copy, to check it

  const auto* values = static_cast<const uint32_t*>(host.mapped);
  for (uint32_t i = 0; i < kValueCount; ++i, ++checked)
    EXPECT_OR_EXIT(values[i] == expectedValue(round, i), "round %u: value %u is 0x%08x, expected 0x%08x", round, i,
                   values[i], expectedValue(round, i));
  return checked;
}

int main() {
  gStepName = "learn 03";
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);
  Device device = createDevice(pair, {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                                      VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME});  // M18
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  CudaBuffer cudaShared = importIntoCuda(shared, exportMemoryFd(device, shared.memory));
  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);

  // S11: a semaphore can be exported only if created with
  // VkExportSemaphoreCreateInfo (M19: the export is asked about first).
  // OPAQUE_FD has reference transference: Vulkan and CUDA share one payload.
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
  // M15): only then CUDA's semaphores, mapping and memory, then Vulkan's.
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaDestroyExternalSemaphore(cudaVulkanDone));
  CUDA_CHECK(cudaDestroyExternalSemaphore(cudaCudaDone));
  destroyCudaBuffer(cudaShared);
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
