// The Dear ImGui overlay: sync mode and the value schedule, simulation
// controls, statistics, devices, scenes and help. Drawn in the frame's render
// pass after the mesh. ImGui's Vulkan backend is compiled here with
// IMGUI_IMPL_VULKAN_NO_PROTOTYPES and loaded through volk's
// vkGetInstanceProcAddr (design notes: libimgui.a's own Vulkan backend must
// never be linked). Windowed runs use ImGui's GLFW backend; headless runs with
// --overlay have no GLFW at all and feed ImGui the display size, time and the
// mouse state from InputState themselves.
//
// Layering: this module sits BELOW app/app.h (App holds an Overlay) and takes
// only what it uses: the device, the render pass, the GLFW window, InputState.
// What reads or changes the whole App (the widgets, buildOverlay) is in
// app/ui/overlay_panels.h, above app/app.h; nothing here includes it.
#pragma once
#include <volk.h>

#include <cstdint>
#include <string>
#include <vector>

#include "app/ui/input.h"
#include "renderer/vulkan_context.h"
#include "sim/cuda/cuda_simulation.h"

struct GLFWwindow;

namespace vksim {

struct Overlay {
  bool created = false;                               // the ImGui context exists
  bool visible = true;                                // F1
  bool glfwBackend = false;                           // ImGui_ImplGlfw initialised (windowed runs)
  bool vulkanBackend = false;                         // ImGui_ImplVulkan initialised and the font uploaded
  GLFWwindow* window = nullptr;                       // windowed runs: ImGui's GLFW backend reads it
  VkDescriptorPool descriptorPool = VK_NULL_HANDLE;   // the font texture's descriptor set
  uint32_t minImageCount = 0;                         // what the Vulkan backend was last told
  int cudaDriverVersion = 0, cudaRuntimeVersion = 0;  // 0 = unknown
  std::string cudaUnavailableReason;
  // Scenes section.
  char sceneName[65] = "my-scene";
  char sceneDescription[256] = "";
  bool sceneOverwrite = false;
  std::vector<std::string> sceneNames;  // listScenes() when the section was last refreshed
  int selectedScene = 0;
  std::string sceneStatus;  // last save or load outcome, one line
  // Record section: a capture of recordFrames frames into recordPath.
  char recordPath[256] = "";  // empty: capture-<date>-<time>.csv in the working directory
  int recordFrames = 600;
  int recordLayout = 0;  // kRecordLayouts in overlay_panels.cpp: PresentMon 1.x, PresentMon 2.x, MangoHud
  std::vector<float> plotMilliseconds;  // the frame-time graph's samples, reused every frame
  bool hasDrawData = false;             // ImGui::Render ran this frame and the overlay is visible
  // ImGui's Vulkan backend keeps one vertex and one index buffer per image
  // (bufferSets of them) and replaces one, exactly sized, whenever a frame's
  // draw data outgrows it: a new allocation inside the frame (overlay.cpp
  // says what that cost). They are reserved at these sizes, in vertices and
  // indices, while the device is idle.
  uint32_t bufferSets = 0;
  uint64_t reservedVertices = 0, reservedIndices = 0;
  // Frames whose draw data outgrew the reserve (ImGui then allocated inside
  // the frame); outgrown: the last frame did, so reserve more at the next
  // frame boundary.
  uint64_t bufferGrowths = 0;
  bool outgrown = false;
  // The run loop asked for this frame's ImGui frame at its boundary
  // (buildOverlay): only then does the frame build the next one ahead
  // (buildOverlayAhead, app/ui/overlay_panels.h), so that a loop that stops
  // asking (the bench's rows without the overlay) gets none.
  bool askedThisFrame = false;
  // The ImGui frame that the next render draws was built during the frame
  // before, while its render ran: the frame boundary then builds none.
  bool builtAhead = false;
  // Host clock (base/host_clock.h) of the last ImGui frame's build, from
  // beginOverlayFrame to the end of endOverlayFrame: where it sat in the frame.
  int64_t lastBuildBeginNs = 0, lastBuildEndNs = 0;
  // Host clock of the last recordOverlay that recorded draws.
  int64_t lastRecordBeginNs = 0, lastRecordEndNs = 0;
  // The end of the last build and of the last recording that a frame's
  // timing took (app/frame_loop.cpp).
  int64_t takenBuildEndNs = 0, takenRecordEndNs = 0;
};

// Where the overlay draws: renderPass is the swapchain's or the offscreen
// target's (the overlay draws in the mesh's pass); `window` is the GLFW
// window of a windowed run, nullptr headless; swapchainMinImages and
// swapchainImages are the swapchain's (0 headless).
struct OverlayTarget {
  VkRenderPass renderPass = VK_NULL_HANDLE;
  GLFWwindow* window = nullptr;
  uint32_t swapchainMinImages = 0;
  uint32_t swapchainImages = 0;
};

// Creates the ImGui context and both backends for `target`, a descriptor
// pool of its own, and uploads the font texture (blocking, on device.queue). `cuda` is the run's CUDA device
// list (the Devices section shows its driver and runtime versions, or why there is none). `startScene` is the
// --scene the run began with (empty if none): the Scenes section then offers "<name>-copy" as the name to
// save under. Reserves ImGui's per-frame vertex and index buffers (kOverlayReservedVertices). Writes no
// imgui.ini. Throws RuntimeFailure when a backend does not initialise.
void createOverlay(Overlay& overlay, const Instance& instance, const Device& device, const OverlayTarget& target,
                   const CudaDeviceList& cuda, const std::string& startScene);

// After the device has finished every frame that drew the overlay. Safe on an
// overlay that was never (or only partly) created.
void destroyOverlay(Overlay& overlay, const Device& device);

// Starts an ImGui frame, at the frame boundary or, built ahead, during the
// frame before once its render is submitted (app/ui/overlay_panels.h);
// returns whether the caller should build the widgets now (the overlay
// exists and is visible), which it does before endOverlayFrame. swapchainMinImages is the swapchain's now (0
// headless): a new swapchain may want another count. Headless, ImGui gets
// the display size, the last frame's duration (lastFrameMilliseconds, < 0
// when none has run yet) and the mouse as `input` recorded it; the presses of the
// last frame are consumed. No-op (false) without an overlay.
// When the backend dropped its buffers (a new image count) or the last
// frame outgrew them, it waits for the device to be idle and reserves them
// again (blocking, on device.queue): one slow frame, rare.
bool beginOverlayFrame(Overlay& overlay, const Device& device, InputState& input, VkExtent2D displaySize,
                       double lastFrameMilliseconds, uint32_t swapchainMinImages);

// Ends what beginOverlayFrame started (ImGui::Render), so that recordOverlay
// has the frame's draw data; counts the frame in bufferGrowths when its draw
// data exceeds the reserve. No-op without an overlay.
void endOverlayFrame(Overlay& overlay);

// The vertices of what recordOverlay draws now: the last ImGui frame's, 0
// when it draws nothing (no overlay, hidden, or no frame built since
// hasDrawData was cleared).
uint64_t overlayDrawnVertices(const Overlay& overlay);

// Inside the render pass, after the mesh: draws what the last ImGui frame
// produced (nothing when hidden or absent). Records into commandBuffer only.
void recordOverlay(Overlay& overlay, VkCommandBuffer commandBuffer);

// Input events for ImGui, with GLFW's arguments (with a window: ImGui's GLFW
// backend callbacks; headless: the same updates of ImGuiIO). No-ops without
// an overlay.
void overlayKeyEvent(Overlay& overlay, int key, int scancode, int action, int mods);
void overlayCharEvent(Overlay& overlay, unsigned int codepoint);
void overlayMouseButtonEvent(Overlay& overlay, int button, int action, int mods);
void overlayScrollEvent(Overlay& overlay, double xOffset, double yOffset);
void overlayFocusEvent(Overlay& overlay, int focused);
void overlayCursorEnterEvent(Overlay& overlay, int entered);

// Whether ImGui claims the mouse (WantCaptureMouse) or a text field is being
// edited (WantTextInput), as of ImGui's last frame: the app then leaves the
// event to ImGui. False without an overlay or while hidden.
bool overlayWantsMouse(const Overlay& overlay);
bool overlayWantsKeyboard(const Overlay& overlay);

}  // namespace vksim
