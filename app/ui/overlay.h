// The Dear ImGui overlay: sync mode and the value schedule, simulation
// controls, statistics, devices, scenes and help. Drawn in the frame's render
// pass after the mesh. ImGui's Vulkan backend is compiled here with
// IMGUI_IMPL_VULKAN_NO_PROTOTYPES and loaded through volk's
// vkGetInstanceProcAddr (design notes: libimgui.a's own Vulkan backend must
// never be linked). Windowed runs use ImGui's GLFW backend; headless runs with
// --overlay have no GLFW at all and feed ImGui the display size, time and the
// mouse state from InputState themselves.
#pragma once
#include <volk.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vksim {

struct App;

struct Overlay {
  bool created = false;                               // the ImGui context exists
  bool visible = true;                                // F1
  bool glfwBackend = false;                           // ImGui_ImplGlfw initialised (windowed runs)
  bool vulkanBackend = false;                         // ImGui_ImplVulkan initialised and the font uploaded
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
  std::string sceneStatus;              // last save or load outcome, one line
  // Record section: a capture of recordFrames frames into recordPath.
  char recordPath[256] = "";  // empty: capture-<date>-<time>.csv in the working directory
  int recordFrames = 600;
  std::vector<float> plotMilliseconds;  // the frame-time graph's samples, reused every frame
  bool hasDrawData = false;             // ImGui::Render ran this frame and the overlay is visible
};

// Creates the ImGui context and both backends for app.renderPass (the
// swapchain's or the offscreen target's), a descriptor pool of its own, and
// uploads the font texture (blocking, on device.queue). Needs app.device,
// app.renderPass and, windowed, app.window and app.swapchain. Writes no
// imgui.ini. Throws RuntimeFailure when a backend does not initialise.
void createOverlay(App& app);

// After the device has finished every frame that drew the overlay.
void destroyOverlay(App& app);

// Once per frame at the frame boundary, before runFrame records it: starts an
// ImGui frame, builds the widgets (when visible) and ends it with
// ImGui::Render. Controls act through requestSyncMode and the requests in
// app/input.h, or Simulation::setParams for the parameters that need no new
// resources. No-op without an overlay.
void buildOverlay(App& app);

// Inside the render pass, after the mesh: draws what buildOverlay produced
// (nothing when hidden or absent). Records into commandBuffer only.
void recordOverlay(const App& app, VkCommandBuffer commandBuffer);

// Input events for ImGui, from app/input.cpp's callbacks (with a window:
// ImGui's GLFW backend callbacks; headless: the same updates of ImGuiIO).
void overlayKeyEvent(App& app, int key, int scancode, int action, int mods);
void overlayCharEvent(App& app, unsigned int codepoint);
void overlayMouseButtonEvent(App& app, int button, int action, int mods);
void overlayScrollEvent(App& app, double xOffset, double yOffset);
void overlayFocusEvent(App& app, int focused);
void overlayCursorEnterEvent(App& app, int entered);

// Whether ImGui claims the mouse (WantCaptureMouse) or a text field is being
// edited (WantTextInput), as of ImGui's last frame: the app then leaves the
// event to ImGui. False without an overlay or while hidden.
bool overlayWantsMouse(const App& app);
bool overlayWantsKeyboard(const App& app);

}  // namespace vksim
