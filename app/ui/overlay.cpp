#include "app/ui/overlay.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>

#include "base/config.h"
#include "base/host_clock.h"
#include "renderer/debug_names.h"
#include "renderer/frame_sync.h"
#include "renderer/vk_check.h"
#include "sim/cuda/cuda_simulation.h"

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
// sizes its per-frame vertex buffers by it (one set a draw, in turn), and
// this app has at most two frames in flight (kMaxFramesInFlight, the
// render-queue path; one elsewhere), each waiting at the top of runFrame for
// the fence of the frame that used its slot before, so the set a draw reuses
// is never still in use: 2 is always enough. Headless runs pass 0 and get 2.
uint32_t backendMinImageCount(uint32_t swapchainMinImages) {
  return std::max(2u, swapchainMinImages);
}

// ImGui's Vulkan backend sizes each buffer set exactly to the frame that
// needed it and replaces the set's buffers (vkDestroyBuffer, vkFreeMemory,
// vkAllocateMemory, vkBindBufferMemory) whenever a later frame needs a few
// bytes more: the frame-time graph adds a segment every frame until it spans
// the window, and a number's digits come and go, so a growing overlay
// allocated every few frames, inside the frame. Recording the backend's draw
// once per buffer set with draw data of the reserved size, and no draw
// commands, makes it allocate every set at that size now, while nothing is
// in flight; the recording only binds (no draw). bufferSets calls leave the
// backend's set index where it was, so the frames keep their alternation.
void reserveDrawBuffers(Overlay& overlay, const Device& device, uint64_t vertices, uint64_t indices) {
  ImDrawList reserve(ImGui::GetDrawListSharedData());
  reserve.VtxBuffer.resize(int(vertices), ImDrawVert{});  // zeros: the copy reads defined bytes
  reserve.IdxBuffer.resize(int(indices), ImDrawIdx(0));
  ImDrawList* lists[] = {&reserve};
  ImDrawData data;
  data.Valid = true;
  data.CmdLists = lists;
  data.CmdListsCount = 1;
  data.TotalVtxCount = int(vertices);
  data.TotalIdxCount = int(indices);
  data.DisplaySize = ImVec2(1.0f, 1.0f);  // the backend records nothing for an empty display
  data.FramebufferScale = ImVec2(1.0f, 1.0f);
  runOneTimeCommands(device, [&](VkCommandBuffer commandBuffer) {
    for (uint32_t set = 0; set < overlay.bufferSets; ++set)
      ImGui_ImplVulkan_RenderDrawData(&data, commandBuffer);
  });
  overlay.reservedVertices = vertices;
  overlay.reservedIndices = indices;
}

// The headless overlay's platform backend: display size, time and the mouse
// as InputState recorded it from the input script.
void newHeadlessFrame(InputState& input, VkExtent2D displaySize, double lastFrameMilliseconds) {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(displaySize.width), float(displaySize.height));
  io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
  const double milliseconds = lastFrameMilliseconds >= 0.0 ? lastFrameMilliseconds : 1000.0 / 60.0;
  io.DeltaTime = float(std::max(milliseconds, 0.01) / 1000.0);  // ImGui asserts a positive step
  io.MousePos =
      input.cursorKnown ? ImVec2(float(input.cursorX), float(input.cursorY)) : ImVec2(-FLT_MAX, -FLT_MAX);
  for (int i = 0; i < kMouseButtons; ++i) {
    io.MouseDown[i] = input.buttonDown[i] || input.buttonPressed[i];
    input.buttonPressed[i] = false;
  }
}

}  // namespace

void createOverlay(Overlay& overlay, const Instance& instance, const Device& device, const OverlayTarget& target,
                   const CudaDeviceList& cuda, const std::string& startScene) {
  GLFWwindow* const window = target.window;
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

  if (window) {
    // install_callbacks = false: app/ui/controls.cpp owns the GLFW callbacks
    // and hands every event to ImGui first (overlayKeyEvent and friends).
    if (!ImGui_ImplGlfw_InitForVulkan(window, false))
      throw RuntimeFailure("ImGui's GLFW backend did not initialise");
    overlay.glfwBackend = true;
    overlay.window = window;
  } else {
    io.BackendPlatformName = "vkcuda-sim headless";
    mapHeadlessKeys(io);
  }

  // Design notes: ImGui 1.86's loader also fetches the surface and swapchain
  // functions and fails when the instance lacks VK_KHR_surface, which
  // createInstance therefore always enables.
  if (!ImGui_ImplVulkan_LoadFunctions(loadVulkanFunction, instance.instance))
    throw RuntimeFailure("ImGui's Vulkan backend could not load its Vulkan functions");
  overlay.descriptorPool = createFontDescriptorPool(device);
  overlay.minImageCount = backendMinImageCount(target.swapchainMinImages);

  ImGui_ImplVulkan_InitInfo info{};
  info.Instance = instance.instance;
  info.PhysicalDevice = device.physical;
  info.Device = device.device;
  info.QueueFamily = device.queueFamily;
  info.Queue = device.queue;
  info.DescriptorPool = overlay.descriptorPool;
  info.Subpass = 0;
  info.MinImageCount = overlay.minImageCount;
  info.ImageCount = std::max(overlay.minImageCount, target.swapchainImages);
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  info.CheckVkResultFn = checkImGuiVulkanResult;
  // The pipeline is built for this render pass: the mesh's, so the overlay
  // draws into the same pass (one colour and one depth attachment).
  if (!ImGui_ImplVulkan_Init(&info, target.renderPass))
    throw RuntimeFailure("ImGui's Vulkan backend did not initialise");
  overlay.vulkanBackend = true;
  runOneTimeCommands(device, [](VkCommandBuffer commandBuffer) {
    if (!ImGui_ImplVulkan_CreateFontsTexture(commandBuffer))
      throw RuntimeFailure("ImGui's font texture could not be created");
  });
  ImGui_ImplVulkan_DestroyFontUploadObjects();  // the staging buffer; the upload has completed
  overlay.bufferSets = info.ImageCount;
  reserveDrawBuffers(overlay, device, kOverlayReservedVertices, kOverlayReservedIndices);

  overlay.cudaDriverVersion = cuda.driverVersion;
  overlay.cudaRuntimeVersion = cuda.runtimeVersion;
  overlay.cudaUnavailableReason = cuda.unavailableReason;
  if (!startScene.empty()) {
    // Cut to the field's size, always terminated, as ImGui's InputText wants it.
    const auto end =
        fmt::format_to_n(overlay.sceneName, sizeof overlay.sceneName - 1, "{}-copy", startScene).out;
    *end = '\0';
  }
}

void destroyOverlay(Overlay& overlay, const Device& device) {
  if (overlay.vulkanBackend) ImGui_ImplVulkan_Shutdown();
  if (overlay.glfwBackend) ImGui_ImplGlfw_Shutdown();
  if (overlay.created) ImGui::DestroyContext();
  if (overlay.descriptorPool) vkDestroyDescriptorPool(device.device, overlay.descriptorPool, nullptr);
  overlay = Overlay{};
}

bool beginOverlayFrame(Overlay& overlay, const Device& device, InputState& input, VkExtent2D displaySize,
                       double lastFrameMilliseconds, uint32_t swapchainMinImages) {
  if (!overlay.vulkanBackend) return false;
  // A new swapchain may want a different image count (FIFO and MAILBOX
  // differ). SetMinImageCount waits for the device itself and drops the
  // buffer sets; at the frame boundary, or building ahead right after a
  // render's submission (whose waits are already met or enqueued), that costs
  // one frame at most, and the device is idle for reserving them again.
  if (const uint32_t count = backendMinImageCount(swapchainMinImages); count != overlay.minImageCount) {
    ImGui_ImplVulkan_SetMinImageCount(count);
    overlay.minImageCount = count;
    reserveDrawBuffers(overlay, device, overlay.reservedVertices, overlay.reservedIndices);
  }
  // The last frame outgrew the reserve (ImGui replaced one set's buffers
  // inside it): twice as much for every set, so that growth stops at once.
  if (overlay.outgrown) {
    VK_CHECK(vkDeviceWaitIdle(device.device));  // the sets of frames in flight are replaced
    const ImDrawData* last = ImGui::GetDrawData();
    reserveDrawBuffers(overlay, device,
                       2 * std::max<uint64_t>(overlay.reservedVertices, uint64_t(last->TotalVtxCount)),
                       2 * std::max<uint64_t>(overlay.reservedIndices, uint64_t(last->TotalIdxCount)));
    overlay.outgrown = false;
  }
  if (overlay.glfwBackend)
    ImGui_ImplGlfw_NewFrame();
  else
    newHeadlessFrame(input, displaySize, lastFrameMilliseconds);
  ImGui_ImplVulkan_NewFrame();
  ImGui::NewFrame();
  return overlay.visible;
}

void endOverlayFrame(Overlay& overlay) {
  if (!overlay.vulkanBackend) return;
  ImGui::Render();
  overlay.hasDrawData = overlay.visible;
  const ImDrawData* data = ImGui::GetDrawData();
  if (overlay.hasDrawData && (uint64_t(data->TotalVtxCount) > overlay.reservedVertices ||
                              uint64_t(data->TotalIdxCount) > overlay.reservedIndices)) {
    ++overlay.bufferGrowths;
    overlay.outgrown = true;
  }
}

uint64_t overlayDrawnVertices(const Overlay& overlay) {
  if (!overlay.vulkanBackend || !overlay.hasDrawData) return 0;
  return uint64_t(ImGui::GetDrawData()->TotalVtxCount);
}

void recordOverlay(Overlay& overlay, VkCommandBuffer commandBuffer) {
  if (!overlay.vulkanBackend || !overlay.hasDrawData) return;
  overlay.lastRecordBeginNs = hostNowNs();
  {
    const ScopedCommandLabel label(commandBuffer, "overlay");
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), commandBuffer);
  }
  overlay.lastRecordEndNs = hostNowNs();
}

void overlayKeyEvent(Overlay& overlay, int key, int scancode, int action, int mods) {
  if (!overlay.created) return;
  if (overlay.glfwBackend) {
    ImGui_ImplGlfw_KeyCallback(overlay.window, key, scancode, action, mods);
    return;
  }
  ImGuiIO& io = ImGui::GetIO();
  if (key >= 0 && key < IM_ARRAYSIZE(io.KeysDown)) io.KeysDown[key] = action != GLFW_RELEASE;
  io.KeyCtrl = (mods & GLFW_MOD_CONTROL) != 0;
  io.KeyShift = (mods & GLFW_MOD_SHIFT) != 0;
  io.KeyAlt = (mods & GLFW_MOD_ALT) != 0;
  io.KeySuper = (mods & GLFW_MOD_SUPER) != 0;
}

void overlayCharEvent(Overlay& overlay, unsigned int codepoint) {
  if (!overlay.created) return;
  if (overlay.glfwBackend)
    ImGui_ImplGlfw_CharCallback(overlay.window, codepoint);
  else
    ImGui::GetIO().AddInputCharacter(codepoint);
}

void overlayMouseButtonEvent(Overlay& overlay, int button, int action, int mods) {
  // Headless: newHeadlessFrame reads the buttons from InputState.
  if (overlay.created && overlay.glfwBackend)
    ImGui_ImplGlfw_MouseButtonCallback(overlay.window, button, action, mods);
}

void overlayScrollEvent(Overlay& overlay, double xOffset, double yOffset) {
  if (!overlay.created) return;
  if (overlay.glfwBackend) {
    ImGui_ImplGlfw_ScrollCallback(overlay.window, xOffset, yOffset);
    return;
  }
  ImGuiIO& io = ImGui::GetIO();
  io.MouseWheelH += float(xOffset);
  io.MouseWheel += float(yOffset);
}

void overlayFocusEvent(Overlay& overlay, int focused) {
  if (overlay.created && overlay.glfwBackend) ImGui_ImplGlfw_WindowFocusCallback(overlay.window, focused);
}

void overlayCursorEnterEvent(Overlay& overlay, int entered) {
  if (overlay.created && overlay.glfwBackend) ImGui_ImplGlfw_CursorEnterCallback(overlay.window, entered);
}

bool overlayWantsMouse(const Overlay& overlay) {
  return overlay.created && overlay.visible && ImGui::GetIO().WantCaptureMouse;
}

bool overlayWantsKeyboard(const Overlay& overlay) {
  // WantTextInput, not WantCaptureKeyboard: the latter stays true for a frame
  // after any click on a widget, which would swallow a shortcut pressed just
  // after it; only a text field being edited should take the keys.
  return overlay.created && overlay.visible && ImGui::GetIO().WantTextInput;
}

}  // namespace vksim
