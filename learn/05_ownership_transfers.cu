// Step 5: queue family ownership, done right every round, under the
// validation layer's synchronization validation, which stays silent.
//
// New against step 4:
//   - the validation layer with synchronization validation is always on here
//     (not only with VKSIM_VALIDATION=1), and any message fails the step;
//   - the acquire from VK_QUEUE_FAMILY_EXTERNAL (M21): the acquire runs in no
//     defined pipeline stage, so the semaphore wait in front of it is at
//     ALL_COMMANDS, and the barrier's first scope is ALL_COMMANDS with
//     srcAccessMask 0 (the writes were CUDA's; the semaphore made them
//     available). Step 4 waited at TRANSFER: a chain that need not cover the
//     acquire;
//   - the release back to VK_QUEUE_FAMILY_EXTERNAL after Vulkan's reads,
//     before CUDA writes again: in round k+1's render submission, whose
//     signal (2k+3), later in the same submission, is what CUDA waits for.
//     The signal's first scope is every command of the batch, release included.
// VK_KHR_maintenance8 adds VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR:
// where the driver offers it, the acquire's wait may use narrow stages (the
// barrier's own). Debian 12's headers (1.3.239) do not know it, so ALL_COMMANDS.
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

// Records the release of `buffer` from `queueFamily` to VK_QUEUE_FAMILY_EXTERNAL
// (M21). First scope: the copy that read it (TRANSFER); reads need no
// availability operation, so srcAccessMask is 0. The destination masks play
// no part on the other side: what orders CUDA's writes after the release is
// the semaphore signal later in the same submission.
void recordRelease(VkCommandBuffer commands, VkBuffer buffer, uint32_t queueFamily) {
  VkBufferMemoryBarrier toExternal{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  toExternal.srcAccessMask = 0;
  toExternal.dstAccessMask = 0;
  toExternal.srcQueueFamilyIndex = queueFamily;
  toExternal.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  toExternal.buffer = buffer;
  toExternal.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr,
                       1, &toExternal, 0, nullptr);
}

// The objects every round uses (created in main, in this order).
struct Rig {
  Device device;
  ExportedBuffer shared;
  CudaBuffer cudaShared;
  HostBuffer host;
  OneShot oneShot;
  OneShot release;
  VkSemaphore timeline;
  cudaExternalSemaphore_t cudaTimeline;
  cudaStream_t stream;
};

// Round k: render releases (k > 0) and signals 2k+1; CUDA waits for 2k+1,
// writes, signals 2k+2; the read-back waits for 2k+2 at ALL_COMMANDS,
// acquires and copies; the CPU checks. Returns the values checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const Device& device = rig.device;
  const ExportedBuffer& shared = rig.shared;
  const CudaBuffer& cudaShared = rig.cudaShared;
  const HostBuffer& host = rig.host;
  const OneShot& oneShot = rig.oneShot;
  const OneShot& release = rig.release;
  const VkSemaphore& timeline = rig.timeline;
  const cudaExternalSemaphore_t& cudaTimeline = rig.cudaTimeline;
  const cudaStream_t& stream = rig.stream;
  const VkDeviceSize size = shared.size;
  uint32_t checked = 0;
  const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
  const uint64_t cudaDone = 2 * uint64_t{round} + 2;

  // 1. Vulkan's render signals 2k+1. From round 1 on it first releases the
  //    buffer that round k-1's read-back acquired: CUDA writes it next.
  //    The release's command buffer can be recorded again: the
  //    previous one finished before 2k-1 was signalled, which the host saw
  //    reached (the read-back's fence waited on 2k).
  VkTimelineSemaphoreSubmitInfo renderValues{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  renderValues.signalSemaphoreValueCount = 1;
  renderValues.pSignalSemaphoreValues = &renderDone;
  VkSubmitInfo render{VK_STRUCTURE_TYPE_SUBMIT_INFO, &renderValues};
  if (round > 0) {
    recordRelease(beginOneShot(release), shared.buffer, device.queueFamily);
    VK_CHECK(vkEndCommandBuffer(release.commands));
    render.commandBufferCount = 1;
    render.pCommandBuffers = &release.commands;
  }
  render.signalSemaphoreCount = 1;  // after the release, in the same submission
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
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};  // M21
  acquire.srcAccessMask = 0;
  acquire.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = device.queueFamily;
  acquire.buffer = shared.buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                       1, &acquire, 0, nullptr);
  recordReadBack(commands, shared.buffer, host, size);
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;  // M21: covers the acquire
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
  gStepName = "learn 05";
  Instance instance = createInstance({}, true);  // validation on, whatever VKSIM_VALIDATION says
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
  OneShot release = createOneShot(device);  // its buffer holds the release; its fence stays unused

  // S11 as in step 3, but one timeline semaphore, starting at 0.
  const VkSemaphore timeline = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_TIMELINE);
  cudaExternalSemaphore_t cudaTimeline = importSemaphoreIntoCuda(device, timeline, true);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // Load the kernel before any wait is enqueued: the lazy-loading trap (step 3).
  cudaFuncAttributes loaded{};
  CUDA_CHECK(cudaFuncGetAttributes(&loaded, writeRoundKernel));

  const Rig rig{device, shared, cudaShared, host, oneShot, release, timeline, cudaTimeline, stream};
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
  destroyOneShot(device, release);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  destroyExportedBuffer(device, shared);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(5, std::to_string(kRounds) + " rounds, " + std::to_string(checked) + " values checked; " +
                           std::to_string(kRounds) + " acquires and " + std::to_string(kRounds - 1) +
                           " releases; timeline at " + std::to_string(counter) +
                           "; synchronization validation silent");
}
