// Step 5: queue family ownership, done right every round, under the
// validation layer's synchronization validation, which stays silent.
//
// New against step 4:
//   - the validation layer with synchronization validation is always on here
//     (not only with VKSIM_VALIDATION=1), and any message fails the step;
//   - the release back to VK_QUEUE_FAMILY_EXTERNAL after Vulkan's reads,
//     before CUDA writes again: in round k+1's render submission, whose
//     signal (2k+3), later in the same submission, is what CUDA waits for.
//     The signal's first scope is every command of the batch, release
//     included (recordBufferRelease, submitSignal, below);
//   - the acquire and the wait in front of it, as steps 2-4 had them, now
//     as the functions the later steps call (recordBufferAcquire,
//     submitWaitingFor, below): the acquire runs in no defined pipeline
//     stage, so the wait is at ALL_COMMANDS and the barrier's first scope is
//     ALL_COMMANDS with srcAccessMask 0 (M21).
// VK_KHR_maintenance8 (M22) adds VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR:
// where the driver offers it, the acquire's wait may use narrow stages (the
// barrier's own). Debian 12's headers (1.3.239) do not know it, so ALL_COMMANDS.
// Usage: learn_05_ownership_transfers [--break no-wait | --break list]
#include <string>

#define LEARN_STEP 5
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
// Records the release of `buffer` from `queueFamily` to VK_QUEUE_FAMILY_EXTERNAL
// (M21), after `stage` read it (step 5: the copy's TRANSFER; step 6: the
// draw's VERTEX_INPUT). Reads need no availability operation, so the access
// masks are 0; the destination half plays no part on the other API's side:
// what orders its writes after the release is the semaphore signal later in
// the same submission (submitSignal).
inline void recordBufferRelease(VkCommandBuffer commands, VkBuffer buffer, uint32_t queueFamily,
                                VkPipelineStageFlags stage) {
  VkBufferMemoryBarrier toExternal{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  toExternal.srcQueueFamilyIndex = queueFamily;
  toExternal.dstQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  toExternal.buffer = buffer;
  toExternal.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, stage, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 1, &toExternal,
                       0, nullptr);
}

// Records the acquire of `buffer` from VK_QUEUE_FAMILY_EXTERNAL into
// `queueFamily` (M21), for `stage`'s `access` (step 5: TRANSFER_READ). The
// acquire runs in no defined stage: its first scope is ALL_COMMANDS, as is
// the semaphore wait in front of it (submitWaitingFor), and srcAccessMask is
// 0 (the writes were the other API's; its signal made them available).
inline void recordBufferAcquire(VkCommandBuffer commands, VkBuffer buffer, uint32_t queueFamily,
                                VkPipelineStageFlags stage, VkAccessFlags access) {
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  acquire.dstAccessMask = access;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = queueFamily;
  acquire.buffer = buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, stage, 0, 0, nullptr, 1, &acquire, 0,
                       nullptr);
}

// The submission that hands the buffer to the other API: the commands
// recorded in `recorded` (ended here; none when null, as in round 0, which
// has nothing to release), then the signal of `semaphore` in the SAME
// submission, so that its first scope holds the release (S2 on Vulkan's
// side). A timeline is set to *value; a binary semaphore (value null, step 9)
// is signalled. No fence: the host never waits for it.
inline void submitSignal(const Device& device, const OneShot* recorded, VkSemaphore semaphore,
                         const uint64_t* value) {
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = value;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, value != nullptr ? &values : nullptr};
  if (recorded != nullptr) {
    VK_CHECK(vkEndCommandBuffer(recorded->commands));
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &recorded->commands;
  }
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &semaphore;
  VK_CHECK(vkQueueSubmit(device.queue, 1, &submit, VK_NULL_HANDLE));
}

// The submission that takes the buffer back: `oneShot`'s commands (the
// acquire first) wait for `semaphore` (a timeline: for *value; binary: value
// null) at ALL_COMMANDS, a stage that covers the acquire (M21); the host
// waits for them to finish (bounded).
inline void submitWaitingFor(const Device& device, const OneShot& oneShot, VkSemaphore semaphore,
                             const uint64_t* value) {
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = 1;
  values.pWaitSemaphoreValues = value;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, value != nullptr ? &values : nullptr};
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &semaphore;
  submit.pWaitDstStageMask = &waitStage;
  submitAndWait(device, oneShot, submit);
}
// <<<

// The objects every round uses (created in main, in this order).
struct Rig {
  Device device;
  ExportedBuffer shared;
  CudaBuffer cudaShared;
  HostBuffer host;
  OneShot oneShot;
  OneShot release;        // its command buffer holds the release; its fence stays unused
  CudaTimeline timeline;  // the semaphore, CUDA's import, CUDA's stream
};

// Round k: render releases (k > 0) and signals 2k+1; CUDA waits for 2k+1,
// writes, signals 2k+2; the read-back waits for 2k+2 at ALL_COMMANDS,
// acquires and copies; the CPU checks. Returns the values checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
  const uint64_t cudaDone = 2 * uint64_t{round} + 2;

  // 1. Vulkan's render signals 2k+1. From round 1 on it first releases the
  //    buffer that round k-1's read-back acquired: CUDA writes it next. The
  //    release's command buffer can be recorded again: the previous one
  //    finished before 2k-1 was signalled, which the host saw reached (the
  //    read-back's fence waited on 2k).
  if (round > 0) recordBufferRelease(beginOneShot(rig.release), rig.shared.buffer, rig.device.queueFamily,
                                     VK_PIPELINE_STAGE_TRANSFER_BIT);
  submitSignal(rig.device, round > 0 ? &rig.release : nullptr, rig.timeline.timeline, &renderDone);

  // 2. CUDA waits until the value is at least 2k+1, runs the kernel, and
  //    sets it to 2k+2 (S5).
  cudaWaitTimeline(rig.timeline, renderDone);
  writeRoundKernel<<<(kValueCount + 255) / 256, 256, 0, rig.timeline.stream>>>(
      static_cast<uint32_t*>(rig.cudaShared.pointer), kValueCount, round);
  CUDA_CHECK(cudaGetLastError());
  cudaSignalTimeline(rig.timeline, cudaDone);

  // 3. Vulkan's read-back waits for 2k+2 at ALL_COMMANDS, acquires the
  //    buffer, copies it; the host waits for the copy, to check it.
  VkCommandBuffer commands = beginOneShot(rig.oneShot);
  recordBufferAcquire(commands, rig.shared.buffer, rig.device.queueFamily, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT);
  recordReadBack(commands, rig.shared.buffer, rig.host, rig.shared.size);
  if (breaking("no-wait"))
    submitAndWait(rig.device, rig.oneShot);  // BROKEN: the acquire and the copy wait for nothing
  else
    submitWaitingFor(rig.device, rig.oneShot, rig.timeline.timeline, &cudaDone);

  const auto* values = static_cast<const uint32_t*>(rig.host.mapped);
  for (uint32_t i = 0; i < kValueCount; ++i)
    EXPECT_OR_EXIT(values[i] == expectedValue(round, i), "round %u: value %u is 0x%08x, expected 0x%08x", round, i,
                   values[i], expectedValue(round, i));
  return kValueCount;
}

int main(int argc, char** argv) {
  gStepName = "learn 05";
  parseArguments(argc, argv, {{"no-wait", "no semaphore wait before the read-back's acquire: it reads too early"}});
  Instance instance = createInstance({}, true);  // validation on, whatever VKSIM_VALIDATION says
  const Pair pair = pairDevices(instance.instance);
  Device device = createTimelineDevice(pair);
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  CudaBuffer cudaShared = importIntoCuda(shared, exportMemoryFd(device, shared.memory));
  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);
  OneShot release = createOneShot(device);

  // One timeline semaphore, starting at 0, CUDA's import and stream; the
  // kernel loaded before any wait is enqueued (the lazy-loading trap, step 3).
  CudaTimeline timeline = createCudaTimeline(pair, device, reinterpret_cast<const void*>(writeRoundKernel));

  const Rig rig{device, shared, cudaShared, host, oneShot, release, timeline};
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
