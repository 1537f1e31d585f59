#include "app/ui/overlay.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>

#include "app/app.h"
#include "app/ui/overlay_panels.h"
#include "renderer/frame_sync.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

// ImGui's Vulkan backend calls this with every result, VK_SUCCESS included.
void checkImGuiVulkanResult(VkResult result) {
  if (result != VK_SUCCESS) failVulkanCall("ImGui Vulkan backend call", result, __FILE__, __LINE__);
}

// The backend is compiled with IMGUI_IMPL_VULKAN_NO_PROTOTYPES: every vk*
// it calls comes from here, through volk's vkGetInstanceProcAddr. Device
// functions fetched from the instance are the loader's trampolines, which
// dispatch to the device they are called with.
PFN_vkVoidFunction loadVulkanFunction(const char* name, void* instance) {
  return vkGetInstanceProcAddr(static_cast<VkInstance>(instance), name);
}

// What ImGui's GLFW backend does in its init, for the headless overlay,
// which has no GLFW: keys arrive as GLFW_KEY_* codes from the input script.
void mapHeadlessKeys(ImGuiIO& io) {
  const std::pair<ImGuiKey, int> keys[] = {
      {ImGuiKey_Tab, GLFW_KEY_TAB},
      {ImGuiKey_LeftArrow, GLFW_KEY_LEFT},
      {ImGuiKey_RightArrow, GLFW_KEY_RIGHT},
      {ImGuiKey_UpArrow, GLFW_KEY_UP},
      {ImGuiKey_DownArrow, GLFW_KEY_DOWN},
      {ImGuiKey_Home, GLFW_KEY_HOME},
      {ImGuiKey_End, GLFW_KEY_END},
      {ImGuiKey_Delete, GLFW_KEY_DELETE},
      {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
      {ImGuiKey_Space, GLFW_KEY_SPACE},
      {ImGuiKey_Enter, GLFW_KEY_ENTER},
      {ImGuiKey_Escape, GLFW_KEY_ESCAPE},
      {ImGuiKey_A, GLFW_KEY_A},
      {ImGuiKey_C, GLFW_KEY_C},
      {ImGuiKey_V, GLFW_KEY_V},
      {ImGuiKey_X, GLFW_KEY_X},
      {ImGuiKey_Y, GLFW_KEY_Y},
      {ImGuiKey_Z, GLFW_KEY_Z},
  };
  for (const auto& [imguiKey, glfwKey] : keys) io.KeyMap[imguiKey] = glfwKey;
}

VkDescriptorPool createFontDescriptorPool(const Device& device) {
  // ImGui 1.86 allocates exactly one descriptor set, for the font texture,
  // and never frees it: the pool's destruction does.
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.maxSets = 1;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorPool(device.device, &info, nullptr, &pool));
  return pool;
}

// The backend needs MinImageCount >= 2 whatever the surface reports; it only
// sizes its per-frame vertex buffers by it, and this app has one frame in
// flight (the fence wait at the top of runFrame), so 2 is always enough.
uint32_t backendMinImageCount(const App& app) {
  return app.headless ? 2u : std::max(2u, app.swapchain.minImageCount);
}

// The headless overlay's platform backend: display size, time and the mouse
// as InputState recorded it from the input script.
void newHeadlessFrame(App& app) {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(app.offscreen.extent.width), float(app.offscreen.extent.height));
  io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
  const double milliseconds = app.frameMilliseconds.empty() ? 1000.0 / 60.0 : app.frameMilliseconds.back();
  io.DeltaTime = float(std::max(milliseconds, 0.01) / 1000.0);  // ImGui asserts a positive step
  InputState& input = app.input;
  io.MousePos =
      input.cursorKnown ? ImVec2(float(input.cursorX), float(input.cursorY)) : ImVec2(-FLT_MAX, -FLT_MAX);
  for (int i = 0; i < kMouseButtons; ++i) {
    io.MouseDown[i] = input.buttonDown[i] || input.buttonPressed[i];
    input.buttonPressed[i] = false;
  }
}

}  // namespace

void createOverlay(App& app) {
  Overlay& overlay = app.overlay;
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  overlay.created = true;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini in the working directory: runs stay reproducible
  io.LogFilename = nullptr;
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.Colors[ImGuiCol_WindowBg].w = 0.88f;

  if (app.window.handle) {
    // install_callbacks = false: app/input.cpp owns the GLFW callbacks and
    // hands every event to ImGui first (overlayKeyEvent and friends).
    if (!ImGui_ImplGlfw_InitForVulkan(app.window.handle, false))
      throw RuntimeFailure("ImGui's GLFW backend did not initialise");
    overlay.glfwBackend = true;
  } else {
    io.BackendPlatformName = "vkcuda-sim headless";
    mapHeadlessKeys(io);
  }

  // Design notes: ImGui 1.86's loader also fetches the surface and swapchain
  // functions and fails when the instance lacks VK_KHR_surface, which
  // createInstance therefore always enables.
  if (!ImGui_ImplVulkan_LoadFunctions(loadVulkanFunction, app.instance.instance))
    throw RuntimeFailure("ImGui's Vulkan backend could not load its Vulkan functions");
  overlay.descriptorPool = createFontDescriptorPool(app.device);
  overlay.minImageCount = backendMinImageCount(app);

  ImGui_ImplVulkan_InitInfo info{};
  info.Instance = app.instance.instance;
  info.PhysicalDevice = app.device.physical;
  info.Device = app.device.device;
  info.QueueFamily = app.device.queueFamily;
  info.Queue = app.device.queue;
  info.DescriptorPool = overlay.descriptorPool;
  info.Subpass = 0;
  info.MinImageCount = overlay.minImageCount;
  info.ImageCount = std::max<uint32_t>(overlay.minImageCount, uint32_t(app.swapchain.images.size()));
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  info.CheckVkResultFn = checkImGuiVulkanResult;
  // The pipeline is built for this render pass: the mesh's, so the overlay
  // draws into the same pass (one colour and one depth attachment).
  if (!ImGui_ImplVulkan_Init(&info, app.renderPass))
    throw RuntimeFailure("ImGui's Vulkan backend did not initialise");
  overlay.vulkanBackend = true;
  runOneTimeCommands(app.device, [](VkCommandBuffer commandBuffer) {
    if (!ImGui_ImplVulkan_CreateFontsTexture(commandBuffer))
      throw RuntimeFailure("ImGui's font texture could not be created");
  });
  ImGui_ImplVulkan_DestroyFontUploadObjects();  // the staging buffer; the upload has completed

  const CudaDeviceList cuda = listCudaDevices();
  overlay.cudaDriverVersion = cuda.driverVersion;
  overlay.cudaRuntimeVersion = cuda.runtimeVersion;
  overlay.cudaUnavailableReason = cuda.unavailableReason;
  if (!app.options.sceneName.empty())
    std::snprintf(overlay.sceneName, sizeof overlay.sceneName, "%s-copy", app.options.sceneName.c_str());
}

void destroyOverlay(App& app) {
  Overlay& overlay = app.overlay;
  if (overlay.vulkanBackend) ImGui_ImplVulkan_Shutdown();
  if (overlay.glfwBackend) ImGui_ImplGlfw_Shutdown();
  if (overlay.created) ImGui::DestroyContext();
  if (overlay.descriptorPool) vkDestroyDescriptorPool(app.device.device, overlay.descriptorPool, nullptr);
  overlay = Overlay{};
}

void buildOverlay(App& app) {
  Overlay& overlay = app.overlay;
  if (!overlay.vulkanBackend) return;
  // A new swapchain may want a different image count (FIFO and MAILBOX
  // differ). SetMinImageCount waits for the device itself; we are at a frame
  // boundary, so that costs one frame at most.
  if (const uint32_t count = backendMinImageCount(app); count != overlay.minImageCount) {
    ImGui_ImplVulkan_SetMinImageCount(count);
    overlay.minImageCount = count;
  }
  if (overlay.glfwBackend)
    ImGui_ImplGlfw_NewFrame();
  else
    newHeadlessFrame(app);
  ImGui_ImplVulkan_NewFrame();
  ImGui::NewFrame();
  if (overlay.visible) drawOverlayWindow(app);
  ImGui::Render();
  overlay.hasDrawData = overlay.visible;
}

void recordOverlay(const App& app, VkCommandBuffer commandBuffer) {
  if (!app.overlay.vulkanBackend || !app.overlay.hasDrawData) return;
  ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), commandBuffer);
}

void overlayKeyEvent(App& app, int key, int scancode, int action, int mods) {
  if (!app.overlay.created) return;
  if (app.overlay.glfwBackend) {
    ImGui_ImplGlfw_KeyCallback(app.window.handle, key, scancode, action, mods);
    return;
  }
  ImGuiIO& io = ImGui::GetIO();
  if (key >= 0 && key < IM_ARRAYSIZE(io.KeysDown)) io.KeysDown[key] = action != GLFW_RELEASE;
  io.KeyCtrl = (mods & GLFW_MOD_CONTROL) != 0;
  io.KeyShift = (mods & GLFW_MOD_SHIFT) != 0;
  io.KeyAlt = (mods & GLFW_MOD_ALT) != 0;
  io.KeySuper = (mods & GLFW_MOD_SUPER) != 0;
}

void overlayCharEvent(App& app, unsigned int codepoint) {
  if (!app.overlay.created) return;
  if (app.overlay.glfwBackend)
    ImGui_ImplGlfw_CharCallback(app.window.handle, codepoint);
  else
    ImGui::GetIO().AddInputCharacter(codepoint);
}

void overlayMouseButtonEvent(App& app, int button, int action, int mods) {
  // Headless: newHeadlessFrame reads the buttons from InputState.
  if (app.overlay.created && app.overlay.glfwBackend)
    ImGui_ImplGlfw_MouseButtonCallback(app.window.handle, button, action, mods);
}

void overlayScrollEvent(App& app, double xOffset, double yOffset) {
  if (!app.overlay.created) return;
  if (app.overlay.glfwBackend) {
    ImGui_ImplGlfw_ScrollCallback(app.window.handle, xOffset, yOffset);
    return;
  }
  ImGuiIO& io = ImGui::GetIO();
  io.MouseWheelH += float(xOffset);
  io.MouseWheel += float(yOffset);
}

void overlayFocusEvent(App& app, int focused) {
  if (app.overlay.created && app.overlay.glfwBackend)
    ImGui_ImplGlfw_WindowFocusCallback(app.window.handle, focused);
}

void overlayCursorEnterEvent(App& app, int entered) {
  if (app.overlay.created && app.overlay.glfwBackend)
    ImGui_ImplGlfw_CursorEnterCallback(app.window.handle, entered);
}

bool overlayWantsMouse(const App& app) {
  return app.overlay.created && app.overlay.visible && ImGui::GetIO().WantCaptureMouse;
}

bool overlayWantsKeyboard(const App& app) {
  // WantTextInput, not WantCaptureKeyboard: the latter stays true for a frame
  // after any click on a widget, which would swallow a shortcut pressed just
  // after it; only a text field being edited should take the keys.
  return app.overlay.created && app.overlay.visible && ImGui::GetIO().WantTextInput;
}

}  // namespace vksim
