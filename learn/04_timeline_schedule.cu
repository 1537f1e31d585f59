// Step 4: the same rounds with ONE timeline semaphore and a value schedule.
//
// New against step 3:
//   - the device enables the timelineSemaphore feature (Vulkan 1.2; M18), and
//     CUDA must support timeline import (D8, S10; earlier.h asks);
//   - one semaphore of VK_SEMAPHORE_TYPE_TIMELINE replaces the two binary
//     ones, imported as cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
//   - the +2 schedule: round k's render signals 2k+1, CUDA waits for 2k+1
//     and signals 2k+2, Vulkan's read-back waits for 2k+2 (S5). Every signal
//     is larger than any before it (S6); after N rounds the counter reads 2N,
//     which vkGetSemaphoreCounterValue checks;
//   - a timeline wait leaves the value as it was (no consumed signal), and
//     may even be submitted before its signal (S8). This step still submits
//     each wait after its signal: a wait whose value never comes stalls the
//     queue or stream, and that is harder to see than S4's rule.
// Unchanged from step 3: the acquire at TRANSFER, no release (step 5).
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
  VkSemaphore timeline;
  cudaExternalSemaphore_t cudaTimeline;
  cudaStream_t stream;
};

// Round k: render signals 2k+1; CUDA waits for 2k+1, writes, signals 2k+2;
// the read-back waits for 2k+2; the CPU checks. Returns the values checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const Device& device = rig.device;
  const ExportedBuffer& shared = rig.shared;
  const CudaBuffer& cudaShared = rig.cudaShared;
  const HostBuffer& host = rig.host;
  const OneShot& oneShot = rig.oneShot;
  const VkSemaphore& timeline = rig.timeline;
  const cudaExternalSemaphore_t& cudaTimeline = rig.cudaTimeline;
  const cudaStream_t& stream = rig.stream;
  const VkDeviceSize size = shared.size;
  uint32_t checked = 0;
  const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
  const uint64_t cudaDone = 2 * uint64_t{round} + 2;

  // 1. Vulkan's render signals 2k+1 (a submission with only the signal).
  VkTimelineSemaphoreSubmitInfo renderValues{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  renderValues.signalSemaphoreValueCount = 1;
  renderValues.pSignalSemaphoreValues = &renderDone;
  VkSubmitInfo render{VK_STRUCTURE_TYPE_SUBMIT_INFO, &renderValues};
  render.signalSemaphoreCount = 1;
  render.pSignalSemaphores = &timeline;
  VK_CHECK(vkQueueSubmit(device.queue, 1, &render, VK_NULL_HANDLE));

  // 2. CUDA waits until the value is at least 2k+1, runs the kernel, and
  //    sets it to 2k+2 (S5). G4: zeroed parameter structs.
  cudaExternalSemaphoreWaitParams waitParams{};
  waitParams.params.fence.value = renderDone;
  CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&cudaTimeline, &waitParams, 1, stream));
  writeRoundKernel<<<(kValueCount + 255) / 256, 256, 0, stream>>>(static_cast<uint32_t*>(cudaShared.pointer),
                                                                  kValueCount, round);
  CUDA_CHECK(cudaGetLastError());
  cudaExternalSemaphoreSignalParams signalParams{};
  signalParams.params.fence.value = cudaDone;  // S2: after the kernel in stream order
  CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cudaTimeline, &signalParams, 1, stream));

  // 3. Vulkan's read-back waits for 2k+2, acquires the buffer, copies it.
  VkCommandBuffer commands = beginOneShot(oneShot);
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};  // M21, as in step 3
  acquire.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = device.queueFamily;
  acquire.buffer = shared.buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 1,
                       &acquire, 0, nullptr);
  recordReadBack(commands, shared.buffer, host, size);
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkTimelineSemaphoreSubmitInfo readBackValues{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  readBackValues.waitSemaphoreValueCount = 1;
  readBackValues.pWaitSemaphoreValues = &cudaDone;
  VkSubmitInfo readBack{VK_STRUCTURE_TYPE_SUBMIT_INFO, &readBackValues};
  readBack.waitSemaphoreCount = 1;
  readBack.pWaitSemaphores = &timeline;
  readBack.pWaitDstStageMask = &waitStage;
  submitAndWait(device, oneShot, readBack);  // the host waits for the copy, to check it

  const auto* values = static_cast<const uint32_t*>(host.mapped);
  for (uint32_t i = 0; i < kValueCount; ++i, ++checked)
    EXPECT_OR_EXIT(values[i] == expectedValue(round, i), "round %u: value %u is 0x%08x, expected 0x%08x", round, i,
                   values[i], expectedValue(round, i));
  return checked;
}

int main() {
  gStepName = "learn 04";
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  features12.timelineSemaphore = VK_TRUE;  // M18: timeline semaphores are core in 1.2, behind this feature
  Device device = createDevice(pair,
                               {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME},
                               &features12);
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  CudaBuffer cudaShared = importIntoCuda(shared, exportMemoryFd(device, shared.memory));
  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);

  // S11 as in step 3, but one timeline semaphore, starting at 0.
  const VkSemaphore timeline = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_TIMELINE);
  cudaExternalSemaphore_t cudaTimeline = importSemaphoreIntoCuda(device, timeline, true);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // Load the kernel before any wait is enqueued: the lazy-loading trap (step 3).
  cudaFuncAttributes loaded{};
  CUDA_CHECK(cudaFuncGetAttributes(&loaded, writeRoundKernel));

  const Rig rig{device, shared, cudaShared, host, oneShot, timeline, cudaTimeline, stream};
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) checked += runRound(rig, round);

  // The schedule's arithmetic, checked: N rounds end at 2N.
  uint64_t counter = 0;
  VK_CHECK(vkGetSemaphoreCounterValue(device.device, timeline, &counter));
  EXPECT_OR_EXIT(counter == 2 * uint64_t{kRounds}, "the timeline reads %llu after %u rounds, expected %llu",
                 static_cast<unsigned long long>(counter), kRounds, 2ull * kRounds);

  // Teardown. Nothing is pending on the timeline (S17, S18: the last wait
  // finished, and the stream is idle); CUDA's objects go first (M14).
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaDestroyExternalSemaphore(cudaTimeline));
  destroyCudaBuffer(cudaShared);
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroySemaphore(device.device, timeline, nullptr);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  destroyExportedBuffer(device, shared);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(4, std::to_string(kRounds) + " rounds, " + std::to_string(checked) +
                           " values checked; timeline at " + std::to_string(counter) + " = 2 x " +
                           std::to_string(kRounds) + " rounds");
}
