// Step 4: the same rounds with ONE timeline semaphore and a value schedule.
//
// New against step 3:
//   - the device enables the timelineSemaphore feature (Vulkan 1.2; M18), and
//     CUDA must support timeline import (D8, S10; importSemaphoreIntoCuda asks);
//   - one semaphore of VK_SEMAPHORE_TYPE_TIMELINE replaces the two binary
//     ones, imported as cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd,
//     with CUDA's stream beside it (CudaTimeline, below);
//   - the +2 schedule: round k's render signals 2k+1, CUDA waits for 2k+1
//     and signals 2k+2, Vulkan's read-back waits for 2k+2 (S5). Every signal
//     is larger than any before it (S6); after N rounds the counter reads 2N,
//     which vkGetSemaphoreCounterValue checks;
//   - a timeline wait leaves the value as it was (no consumed signal), and
//     may even be submitted before its signal (S8). This step still submits
//     each wait after its signal: a wait whose value never comes stalls the
//     queue or stream, and that is harder to see than S4's rule.
// Unchanged from step 3: the acquire, its wait at ALL_COMMANDS; no release (step 5).
// Usage: learn_04_timeline_schedule [--break wait-value | read-value | list]
#include <string>

#define LEARN_STEP 4
#include "common/earlier.h"

constexpr uint32_t kValueCount = 1u << 16;
constexpr uint32_t kRounds = 16;

__host__ __device__ inline uint32_t expectedValue(uint32_t round, uint32_t i) {
  return (round + 1) * 2654435761u ^ i * 40503u;
}

// About 2 ms of a real simulation's work first, so that a reader
// that does not wait for the kernel (--break read-value) reads before the writes.
__global__ void writeRoundKernel(uint32_t* values, uint32_t count, uint32_t round) {
  for (int i = 0; i < 20; ++i) __nanosleep(100'000);
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] = expectedValue(round, i);
}

// >>> learn/common/earlier.h holds this for the later steps
// The logical device from step 4 on: both fd extensions (M18), and the
// timelineSemaphore feature, behind which Vulkan 1.2 keeps timeline semaphores.
inline Device createTimelineDevice(const Pair& pair) {
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  features12.timelineSemaphore = VK_TRUE;
  return createDevice(pair,
                      {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME},
                      &features12);
}

// Vulkan's exported timeline, CUDA's import of it, and the non-blocking
// stream CUDA's half of each round runs on.
struct CudaTimeline {
  VkSemaphore timeline = VK_NULL_HANDLE;
  cudaExternalSemaphore_t cuda = nullptr;
  cudaStream_t stream = nullptr;
};

// `kernel` is loaded last, before any wait is enqueued: the lazy-loading trap (step 3).
inline CudaTimeline createCudaTimeline(const Pair& pair, const Device& device, const void* kernel) {
  CudaTimeline result;
  result.timeline = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_TIMELINE);
  result.cuda = importSemaphoreIntoCuda(device, result.timeline, true);
  CUDA_CHECK(cudaStreamCreateWithFlags(&result.stream, cudaStreamNonBlocking));
  cudaFuncAttributes loaded{};
  CUDA_CHECK(cudaFuncGetAttributes(&loaded, kernel));
  return result;
}

// Enqueues CUDA's wait until the timeline is at least `value` (S5: a wait
// leaves the value as it is; G4: zeroed parameters); the work after it in
// the stream runs after Vulkan's signal.
inline void cudaWaitTimeline(const CudaTimeline& timeline, uint64_t value) {
  cudaExternalSemaphoreWaitParams waitParams{};
  waitParams.params.fence.value = value;
  CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&timeline.cuda, &waitParams, 1, timeline.stream));
}

// Enqueues CUDA's signal of `value` (S5, S6: larger than any before), after
// the work before it in stream order (S2).
inline void cudaSignalTimeline(const CudaTimeline& timeline, uint64_t value) {
  cudaExternalSemaphoreSignalParams signalParams{};
  signalParams.params.fence.value = value;
  CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&timeline.cuda, &signalParams, 1, timeline.stream));
}

// CUDA's side of the timeline's teardown: nothing pending, the stream, the
// import (S17); Vulkan destroys the semaphore after its queue is idle (S18).
// The CUDA Runtime API orders nothing between this and freeing CUDA's
// mappings and memory objects: each only needs its own work finished.
inline void destroyCudaSideOfTimeline(CudaTimeline& timeline) {
  CUDA_CHECK(cudaStreamSynchronize(timeline.stream));
  CUDA_CHECK(cudaStreamDestroy(timeline.stream));
  CUDA_CHECK(cudaDestroyExternalSemaphore(timeline.cuda));
}
// <<<

// The objects every round uses (created in main, in this order).
struct Rig {
  Device device;
  ExportedBuffer shared;
  CudaBuffer cudaShared;
  HostBuffer host;
  OneShot oneShot;
  CudaTimeline timeline;  // the semaphore, CUDA's import, CUDA's stream
};

// Round k: render signals 2k+1; CUDA waits for 2k+1, writes, signals 2k+2;
// the read-back waits for 2k+2; the CPU checks. Returns the values checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
  const uint64_t cudaDone = 2 * uint64_t{round} + 2;

  // 1. Vulkan's render signals 2k+1 (a submission with only the signal).
  VkTimelineSemaphoreSubmitInfo renderValues{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  renderValues.signalSemaphoreValueCount = 1;
  renderValues.pSignalSemaphoreValues = &renderDone;
  VkSubmitInfo render{VK_STRUCTURE_TYPE_SUBMIT_INFO, &renderValues};
  render.signalSemaphoreCount = 1;
  render.pSignalSemaphores = &rig.timeline.timeline;
  VK_CHECK(vkQueueSubmit(rig.device.queue, 1, &render, VK_NULL_HANDLE));

  // 2. CUDA waits until the value is at least 2k+1, runs the kernel, and
  //    sets it to 2k+2 (S5).
  cudaWaitTimeline(rig.timeline, breaking("wait-value") ? cudaDone : renderDone);  // BROKEN: 2k+2 never comes
  writeRoundKernel<<<(kValueCount + 255) / 256, 256, 0, rig.timeline.stream>>>(
      static_cast<uint32_t*>(rig.cudaShared.pointer), kValueCount, round);
  CUDA_CHECK(cudaGetLastError());
  cudaSignalTimeline(rig.timeline, cudaDone);

  // 3. Vulkan's read-back waits for 2k+2, acquires the buffer, copies it.
  VkCommandBuffer commands = beginOneShot(rig.oneShot);
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};  // M21, as in step 3
  acquire.srcAccessMask = 0;
  acquire.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = rig.device.queueFamily;
  acquire.buffer = rig.shared.buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                       1, &acquire, 0, nullptr);
  recordReadBack(commands, rig.shared.buffer, rig.host, rig.shared.size);
  // At ALL_COMMANDS, as in step 3: the wait covers the acquire (M21).
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  const uint64_t readBackWaitsFor = breaking("read-value") ? renderDone : cudaDone;  // BROKEN: 2k+1 is reached
  VkTimelineSemaphoreSubmitInfo readBackValues{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  readBackValues.waitSemaphoreValueCount = 1;
  readBackValues.pWaitSemaphoreValues = &readBackWaitsFor;
  VkSubmitInfo readBack{VK_STRUCTURE_TYPE_SUBMIT_INFO, &readBackValues};
  readBack.waitSemaphoreCount = 1;
  readBack.pWaitSemaphores = &rig.timeline.timeline;
  readBack.pWaitDstStageMask = &waitStage;
  submitAndWait(rig.device, rig.oneShot, readBack);  // the host waits for the copy, to check it

  const auto* values = static_cast<const uint32_t*>(rig.host.mapped);
  for (uint32_t i = 0; i < kValueCount; ++i)
    EXPECT_OR_EXIT(values[i] == expectedValue(round, i), "round %u: value %u is 0x%08x, expected 0x%08x", round, i,
                   values[i], expectedValue(round, i));
  return kValueCount;
}

int main(int argc, char** argv) {
  gStepName = "learn 04";
  parseArguments(argc, argv,
                 {{"wait-value", "CUDA waits for 2k+2, which only its own later signal sets: a deadlock"},
                  {"read-value", "the read-back waits for 2k+1, already reached: it reads while CUDA writes"}});
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);
  Device device = createTimelineDevice(pair);
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  CudaBuffer cudaShared = importIntoCuda(shared, exportMemoryFd(device, shared.memory));
  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);

  // One timeline semaphore, starting at 0, CUDA's import and stream; the
  // kernel loaded before any wait is enqueued (the lazy-loading trap, step 3).
  CudaTimeline timeline = createCudaTimeline(pair, device, reinterpret_cast<const void*>(writeRoundKernel));

  const Rig rig{device, shared, cudaShared, host, oneShot, timeline};
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) checked += runRound(rig, round);

  // The schedule's arithmetic, checked: N rounds end at 2N.
  uint64_t counter = 0;
  VK_CHECK(vkGetSemaphoreCounterValue(device.device, timeline.timeline, &counter));
  EXPECT_OR_EXIT(counter == 2 * uint64_t{kRounds}, "the timeline reads %llu after %u rounds, expected %llu",
                 static_cast<unsigned long long>(counter), kRounds, 2ull * kRounds);

  // Teardown. Nothing is pending on the timeline (S17, S18: the last wait
  // finished); CUDA's objects go first (M14), in the program's order:
  // mapping and memory, then stream and semaphore (either order would do).
  CUDA_CHECK(cudaStreamSynchronize(timeline.stream));
  destroyCudaBuffer(cudaShared);
  destroyCudaSideOfTimeline(timeline);
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroySemaphore(device.device, timeline.timeline, nullptr);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  destroyExportedBuffer(device, shared);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(4, std::to_string(kRounds) + " rounds, " + std::to_string(checked) +
                           " values checked; timeline at " + std::to_string(counter) + " = 2 x " +
                           std::to_string(kRounds) + " rounds");
}
