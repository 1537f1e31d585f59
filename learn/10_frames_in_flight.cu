// Step 10: frames in flight. Step 6's rounds without the host: the host submits
// every frame at once and waits a single time, at the end, so nothing but the
// semaphore values keeps CUDA's writes away from Vulkan's draws. CUDA writes
// round k into one of two vertex buffers while Vulkan draws round k-1 from the
// other, on the GPU at the same time; each frame's image goes to a host buffer
// of its own, and the CPU checks them all at the end as step 6 checks one.
//
// New against step 6:
//   - no host wait per round: one command buffer per submission (none is
//     reused, so the host never has to know one finished), one fence at the end;
//   - kBuffers shared vertex buffers: CUDA's round k writes buffer k % kBuffers,
//     Vulkan's frame k draws buffer (k-1) % kBuffers, which CUDA's round k-1 wrote;
//   - Vulkan's frame k is two submissions. The hand-over waits for 2k (CUDA's
//     round k-1) at ALL_COMMANDS, acquires that buffer (M21) and signals 2k+1.
//     The draw follows with no signal: it draws, copies the image out and
//     releases the buffer (M21). CUDA's round k waits for 2k+1 and signals 2k+2.
//     The +2 schedule of step 4, but 2k+1 no longer means "Vulkan finished
//     reading": it means "frame k's buffer is acquired, and every submission
//     before this one finished", frame k-1's draw and release included
//     (a signal's first scope holds all earlier submissions of the queue). That
//     is what orders CUDA's write of buffer k % 2 after the draw that read it;
//   - the draw is long on purpose (kDrawRepeats instances of the triangles,
//     or --draw-repeats N): long enough that a GPU may switch to CUDA's
//     round k while it runs.
// Generalised to N buffers: CUDA's round k writes buffer k % N, last read by
// frame k-N+1's draw, finished before 2k+1 for any N >= 2 (frame k's hand-over
// follows it in the queue; with N = 1 it is draw k, which follows the
// hand-over: --break reuse). The wait cannot be lowered to frame k-N+1's value:
// on one timeline every signal must raise the value (CUDA's 2k+2 may not come
// before Vulkan's 2k+1), so each side waits for the other's previous signal and
// at most one draw runs beside one CUDA round. N = 2 is all one timeline can use.
// Broken on purpose: --break reuse (one buffer where two are needed: CUDA's
// round k rewrites the buffer frame k is drawing; the host lets CUDA run
// first, an order the schedule allows, so that it shows). --break list names it.
// Validation as in step 6: with VKSIM_VALIDATION=1.
// Usage: learn_10_frames_in_flight [--break reuse|list] [--draw-repeats N]
#include <cstdlib>
#include <string>
#include <vector>

#define LEARN_STEP 10

#include "common/breaks.h"
#include "common/offscreen.h"  // plain Vulkan drawing: target, pipeline, copy-out

constexpr uint32_t kRounds = 16;  // CUDA rounds 0..15; Vulkan frames 0..16 (frame k draws round k-1)
constexpr uint32_t kBuffers = 2;  // shared vertex buffers
constexpr uint32_t kDrawRepeats =
    32768;                         // instances per draw (--draw-repeats): milliseconds, not microseconds
constexpr uint32_t kTarget = 256;  // the image is kTarget x kTarget; 06_draw.vert says the same
constexpr uint32_t kGrid = 8;      // kGrid x kGrid triangles, one per 32-pixel cell
constexpr uint32_t kCell = kTarget / kGrid;
constexpr uint32_t kLeg = 14;  // each triangle: a right angle at (x0, y0), legs of kLeg pixels
constexpr uint32_t kTriangles = kGrid * kGrid;
constexpr uint32_t kBackground = 0xff000000u;  // the clear colour, RGBA8 as the CPU reads it

// One vertex, as the kernel writes it and 06_draw.vert reads it: a position
// in pixels (location 0, R32G32_SFLOAT) and a colour (location 1, R8G8B8A8_UNORM).
struct Vertex {
  float x, y;
  uint32_t rgba;  // r in the low byte
};
static_assert(sizeof(Vertex) == 12, "the pipeline's vertex stride");

// Triangle t's corner and colour in round r: it moves one pixel right and
// down per round (so the round's position is known), and its blue channel
// counts the rounds (so the round's colour is known).
__host__ __device__ inline uint32_t cornerX(uint32_t t, uint32_t round) {
  return (t % kGrid) * kCell + 1 + round;
}
__host__ __device__ inline uint32_t cornerY(uint32_t t, uint32_t round) {
  return (t / kGrid) * kCell + 1 + round;
}
__host__ __device__ inline uint32_t triangleColor(uint32_t t, uint32_t round) {
  return 0xff000000u | (16 * round + 15) << 16 | ((t / kGrid) * 32 + 31) << 8 | ((t % kGrid) * 32 + 31);
}

__global__ void moveTrianglesKernel(Vertex* vertices, uint32_t round) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= kTriangles) return;
  const float x = float(cornerX(t, round)), y = float(cornerY(t, round));
  const uint32_t color = triangleColor(t, round);
  vertices[3 * t + 0] = {x, y, color};
  vertices[3 * t + 1] = {x + kLeg, y, color};
  vertices[3 * t + 2] = {x, y + kLeg, color};
}

// Step 6's shaders, compiled for step 6 (learn/CMakeLists.txt).
static const uint32_t kVertexSpirv[] = {
#include "06_draw.vert.inc"
};
static const uint32_t kFragmentSpirv[] = {
#include "06_draw.frag.inc"
};

// Inside each triangle: this round's colour; just behind it (inside round
// k-1's triangle, outside this one): the clear colour. Only a draw that read
// CUDA's last write passes both. Returns the pixels checked.
uint32_t checkPixels(const uint32_t* pixels, uint32_t round) {
  uint32_t checked = 0;
  for (uint32_t t = 0; t < kTriangles; ++t, checked += 2) {
    const uint32_t x = cornerX(t, round), y = cornerY(t, round);
    const uint32_t inside = pixels[(y + 4) * kTarget + x + 4], behind = pixels[(y + 4) * kTarget + x - 1];
    EXPECT_OR_EXIT(inside == triangleColor(t, round),
                   "round %u: triangle %u's pixel (%u, %u) is 0x%08x, expected 0x%08x", round, t, x + 4,
                   y + 4, inside, triangleColor(t, round));
    EXPECT_OR_EXIT(behind == kBackground,
                   "round %u: pixel (%u, %u) behind triangle %u is 0x%08x, not the clear colour", round,
                   x - 1, y + 4, t, behind);
  }
  return checked;
}

// What the frames use (created in main). `buffers` used: kBuffers, or 1 with --break reuse.
struct Rig {
  Device device;
  std::vector<ExportedBuffer> shared;
  std::vector<CudaBuffer> cudaShared;
  std::vector<HostBuffer> images;  // one per CUDA round: the frame that drew it copies its image here
  VkCommandPool pool = VK_NULL_HANDLE;
  CudaTimeline timeline;  // Vulkan's timeline, CUDA's import, CUDA's stream (earlier.h)
  Offscreen target;
  VkPipeline pipeline = VK_NULL_HANDLE;
  uint32_t buffers = kBuffers;
  uint32_t drawRepeats = kDrawRepeats;
};

VkCommandBuffer beginCommands(const Rig& rig) {
  VkCommandBufferAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocateInfo.commandPool = rig.pool;
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;  // freed with the pool, after the end's fence
  VK_CHECK(vkAllocateCommandBuffers(rig.device.device, &allocateInfo, &commands));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(commands, &begin));
  return commands;
}

// Frame k's hand-over: waits for 2k at ALL_COMMANDS (M21: the wait covers the
// acquire), acquires the buffer CUDA's round k-1 wrote, signals 2k+1. Frame 0
// has nothing to wait for or acquire: it only signals 1.
void submitHandOver(const Rig& rig, uint32_t frame) {
  const uint64_t wait = 2 * uint64_t{frame}, signal = wait + 1;
  VkCommandBuffer commands = beginCommands(rig);
  if (frame > 0)
    recordBufferAcquire(commands, rig.shared[(frame - 1) % rig.buffers].buffer, rig.device.queueFamily,
                        VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT);
  VK_CHECK(vkEndCommandBuffer(commands));
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = frame > 0 ? 1 : 0;
  values.pWaitSemaphoreValues = &wait;
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = &signal;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
  submit.waitSemaphoreCount = frame > 0 ? 1 : 0;
  submit.pWaitSemaphores = &rig.timeline.timeline;
  submit.pWaitDstStageMask = &waitStage;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  submit.signalSemaphoreCount = 1;  // 2k+1: after every earlier submission of this queue
  submit.pSignalSemaphores = &rig.timeline.timeline;
  VK_CHECK(vkQueueSubmit(rig.device.queue, 1, &submit, VK_NULL_HANDLE));
}

// CUDA's round k: waits for 2k+1, writes round k into buffer k % buffers,
// signals 2k+2 (S2, S5). Runs while frame k's draw reads the other buffer.
void enqueueCudaRound(const Rig& rig, uint32_t round) {
  cudaWaitTimeline(rig.timeline, 2 * uint64_t{round} + 1);
  auto* vertices = static_cast<Vertex*>(rig.cudaShared[round % rig.buffers].pointer);
  moveTrianglesKernel<<<1, kTriangles, 0, rig.timeline.stream>>>(vertices, round);
  CUDA_CHECK(cudaGetLastError());
  cudaSignalTimeline(rig.timeline, 2 * uint64_t{round} + 2);
}

// Frame k's draw (k >= 1), after its hand-over in the queue: draws buffer
// (k-1) % buffers rig.drawRepeats times (kDrawRepeats unless --draw-repeats),
// copies the image to images[k-1], and releases the buffer to CUDA (M21)
// when a CUDA round writes it again. No signal: the next hand-over's signal
// is what CUDA waits for. The last frame carries `fence`, the host's only
// wait.
void submitDraw(const Rig& rig, uint32_t frame, VkFence fence) {
  const uint32_t round = frame - 1, buffer = round % rig.buffers;
  VkCommandBuffer commands = beginCommands(rig);
  beginOffscreen(commands, rig.target);  // cleared to kBackground
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, rig.pipeline);
  const VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(commands, 0, 1, &rig.shared[buffer].buffer, &offset);
  vkCmdDraw(commands, 3 * kTriangles, rig.drawRepeats, 0, 0);  // every instance draws the same triangles
  vkCmdEndRenderPass(commands);
  recordCopyOut(commands, rig.target, rig.images[round]);
  if (round + rig.buffers < kRounds)
    recordBufferRelease(commands, rig.shared[buffer].buffer, rig.device.queueFamily,
                        VK_PIPELINE_STAGE_VERTEX_INPUT_BIT);
  VK_CHECK(vkEndCommandBuffer(commands));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  VK_CHECK(vkQueueSubmit(rig.device.queue, 1, &submit, fence));
}

// BROKEN (--break reuse) only: the host lets CUDA's round k finish before it
// submits draw k. Any delay of the host is allowed, so this is one order the
// schedule permits; it makes the race certain where a GPU would otherwise
// finish each draw before it runs CUDA (the H200 did, in every run of
// 2026-12-04). Bounded, as every wait.
void letCudaRunFirst(const Rig& rig, uint32_t round) {
  const uint64_t value = 2 * uint64_t{round} + 2;
  VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wait.semaphoreCount = 1;
  wait.pSemaphores = &rig.timeline.timeline;
  wait.pValues = &value;
  const VkResult waited = vkWaitSemaphores(rig.device.device, &wait, kWaitNanoseconds);
  EXPECT_OR_EXIT(waited == VK_SUCCESS, "CUDA's round %u did not signal %llu within %llu s (%s)", round,
                 static_cast<unsigned long long>(value),
                 static_cast<unsigned long long>(kWaitNanoseconds / 1'000'000'000ull), string_VkResult(waited));
}

// Every frame submitted before the host waits once. Frame k: hand-over k,
// CUDA's round k, draw k; the last frame (kRounds) only draws.
void runFrames(const Rig& rig, VkFence fence) {
  for (uint32_t frame = 0; frame <= kRounds; ++frame) {
    submitHandOver(rig, frame);
    if (frame < kRounds) enqueueCudaRound(rig, frame);
    if (frame > 0 && frame < kRounds && rig.buffers == 1) letCudaRunFirst(rig, frame);  // BROKEN only
    if (frame > 0) submitDraw(rig, frame, frame == kRounds ? fence : VK_NULL_HANDLE);
  }
  const VkResult waited = vkWaitForFences(rig.device.device, 1, &fence, VK_TRUE, kWaitNanoseconds);
  EXPECT_OR_EXIT(
      waited == VK_SUCCESS, "the last frame did not finish within %llu s (%s): the schedule is stuck",
      static_cast<unsigned long long>(kWaitNanoseconds / 1'000'000'000ull), string_VkResult(waited));
}

VkPipeline createDrawPipeline(const Device& device, const Offscreen& target, VkPipelineLayout layout) {
  const VkVertexInputBindingDescription binding{0, sizeof(Vertex), VK_VERTEX_INPUT_RATE_VERTEX};
  const VkVertexInputAttributeDescription attributes[] = {{0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
                                                          {1, 0, VK_FORMAT_R8G8B8A8_UNORM, 8}};
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  input.vertexBindingDescriptionCount = 1;
  input.pVertexBindingDescriptions = &binding;
  input.vertexAttributeDescriptionCount = 2;
  input.pVertexAttributeDescriptions = attributes;
  return createOffscreenPipeline(device, target, layout, kVertexSpirv, sizeof(kVertexSpirv), kFragmentSpirv,
                                 sizeof(kFragmentSpirv), &input);
}

int main(int argc, char** argv) {
  gStepName = "learn 10";
  const std::string broken = takeBreakArgument(argc, argv,
                                               {{"reuse",
                                                 "one vertex buffer where two are needed: "
                                                 "CUDA rewrites the buffer the draw reads"}});
  uint32_t drawRepeats = kDrawRepeats;
  const bool repeatsGiven = argc == 3 && std::string(argv[1]) == "--draw-repeats";
  if (repeatsGiven) drawRepeats = uint32_t(std::atoi(argv[2]));
  if ((argc != 1 && !repeatsGiven) || drawRepeats < 1 || drawRepeats > 1'000'000)
    exitWith(kExitUsage, "usage: learn_10_frames_in_flight [--break reuse|list] [--draw-repeats 1..1000000]");
  Instance instance = createInstance();  // validation with VKSIM_VALIDATION=1
  const Pair pair = pairDevices(instance.instance);
  Device device = createTimelineDevice(pair);  // both fd extensions, timeline semaphores (M18)
  Rig rig{device};
  rig.buffers = broken == "reuse" ? 1 : kBuffers;  // BROKEN with 1: the draw and CUDA share one buffer
  rig.drawRepeats = drawRepeats;
  for (uint32_t i = 0; i < rig.buffers; ++i) {  // each its own exported allocation and import (M1-M9)
    rig.shared.push_back(createExportedBuffer(pair, device, 3 * kTriangles * sizeof(Vertex),
                                              VK_BUFFER_USAGE_VERTEX_BUFFER_BIT));
    rig.cudaShared.push_back(importIntoCuda(rig.shared[i], exportMemoryFd(device, rig.shared[i].memory)));
  }
  for (uint32_t i = 0; i < kRounds; ++i)
    rig.images.push_back(createHostBuffer(pair, device, VkDeviceSize{kTarget} * kTarget * 4));
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.queueFamilyIndex = device.queueFamily;
  VK_CHECK(vkCreateCommandPool(device.device, &poolInfo, nullptr, &rig.pool));
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFence(device.device, &fenceInfo, nullptr, &fence));
  rig.target = createOffscreen(pair, device, kTarget, kTarget);
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineLayout(device.device, &layoutInfo, nullptr, &layout));
  rig.pipeline = createDrawPipeline(device, rig.target, layout);
  // The timeline, its import, the stream; the kernel loaded before any wait (the lazy-loading trap).
  rig.timeline = createCudaTimeline(pair, device, reinterpret_cast<const void*>(moveTrianglesKernel));

  runFrames(rig, fence);
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round)
    checked += checkPixels(static_cast<const uint32_t*>(rig.images[round].mapped), round);
  uint64_t counter = 0;  // kRounds + 1 hand-overs and kRounds CUDA rounds: 2 * kRounds + 1
  VK_CHECK(vkGetSemaphoreCounterValue(device.device, rig.timeline.timeline, &counter));
  EXPECT_OR_EXIT(counter == 2 * uint64_t{kRounds} + 1, "the timeline reads %llu, expected %llu",
                 static_cast<unsigned long long>(counter), 2ull * kRounds + 1);

  // Teardown, CUDA first (S17, S18, M14, P9), then Vulkan's objects on an idle device.
  destroyCudaSideOfTimeline(rig.timeline);
  for (CudaBuffer& buffer : rig.cudaShared) destroyCudaBuffer(buffer);
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroySemaphore(device.device, rig.timeline.timeline, nullptr);
  vkDestroyPipeline(device.device, rig.pipeline, nullptr);
  vkDestroyPipelineLayout(device.device, layout, nullptr);
  destroyOffscreen(device, rig.target);
  vkDestroyFence(device.device, fence, nullptr);
  vkDestroyCommandPool(device.device, rig.pool, nullptr);  // frees every command buffer
  for (HostBuffer& image : rig.images) destroyHostBuffer(device, image);
  for (ExportedBuffer& buffer : rig.shared) destroyExportedBuffer(device, buffer);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  const uint32_t releases = kRounds - rig.buffers;  // none after a buffer's last CUDA round
  return finishStep(10, std::to_string(kRounds) + " rounds in flight, one host wait; " +
                            std::to_string(rig.buffers) + " vertex buffers, " + std::to_string(kRounds) +
                            " acquires and " + std::to_string(releases) + " releases; " +
                            std::to_string(checked) + " pixels checked in " + std::to_string(kRounds) +
                            " images; timeline at " + std::to_string(counter));
}
