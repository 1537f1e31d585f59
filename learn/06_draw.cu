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
//     so CUDA's next write must wait for the draw, not for a copy;
//   - a render pass, a pipeline (learn/shaders/06_draw.vert, .frag) and an
//     image of its own, which never crosses to CUDA: plain Vulkan, kept in
//     learn/common/offscreen.h;
//   - each round's image is copied out and checked at two pixels per
//     triangle: one inside it, which must have this round's colour, and one
//     just behind it, inside last round's triangle, which must be the clear
//     colour. Only a draw that read CUDA's last write passes both.
// Unchanged: the +2 timeline schedule, the acquire's wait at ALL_COMMANDS
// (steps 4 and 5's functions, from learn/common/earlier.h).
// Validation as before step 5: with VKSIM_VALIDATION=1 (the tests set it).
// Usage: learn_06_draw [--break early-draw | --break list] [out.png]   (default step06.png)
#include <string>

#define LEARN_STEP 6

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

// About 2 ms of a real simulation's work first, so that a draw that
// does not wait for the kernel (--break early-draw) reads the old vertices.
__global__ void moveTrianglesKernel(Vertex* vertices, uint32_t round) {
  for (int i = 0; i < 20; ++i) __nanosleep(100'000);
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

// The objects every round uses (created in main; destroyed at its end).
struct Rig {
  Device device;
  ExportedBuffer shared;
  CudaBuffer cudaShared;
  HostBuffer host;
  OneShot oneShot;
  OneShot release;        // its command buffer holds the release; its fence stays unused
  CudaTimeline timeline;  // the semaphore, CUDA's import, CUDA's stream
  Offscreen target;       // the drawing (learn/common/offscreen.h)
  VkPipeline pipeline;
};

// Round k: render releases (k > 0) and signals 2k+1; CUDA waits for 2k+1,
// moves the triangles, signals 2k+2; the draw waits for 2k+2 at
// ALL_COMMANDS, acquires, draws and copies the image out; the CPU checks.
// Returns the pixels checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
  const uint64_t cudaDone = 2 * uint64_t{round} + 2;

  // 1. Vulkan's render signals 2k+1. From round 1 on it first releases the
  //    buffer that round k-1's draw read, at the stage that read it.
  if (round > 0) recordBufferRelease(beginOneShot(rig.release), rig.shared.buffer, rig.device.queueFamily,
                                     VK_PIPELINE_STAGE_VERTEX_INPUT_BIT);
  submitSignal(rig.device, round > 0 ? &rig.release : nullptr, rig.timeline.timeline, &renderDone);

  // 2. CUDA waits until the value is at least 2k+1, moves the triangles,
  //    and sets it to 2k+2 (S5).
  cudaWaitTimeline(rig.timeline, renderDone);
  moveTrianglesKernel<<<1, kTriangles, 0, rig.timeline.stream>>>(static_cast<Vertex*>(rig.cudaShared.pointer),
                                                                 round);
  CUDA_CHECK(cudaGetLastError());
  cudaSignalTimeline(rig.timeline, cudaDone);

  // 3. Vulkan's draw waits for 2k+2 at ALL_COMMANDS, acquires the buffer for
  //    the vertex input stage (its first reader), draws, copies the image
  //    out; the host waits for the copy, to check it.
  VkCommandBuffer commands = beginOneShot(rig.oneShot);
  recordBufferAcquire(commands, rig.shared.buffer, rig.device.queueFamily, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                      VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT);
  beginOffscreen(commands, rig.target);  // cleared to kBackground
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, rig.pipeline);
  const VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(commands, 0, 1, &rig.shared.buffer, &offset);
  vkCmdDraw(commands, 3 * kTriangles, 1, 0, 0);
  vkCmdEndRenderPass(commands);  // the image is TRANSFER_SRC_OPTIMAL now
  recordCopyOut(commands, rig.target, rig.host);
  const uint64_t drawWaitsFor = breaking("early-draw") ? renderDone : cudaDone;  // BROKEN: 2k+1 is reached
  submitWaitingFor(rig.device, rig.oneShot, rig.timeline.timeline, &drawWaitsFor);

  return checkPixels(static_cast<const uint32_t*>(rig.host.mapped), round);
}

int main(int argc, char** argv) {
  gStepName = "learn 06";
  const char* pngArgument = parseArguments(
      argc, argv, {{"early-draw", "the draw waits for 2k+1, CUDA's input, not 2k+2: it reads the old vertices"}},
      "PNG");
  const char* pngPath = pngArgument != nullptr ? pngArgument : "step06.png";
  Instance instance = createInstance();  // validation with VKSIM_VALIDATION=1, as before step 5
  const Pair pair = pairDevices(instance.instance);
  Device device = createTimelineDevice(pair);
  const VkDeviceSize size = 3 * kTriangles * sizeof(Vertex);
  // M19, M20 for the usage the buffer has now: vertex input.
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
  CudaBuffer cudaShared = importIntoCuda(shared, exportMemoryFd(device, shared.memory));
  // The host buffer receives the image, copied out each round.
  HostBuffer host = createHostBuffer(pair, device, VkDeviceSize{kTarget} * kTarget * 4);
  OneShot oneShot = createOneShot(device);
  OneShot release = createOneShot(device);

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

  // One timeline semaphore, starting at 0, CUDA's import and stream; the
  // kernel loaded before any wait is enqueued (the lazy-loading trap, step 3).
  CudaTimeline timeline = createCudaTimeline(pair, device, reinterpret_cast<const void*>(moveTrianglesKernel));

  const Rig rig{device, shared, cudaShared, host, oneShot, release, timeline, target, pipeline};
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) checked += runRound(rig, round);
  savePng(pngPath, target, host);  // the last round's image

  // The schedule's arithmetic, checked: N rounds end at 2N.
  uint64_t counter = 0;
  VK_CHECK(vkGetSemaphoreCounterValue(device.device, timeline.timeline, &counter));
  EXPECT_OR_EXIT(counter == 2 * uint64_t{kRounds}, "the timeline reads %llu after %u rounds, expected %llu",
                 static_cast<unsigned long long>(counter), kRounds, 2ull * kRounds);

  // Teardown as in step 5 (S17, S18, M14); the drawing objects once the
  // device is idle.
  CUDA_CHECK(cudaStreamSynchronize(timeline.stream));
  destroyCudaBuffer(cudaShared);
  destroyCudaSideOfTimeline(timeline);
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroySemaphore(device.device, timeline.timeline, nullptr);
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
