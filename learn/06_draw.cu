// Step 6: Vulkan draws what CUDA wrote. Step 5's rounds, but the shared
// buffer is now a vertex buffer: each round CUDA moves a grid of triangles
// (and recolours them), and Vulkan renders them into an offscreen image,
// which the CPU checks; the last round's image is saved as a PNG.
//
// New against step 5:
//   - the buffer's usage is VERTEX_BUFFER: the export question (M19) is asked
//     for that usage, and the kernel writes vertices (position, colour);
//   - the acquire's second scope is the vertex input stage (VERTEX_INPUT,
//     VERTEX_ATTRIBUTE_READ): the draw is the first reader. The semaphore
//     wait in front of it stays at ALL_COMMANDS (M21);
//   - the release's first scope is the same stage: the draw read the buffer,
//     so CUDA's next write must wait for the draw, not only for a copy;
//   - a render pass, a pipeline (learn/shaders/06_draw.vert, .frag) and an
//     image of its own, which never crosses to CUDA: plain Vulkan, kept in
//     learn/common/offscreen.h;
//   - each round's image is copied out and checked at two pixels per
//     triangle: one inside it, which must have this round's colour, and one
//     just behind it, inside last round's triangle, which must be the clear
//     colour. Only a draw that read CUDA's last write passes both.
// Unchanged: the +2 timeline schedule, the acquire's wait at ALL_COMMANDS.
// Validation as before step 5: with VKSIM_VALIDATION=1 (the tests set it).
// Usage: learn_06_draw [out.png]   (default step06.png)
#include <string>

#include "common/offscreen.h"  // plain Vulkan drawing: target, pipeline, PNG

constexpr uint32_t kRounds = 16;
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

static const uint32_t kVertexSpirv[] = {
#include "06_draw.vert.inc"
};
static const uint32_t kFragmentSpirv[] = {
#include "06_draw.frag.inc"
};

// Records the release of `buffer` from `queueFamily` to VK_QUEUE_FAMILY_EXTERNAL
// (M21). First scope: the draw that read it (VERTEX_INPUT, step 5: the copy's
// TRANSFER); reads need no availability operation, so srcAccessMask is 0. The destination masks play
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
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
                       0, nullptr, 1, &toExternal, 0, nullptr);
}

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
  Offscreen target;  // the drawing (learn/common/offscreen.h)
  VkPipeline pipeline;
};

// Round k: render releases (k > 0) and signals 2k+1; CUDA waits for 2k+1,
// moves the triangles, signals 2k+2; the draw waits for 2k+2 at
// ALL_COMMANDS, acquires, draws and copies the image out; the CPU checks.
// Returns the pixels checked.
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
  const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
  const uint64_t cudaDone = 2 * uint64_t{round} + 2;

  // 1. Vulkan's render signals 2k+1. From round 1 on it first releases the
  //    buffer that round k-1's draw acquired: CUDA writes it next.
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
  moveTrianglesKernel<<<1, kTriangles, 0, stream>>>(static_cast<Vertex*>(cudaShared.pointer), round);
  CUDA_CHECK(cudaGetLastError());
  cudaExternalSemaphoreSignalParams signalParams{};
  signalParams.params.fence.value = cudaDone;  // S2: after the kernel in stream order
  CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&cudaTimeline, &signalParams, 1, stream));

  // 3. Vulkan's draw waits for 2k+2, acquires the buffer for the vertex
  //    input stage (its first reader), draws, copies the image out.
  VkCommandBuffer commands = beginOneShot(oneShot);
  VkBufferMemoryBarrier acquire{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};  // M21
  acquire.srcAccessMask = 0;
  acquire.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
  acquire.srcQueueFamilyIndex = VK_QUEUE_FAMILY_EXTERNAL;
  acquire.dstQueueFamilyIndex = device.queueFamily;
  acquire.buffer = shared.buffer;
  acquire.size = VK_WHOLE_SIZE;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0, 0,
                       nullptr, 1, &acquire, 0, nullptr);
  beginOffscreen(commands, rig.target);  // cleared to kBackground
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, rig.pipeline);
  const VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(commands, 0, 1, &shared.buffer, &offset);
  vkCmdDraw(commands, 3 * kTriangles, 1, 0, 0);
  vkCmdEndRenderPass(commands);  // the image is TRANSFER_SRC_OPTIMAL now
  recordCopyOut(commands, rig.target, host);
  const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;  // M21: covers the acquire
  VkTimelineSemaphoreSubmitInfo drawValues{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  drawValues.waitSemaphoreValueCount = 1;
  drawValues.pWaitSemaphoreValues = &cudaDone;
  VkSubmitInfo draw{VK_STRUCTURE_TYPE_SUBMIT_INFO, &drawValues};
  draw.waitSemaphoreCount = 1;
  draw.pWaitSemaphores = &timeline;
  draw.pWaitDstStageMask = &waitStage;
  submitAndWait(device, oneShot, draw);  // the host waits for the copy, to check it

  return checkPixels(static_cast<const uint32_t*>(host.mapped), round);
}

int main(int argc, char** argv) {
  gStepName = "learn 06";
  const char* pngPath = argc > 1 ? argv[1] : "step06.png";
  Instance instance = createInstance();  // validation with VKSIM_VALIDATION=1, as before step 5
  const Pair pair = pairDevices(instance.instance);
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  features12.timelineSemaphore = VK_TRUE;  // M18: timeline semaphores are core in 1.2, behind this feature
  Device device = createDevice(
      pair, {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME},
      &features12);
  const VkDeviceSize size = 3 * kTriangles * sizeof(Vertex);
  // M19, M20 for the usage the buffer has now: vertex input.
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
  CudaBuffer cudaShared = importIntoCuda(shared, exportMemoryFd(device, shared.memory));
  // The host buffer receives the image, copied out each round.
  HostBuffer host = createHostBuffer(pair, device, VkDeviceSize{kTarget} * kTarget * 4);
  OneShot oneShot = createOneShot(device);
  OneShot release = createOneShot(device);  // its buffer holds the release; its fence stays unused

  // The drawing (learn/common/offscreen.h): a kTarget x kTarget target and a
  // pipeline that reads the shared buffer as vertices (binding 0, stride 12).
  Offscreen target = createOffscreen(pair, device, kTarget, kTarget);
  const VkVertexInputBindingDescription binding{0, sizeof(Vertex), VK_VERTEX_INPUT_RATE_VERTEX};
  const VkVertexInputAttributeDescription attributes[] = {{0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
                                                          {1, 0, VK_FORMAT_R8G8B8A8_UNORM, 8}};
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  input.vertexBindingDescriptionCount = 1;
  input.pVertexBindingDescriptions = &binding;
  input.vertexAttributeDescriptionCount = 2;
  input.pVertexAttributeDescriptions = attributes;
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineLayout(device.device, &layoutInfo, nullptr, &layout));
  const VkPipeline pipeline =
      createOffscreenPipeline(device, target, layout, kVertexSpirv, sizeof(kVertexSpirv), kFragmentSpirv,
                              sizeof(kFragmentSpirv), &input);

  const VkSemaphore timeline = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_TIMELINE);
  cudaExternalSemaphore_t cudaTimeline = importSemaphoreIntoCuda(device, timeline, true);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // Load the kernel before any wait is enqueued: the lazy-loading trap (step 3).
  cudaFuncAttributes loaded{};
  CUDA_CHECK(cudaFuncGetAttributes(&loaded, moveTrianglesKernel));

  const Rig rig{device,   shared,       cudaShared, host,   oneShot, release,
                timeline, cudaTimeline, stream,     target, pipeline};
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) checked += runRound(rig, round);
  savePng(pngPath, target, host);  // the last round's image

  // The schedule's arithmetic, checked: N rounds end at 2N.
  uint64_t counter = 0;
  VK_CHECK(vkGetSemaphoreCounterValue(device.device, timeline, &counter));
  EXPECT_OR_EXIT(counter == 2 * uint64_t{kRounds}, "the timeline reads %llu after %u rounds, expected %llu",
                 static_cast<unsigned long long>(counter), kRounds, 2ull * kRounds);

  // Teardown as in step 5 (S17, S18, M14); the drawing objects once the
  // device is idle.
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaDestroyExternalSemaphore(cudaTimeline));
  destroyCudaBuffer(cudaShared);
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroySemaphore(device.device, timeline, nullptr);
  vkDestroyPipeline(device.device, pipeline, nullptr);
  vkDestroyPipelineLayout(device.device, layout, nullptr);
  destroyOffscreen(device, target);
  destroyOneShot(device, release);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  destroyExportedBuffer(device, shared);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(6, std::to_string(kRounds) + " rounds, " + std::to_string(kTriangles) +
                           " triangles drawn each; " + std::to_string(checked) +
                           " pixels checked (inside: this round's colour, behind: clear); " + pngPath +
                           " written; timeline at " + std::to_string(counter));
}
