// Step 11: the whole sample in one file. A GLFW window and its swapchain; a
// CUDA simulation (a ripple) that writes the shared vertex buffer in place
// every frame; Vulkan draws it and presents; the two sides take turns on the
// +2 timeline schedule or, switched live from an ImGui overlay, on two binary
// semaphores. The window can be resized. With --headless it draws into an
// offscreen image instead and writes the last frame as a PNG.
//
// New against steps 6 and 10:
//   - a surface, a swapchain and present (plain Vulkan: learn/common/window.h).
//     Present waits on a BINARY semaphore, renderFinished, which the render
//     submission signals beside the schedule's (the timeline, or renderDone): vkQueuePresentKHR takes no
//     semaphore values (VkPresentInfoKHR has none), so its waits must be
//     binary semaphores (the specification's valid usage for pWaitSemaphores).
//     The timeline orders Vulkan and CUDA; renderFinished orders present;
//   - two schedules, chosen per frame. Timeline: render k waits >= 2k and
//     signals 2k+1, CUDA's step k waits >= 2k+1 and signals 2k+2 (step 4).
//     Binary: render k waits simDone and signals renderDone, CUDA's step k
//     waits renderDone and signals simDone (step 3). Every wait uses the
//     semaphore its signal used: render k waits for what CUDA's step k-1
//     signalled, so a switch takes effect at a frame boundary, with nothing
//     left signalled and no value skipped backwards;
//   - CUDA's initial state (before frame 0) signals simDone: a wait for
//     ">= 0" would be no dependency at all;
//   - one frame in flight: the host waits for frame k-1's fence before it
//     records frame k (one vertex buffer, so the sides alternate anyway);
//   - resize: an out-of-date swapchain is recreated before anything of the
//     frame is submitted, so no semaphore value is lost;
//   - the drain: after the last frame, one Vulkan submission waits for CUDA's
//     last signal with the semaphore it used (simDone after a binary frame,
//     the timeline at 2k+2 after a timeline one). A binary simDone that
//     nobody waits for would be destroyed signalled (S18). The validation
//     layer does not see CUDA's signals, so the step counts each binary
//     semaphore's signals and waits and checks that they pair up.
// Broken on purpose: --break switch (the mode changes between Vulkan's half of a
// frame and CUDA's at frame 3: CUDA waits for a signal that never comes, so
// render 4's wait is never met and the wait for frame 4's fence gives up
// after kWaitNanoseconds with one line; with fewer than 4 frames nothing
// breaks). --break list names it.
// Usage: learn_11_whole_sample [--headless] [--frames N] [--switch-every N] [--out F.png] [--break NAME]
//   Window: runs until closed (or N frames). Headless: N frames (default 120), PNG (default step11.png).
//   --switch-every N: the overlay's switch flipped every N frames (the same flag a click sets).
#include <cmath>
#include <cstdlib>
#include <string>

#define LEARN_STEP 11

#include "common/breaks.h"
#include "common/window.h"  // GLFW, swapchain, overlay (and offscreen.h, earlier.h)

constexpr uint32_t kGrid = 96;  // kGrid x kGrid points, (kGrid-1)^2 cells of two triangles
constexpr uint32_t kVertices = (kGrid - 1) * (kGrid - 1) * 6;
constexpr uint32_t kHeadlessSize = 512;

struct Vertex {  // as in steps 6 and 10, but the position is in clip space (11_wave.vert)
  float x, y;
  uint32_t rgba;
};
static_assert(sizeof(Vertex) == 12, "the pipeline's vertex stride");

// The ripple's height at grid point (i, j) at `time` seconds, and where it is drawn.
__device__ Vertex wavePoint(uint32_t i, uint32_t j, float time) {
  const float u = float(i) / (kGrid - 1) - 0.5f, v = float(j) / (kGrid - 1) - 0.5f;
  const float r = sqrtf(u * u + v * v);
  const float height = 0.12f * sinf(28.0f * r - 4.0f * time) * expf(-3.0f * r);
  const uint32_t shade = uint32_t(fminf(fmaxf(160.0f + 700.0f * height, 0.0f), 255.0f));
  return {1.6f * u + 0.5f * v, 0.9f * v + 0.1f - 1.5f * height,
          0xff000000u | shade << 16 | (shade * 3 / 4) << 8 | 40};
}

// One thread per cell: its two triangles, far rows first (drawn over by nearer ones).
__global__ void rippleKernel(Vertex* vertices, float time) {
  const uint32_t cell = blockIdx.x * blockDim.x + threadIdx.x;
  if (cell >= (kGrid - 1) * (kGrid - 1)) return;
  const uint32_t i = cell % (kGrid - 1), j = cell / (kGrid - 1);
  const Vertex a = wavePoint(i, j, time), b = wavePoint(i + 1, j, time);
  const Vertex c = wavePoint(i, j + 1, time), d = wavePoint(i + 1, j + 1, time);
  Vertex* out = vertices + 6 * cell;
  out[0] = a, out[1] = b, out[2] = c, out[3] = b, out[4] = d, out[5] = c;
}

static const uint32_t kVertexSpirv[] = {
#include "11_wave.vert.inc"
};
static const uint32_t kFragmentSpirv[] = {
#include "11_wave.frag.inc"
};

enum class Mode { timeline, binary };

struct Options {
  bool headless = false;
  long frames = -1;  // window: until closed; headless: 120
  long switchEvery = 0;
  std::string out = "step11.png";
  bool breakSwitch = false;
};

long numberArgument(int argc, char** argv, int i) {
  char* end = nullptr;
  const long value = i + 1 < argc ? std::strtol(argv[i + 1], &end, 10) : -1;
  if (end == nullptr || *end != '\0' || value < 1 || value > 1'000'000)
    exitWith(kExitUsage, "%s needs a whole number from 1 to 1000000", argv[i]);
  return value;
}

Options parseOptions(int argc, char** argv) {
  Options options;
  options.breakSwitch = takeBreakArgument(argc, argv,
                                          {{"switch",
                                            "the sync mode changes in the middle of a frame, "
                                            "not at its boundary"}}) == "switch";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--headless")
      options.headless = true;
    else if (arg == "--frames")
      options.frames = numberArgument(argc, argv, i++);
    else if (arg == "--switch-every")
      options.switchEvery = numberArgument(argc, argv, i++);
    else if (arg == "--out" && i + 1 < argc)
      options.out = argv[++i];
    else
      exitWith(kExitUsage, "unknown argument '%s' (usage: see the top of learn/11_whole_sample.cu)",
               arg.c_str());
  }
  if (options.headless && options.frames < 0) options.frames = 120;
  return options;
}

// The semaphores both APIs share (S11), CUDA's imports of them, CUDA's stream.
struct Sync {
  VkSemaphore timeline, renderDone, simDone;
  cudaExternalSemaphore_t cudaTimeline, cudaRenderDone, cudaSimDone;
  cudaStream_t stream;
  Mode lastSimMode = Mode::binary;  // the initial state signals simDone
  uint64_t lastTimelineValue = 0;
  long renderDoneSignals = 0, renderDoneWaits = 0;  // each signal consumed by one wait (S3)
  long simDoneSignals = 0, simDoneWaits = 0;
};

Sync createSync(const Pair& pair, const Device& device) {
  Sync sync{};
  sync.timeline = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_TIMELINE);
  sync.renderDone = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_BINARY);
  sync.simDone = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_BINARY);
  sync.cudaTimeline = importSemaphoreIntoCuda(device, sync.timeline, true);
  sync.cudaRenderDone = importSemaphoreIntoCuda(device, sync.renderDone, false);
  sync.cudaSimDone = importSemaphoreIntoCuda(device, sync.simDone, false);
  CUDA_CHECK(cudaStreamCreateWithFlags(&sync.stream, cudaStreamNonBlocking));
  cudaFuncAttributes loaded{};  // the lazy-loading trap (step 3): loaded before any wait is enqueued
  CUDA_CHECK(cudaFuncGetAttributes(&loaded, rippleKernel));
  return sync;
}

// CUDA's step k (k = -1: the initial state, no wait): waits for render k's
// signal in `mode`, writes the vertices for time (k+1)/60 s, signals in `mode` (S2, S5, G4).
void enqueueSimulation(Sync& sync, void* vertices, long frame, Mode mode) {
  const uint64_t renderValue = 2 * uint64_t(frame) + 1, simValue = renderValue + 1;
  if (frame >= 0) {
    cudaExternalSemaphoreWaitParams waitParams{};
    waitParams.params.fence.value = renderValue;  // ignored for a binary semaphore
    CUDA_CHECK(cudaWaitExternalSemaphoresAsync(
        mode == Mode::timeline ? &sync.cudaTimeline : &sync.cudaRenderDone, &waitParams, 1, sync.stream));
    if (mode == Mode::binary) ++sync.renderDoneWaits;
  }
  rippleKernel<<<((kGrid - 1) * (kGrid - 1) + 255) / 256, 256, 0, sync.stream>>>(
      static_cast<Vertex*>(vertices), float(frame + 1) / 60.0f);
  CUDA_CHECK(cudaGetLastError());
  cudaExternalSemaphoreSignalParams signalParams{};
  signalParams.params.fence.value = simValue;
  const bool timeline = mode == Mode::timeline && frame >= 0;
  CUDA_CHECK(cudaSignalExternalSemaphoresAsync(timeline ? &sync.cudaTimeline : &sync.cudaSimDone,
                                               &signalParams, 1, sync.stream));
  sync.lastSimMode = timeline ? Mode::timeline : Mode::binary;
  if (timeline) sync.lastTimelineValue = simValue;
  if (!timeline) ++sync.simDoneSignals;
}

// Everything the frame loop uses (created in main).
struct Sample {
  Options options;
  Pair pair;
  Device device;
  GLFWwindow* window = nullptr;  // null when headless
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
  VkRenderPass renderPass = VK_NULL_HANDLE;  // the swapchain's, or the offscreen target's
  Swapchain swapchain;
  Offscreen target;     // headless only
  HostBuffer readBack;  // headless only: the last frame's pixels
  VkSemaphore imageAvailable = VK_NULL_HANDLE;
  bool resized = false;
  ExportedBuffer shared;
  CudaBuffer cudaShared;
  OneShot frame;  // one frame in flight: one command buffer, one fence
  bool frameSubmitted = false;
  VkPipeline pipeline = VK_NULL_HANDLE;
  Sync sync;
  Mode requested = Mode::timeline;  // what the overlay (or --switch-every) asks for
  long switches = 0;
};

// Waits for the previous frame's fence (every host wait is bounded).
void waitForPreviousFrame(Sample& sample, long frame) {
  if (!sample.frameSubmitted) return;
  const VkResult waited =
      vkWaitForFences(sample.device.device, 1, &sample.frame.fence, VK_TRUE, kWaitNanoseconds);
  EXPECT_OR_EXIT(waited == VK_SUCCESS, "frame %ld did not finish within %llu s (%s): the schedule is stuck",
                 frame - 1, static_cast<unsigned long long>(kWaitNanoseconds / 1'000'000'000ull),
                 string_VkResult(waited));
  VK_CHECK(vkResetFences(sample.device.device, 1, &sample.frame.fence));
  sample.frameSubmitted = false;
}

// The overlay's window: the switch (applied at the next frame boundary) and the schedule's state.
void buildOverlay(Sample& sample, long frame, Mode mode) {
  ImGui::SetNextWindowPos(ImVec2(10, 10));
  ImGui::Begin("learn 11", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  bool timeline = sample.requested == Mode::timeline;
  if (ImGui::Checkbox("timeline semaphore (off: two binary)", &timeline))
    sample.requested = timeline ? Mode::timeline : Mode::binary;
  ImGui::Text("frame %ld: %s", frame,
              mode == Mode::timeline ? "timeline, +2 a frame" : "binary renderDone/simDone");
  ImGui::Text("timeline value %llu, %ld switches",
              static_cast<unsigned long long>(sample.sync.lastTimelineValue), sample.switches);
  ImGui::End();
}

// Records frame k: the acquire of CUDA's vertices (M21), the wave and the
// overlay, the release back to CUDA (M21); headless: the copy-out.
VkCommandBuffer recordFrame(Sample& sample, VkFramebuffer framebuffer, VkExtent2D extent, bool copyOut) {
  VkCommandBuffer commands = beginOneShot(sample.frame);
  const VkBuffer buffer = sample.shared.buffer;
  recordBufferAcquire(commands, buffer, sample.device.queueFamily, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                      VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT);
  VkClearValue clear{};
  clear.color = {{0.02f, 0.03f, 0.06f, 1.0f}};
  VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  begin.renderPass = sample.renderPass;
  begin.framebuffer = framebuffer;
  begin.renderArea = {{0, 0}, extent};
  begin.clearValueCount = 1;
  begin.pClearValues = &clear;
  vkCmdBeginRenderPass(commands, &begin, VK_SUBPASS_CONTENTS_INLINE);
  setViewport(commands, extent);
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, sample.pipeline);
  const VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(commands, 0, 1, &buffer, &offset);
  vkCmdDraw(commands, kVertices, 1, 0, 0);
  ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), commands);
  vkCmdEndRenderPass(commands);
  recordBufferRelease(commands, buffer, sample.device.queueFamily, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT);
  if (copyOut) recordCopyOut(commands, sample.target, sample.readBack);
  VK_CHECK(vkEndCommandBuffer(commands));
  return commands;
}

// Render k's submission: waits for CUDA's step k-1 with the semaphore it
// signalled (at ALL_COMMANDS, M21) and, in a window, for the image; signals
// CUDA in `mode` and, in a window, renderFinished for present (binary).
void submitRender(Sample& sample, VkCommandBuffer commands, long frame, Mode mode, uint32_t image) {
  Sync& sync = sample.sync;
  const bool window = sample.window != nullptr;
  const uint64_t waitValue = 2 * uint64_t(frame), signalValue = waitValue + 1, unused = 0;
  const VkSemaphore waits[] = {sync.lastSimMode == Mode::timeline ? sync.timeline : sync.simDone,
                               sample.imageAvailable};
  const uint64_t waitValues[] = {waitValue, unused};  // a binary semaphore's value is ignored
  const VkPipelineStageFlags stages[] = {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                         VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT};
  const VkSemaphore signals[] = {mode == Mode::timeline ? sync.timeline : sync.renderDone,
                                 window ? sample.swapchain.renderFinished[image] : VK_NULL_HANDLE};
  const uint64_t signalValues[] = {signalValue, unused};
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = window ? 2 : 1;
  values.pWaitSemaphoreValues = waitValues;
  values.signalSemaphoreValueCount = window ? 2 : 1;
  values.pSignalSemaphoreValues = signalValues;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
  submit.waitSemaphoreCount = window ? 2 : 1;
  submit.pWaitSemaphores = waits;
  submit.pWaitDstStageMask = stages;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  submit.signalSemaphoreCount = window ? 2 : 1;
  submit.pSignalSemaphores = signals;
  VK_CHECK(vkQueueSubmit(sample.device.queue, 1, &submit, sample.frame.fence));
  sample.frameSubmitted = true;
  if (mode == Mode::timeline) sync.lastTimelineValue = signalValue;
  if (sync.lastSimMode == Mode::binary) ++sync.simDoneWaits;
  if (mode == Mode::binary) ++sync.renderDoneSignals;
}

Presentation presentationOf(const Sample& sample) {
  return {sample.pair.physical, sample.window, sample.surface, sample.format, sample.renderPass};
}

// The swapchain again at the window's size, at a frame boundary; false while minimised.
bool recreateForWindow(Sample& sample) {
  int width = 0, height = 0;
  glfwGetFramebufferSize(sample.window, &width, &height);
  if (width == 0 || height == 0) return false;
  VK_CHECK(vkDeviceWaitIdle(sample.device.device));  // the old images and semaphores are idle
  recreateSwapchain(sample.device, presentationOf(sample), sample.swapchain);
  sample.resized = false;
  return true;
}

// Frame k: the mode fixed for the whole frame; an image (window); the
// overlay; render k; present; CUDA's step k. Returns false when the frame
// was skipped (window minimised or out of date) before anything was submitted.
bool runFrame(Sample& sample, long frame) {
  waitForPreviousFrame(sample, frame);
  uint32_t image = 0;
  VkExtent2D extent{kHeadlessSize, kHeadlessSize};
  VkFramebuffer framebuffer = sample.target.framebuffer;
  if (sample.window != nullptr) {
    if (sample.resized && !recreateForWindow(sample)) return false;
    const VkResult acquired =
        vkAcquireNextImageKHR(sample.device.device, sample.swapchain.swapchain, kWaitNanoseconds,
                              sample.imageAvailable, VK_NULL_HANDLE, &image);
    if (acquired == VK_ERROR_OUT_OF_DATE_KHR) {  // nothing submitted: no value lost
      recreateForWindow(sample);
      return false;
    }
    if (acquired != VK_SUBOPTIMAL_KHR) VK_CHECK(acquired);
    extent = sample.swapchain.extent;
    framebuffer = sample.swapchain.framebuffers[image];
  }
  // The frame boundary: the one place where the requested mode is taken.
  if (sample.options.switchEvery > 0 && frame > 0 && frame % sample.options.switchEvery == 0)
    sample.requested = sample.requested == Mode::timeline ? Mode::binary : Mode::timeline;
  const Mode mode = sample.requested;
  if (frame > 0 && mode != sample.sync.lastSimMode) ++sample.switches;
  if (sample.window != nullptr) {
    ImGui_ImplGlfw_NewFrame();
  } else {  // headless: the display is the offscreen target, 60 frames a second
    ImGui::GetIO().DisplaySize = ImVec2(float(extent.width), float(extent.height));
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
  }
  ImGui_ImplVulkan_NewFrame();
  ImGui::NewFrame();
  buildOverlay(sample, frame, mode);
  ImGui::Render();
  const bool last = sample.options.frames > 0 && frame + 1 == sample.options.frames;
  submitRender(sample, recordFrame(sample, framebuffer, extent, sample.window == nullptr && last), frame,
               mode, image);
  if (sample.window != nullptr) {
    VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    present.waitSemaphoreCount = 1;  // binary: present takes no values
    present.pWaitSemaphores = &sample.swapchain.renderFinished[image];
    present.swapchainCount = 1;
    present.pSwapchains = &sample.swapchain.swapchain;
    present.pImageIndices = &image;
    const VkResult presented = vkQueuePresentKHR(sample.device.queue, &present);
    if (presented == VK_ERROR_OUT_OF_DATE_KHR || presented == VK_SUBOPTIMAL_KHR)
      sample.resized = true;
    else
      VK_CHECK(presented);
  }
  // BROKEN with --break switch: the mode flips here, between render k and
  // CUDA's step k, so CUDA waits on a semaphore render k did not signal.
  const Mode simMode = sample.options.breakSwitch && frame == 3
                           ? (mode == Mode::timeline ? Mode::binary : Mode::timeline)
                           : mode;
  enqueueSimulation(sample.sync, sample.cudaShared.pointer, frame, simMode);
  return true;
}

void createPresentation(Sample& sample) {
  if (sample.window == nullptr) {
    sample.target = createOffscreen(sample.pair, sample.device, kHeadlessSize, kHeadlessSize);
    sample.renderPass = sample.target.renderPass;
    sample.readBack =
        createHostBuffer(sample.pair, sample.device, VkDeviceSize{kHeadlessSize} * kHeadlessSize * 4);
    return;
  }
  VkBool32 presentable = VK_FALSE;
  VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(sample.pair.physical, sample.pair.queueFamily, sample.surface,
                                                &presentable));
  if (!presentable)
    exitWith(kExitMissing, "the paired device's queue family cannot present to this window; run with --headless "
                           "or, on a laptop with two GPUs, with __NV_PRIME_RENDER_OFFLOAD=1 "
                           "__VK_LAYER_NV_optimus=NVIDIA_only");
  sample.format = chooseSurfaceFormat(sample.pair.physical, sample.surface);
  sample.renderPass = createPresentRenderPass(sample.device, sample.format);
  recreateSwapchain(sample.device, presentationOf(sample), sample.swapchain);
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VK_CHECK(vkCreateSemaphore(sample.device.device, &info, nullptr, &sample.imageAvailable));
}

VkPipeline createWavePipeline(const Sample& sample, VkPipelineLayout layout) {
  const VkVertexInputBindingDescription binding{0, sizeof(Vertex), VK_VERTEX_INPUT_RATE_VERTEX};
  const VkVertexInputAttributeDescription attributes[] = {{0, 0, VK_FORMAT_R32G32_SFLOAT, 0},
                                                          {1, 0, VK_FORMAT_R8G8B8A8_UNORM, 8}};
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  input.vertexBindingDescriptionCount = 1;
  input.pVertexBindingDescriptions = &binding;
  input.vertexAttributeDescriptionCount = 2;
  input.pVertexAttributeDescriptions = attributes;
  const ShaderPair shaders{kVertexSpirv, sizeof(kVertexSpirv), kFragmentSpirv, sizeof(kFragmentSpirv)};
  return createWindowPipeline(sample.device, sample.renderPass, layout, shaders, &input);
}

// The drain, after the last frame (S17, S18): one submission that waits for
// CUDA's last signal with the semaphore it used, whatever mode the last frame
// ran in: simDone (binary: the wait consumes the signal, so no binary
// semaphore is destroyed signalled) or the timeline at CUDA's last value.
// Then every wait and signal on the shared semaphores has completed, and
// each binary signal has had its wait (main checks the counts: the layer
// cannot see CUDA's signals).
void drainSchedule(Sample& sample) {
  Sync& sync = sample.sync;
  const bool timeline = sync.lastSimMode == Mode::timeline;
  const VkSemaphore wait = timeline ? sync.timeline : sync.simDone;
  const uint64_t waitValue = timeline ? sync.lastTimelineValue : 0;  // ignored for simDone
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.waitSemaphoreValueCount = 1;
  values.pWaitSemaphoreValues = &waitValue;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &wait;
  submit.pWaitDstStageMask = &stage;
  VK_CHECK(vkQueueSubmit(sample.device.queue, 1, &submit, sample.frame.fence));
  if (!timeline) ++sync.simDoneWaits;
  const VkResult waited =  // bounded, as every host wait
      vkWaitForFences(sample.device.device, 1, &sample.frame.fence, VK_TRUE, kWaitNanoseconds);
  EXPECT_OR_EXIT(waited == VK_SUCCESS, "the drain did not finish within %llu s (%s): CUDA's last signal never came",
                 static_cast<unsigned long long>(kWaitNanoseconds / 1'000'000'000ull), string_VkResult(waited));
  VK_CHECK(vkResetFences(sample.device.device, 1, &sample.frame.fence));
}

// Teardown, CUDA first (S17, S18, M14, P9): its stream idle, its imports and
// mapping gone; then Vulkan's objects on an idle device, newest first.
void destroySample(Sample& sample, VkPipelineLayout layout, VkDescriptorPool overlayPool) {
  Sync& sync = sample.sync;
  CUDA_CHECK(cudaStreamSynchronize(sync.stream));
  CUDA_CHECK(cudaStreamDestroy(sync.stream));
  for (cudaExternalSemaphore_t semaphore : {sync.cudaTimeline, sync.cudaRenderDone, sync.cudaSimDone})
    CUDA_CHECK(cudaDestroyExternalSemaphore(semaphore));
  destroyCudaBuffer(sample.cudaShared);
  const VkDevice device = sample.device.device;
  VK_CHECK(vkDeviceWaitIdle(device));
  for (VkSemaphore semaphore : {sync.timeline, sync.renderDone, sync.simDone})
    vkDestroySemaphore(device, semaphore, nullptr);
  destroyOverlay(sample.device, sample.window, overlayPool);
  vkDestroyPipeline(device, sample.pipeline, nullptr);
  vkDestroyPipelineLayout(device, layout, nullptr);
  destroyOneShot(sample.device, sample.frame);
  destroyExportedBuffer(sample.device, sample.shared);
  if (sample.window == nullptr) {
    destroyHostBuffer(sample.device, sample.readBack);
    destroyOffscreen(sample.device, sample.target);
  } else {
    vkDestroySemaphore(device, sample.imageAvailable, nullptr);
    destroySwapchainParts(sample.device, sample.swapchain);
    vkDestroySwapchainKHR(device, sample.swapchain.swapchain, nullptr);
    vkDestroyRenderPass(device, sample.renderPass, nullptr);
  }
  vkDestroyDevice(device, nullptr);
}

int main(int argc, char** argv) {
  gStepName = "learn 11";
  Sample sample;
  sample.options = parseOptions(argc, argv);
  const bool headless = sample.options.headless;
  if (!headless) sample.window = createWindow(1280, 720, "learn 11: the whole sample", &sample.resized);
  Instance instance = createInstance(headless ? std::vector<const char*>{} : windowExtensions());
  sample.pair = pairDevices(instance.instance);  // exit 3 here without CUDA, window or not
  if (!headless) {
    requireDisplayForDriver(sample.pair.physical);  // exit 3 before NVIDIA's driver meets the window
    VK_CHECK(glfwCreateWindowSurface(instance.instance, sample.window, nullptr, &sample.surface));
  }
  VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  features12.timelineSemaphore = VK_TRUE;  // M18
  std::vector<const char*> extensions{VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                                      VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
  if (!headless) extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  sample.device = createDevice(sample.pair, extensions, &features12);
  createPresentation(sample);
  // The shared vertex buffer (M1-M9, M19, M20), written by CUDA, drawn by Vulkan.
  sample.shared = createExportedBuffer(sample.pair, sample.device, kVertices * sizeof(Vertex),
                                       VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
  sample.cudaShared = importIntoCuda(sample.shared, exportMemoryFd(sample.device, sample.shared.memory));
  sample.frame = createOneShot(sample.device);
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineLayout(sample.device.device, &layoutInfo, nullptr, &layout));
  sample.pipeline = createWavePipeline(sample, layout);
  const VkDescriptorPool overlayPool = createOverlay(instance.instance, sample.pair, sample.device,
                                                     sample.renderPass, sample.window, sample.frame);
  sample.sync = createSync(sample.pair, sample.device);

  enqueueSimulation(sample.sync, sample.cudaShared.pointer, -1, Mode::binary);  // the initial state: simDone
  long frame = 0;
  while ((sample.options.frames < 0 || frame < sample.options.frames) &&
         (headless || !glfwWindowShouldClose(sample.window))) {
    if (!headless) glfwPollEvents();
    if (runFrame(sample, frame))
      ++frame;
    else if (!headless)
      glfwWaitEventsTimeout(0.1);  // minimised: nothing to draw into
  }
  waitForPreviousFrame(sample, frame);
  drainSchedule(sample);
  if (headless) savePng(sample.options.out.c_str(), sample.target, sample.readBack);
  const uint64_t expected = sample.sync.lastTimelineValue;  // the last timeline signal, Vulkan's or CUDA's
  uint64_t counter = 0;
  CUDA_CHECK(cudaStreamSynchronize(sample.sync.stream));  // CUDA's last signal made
  VK_CHECK(vkGetSemaphoreCounterValue(sample.device.device, sample.sync.timeline, &counter));
  EXPECT_OR_EXIT(counter == expected, "the timeline reads %llu, expected %llu",
                 static_cast<unsigned long long>(counter), static_cast<unsigned long long>(expected));
  const Sync& sync = sample.sync;  // S3, S18: each binary signal consumed by exactly one wait
  EXPECT_OR_EXIT(sync.simDoneSignals == sync.simDoneWaits && sync.renderDoneSignals == sync.renderDoneWaits,
                 "a binary semaphore is left signalled: simDone signalled %ld times and waited %ld times, "
                 "renderDone signalled %ld times and waited %ld times",
                 sync.simDoneSignals, sync.simDoneWaits, sync.renderDoneSignals, sync.renderDoneWaits);
  destroySample(sample, layout, overlayPool);
  if (sample.surface != VK_NULL_HANDLE) vkDestroySurfaceKHR(instance.instance, sample.surface, nullptr);
  destroyInstance(instance);
  if (sample.window != nullptr) glfwDestroyWindow(sample.window), glfwTerminate();
  return finishStep(11, std::to_string(frame) + " frames, " + std::to_string(sample.switches) +
                            " switches between timeline and binary at frame boundaries; timeline at " +
                            std::to_string(counter) +
                            (headless ? "; " + sample.options.out + " written" : ""));
}
