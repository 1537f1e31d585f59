#include "app/ui/controls.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/frame_loop.h"
#include "app/ui/overlay.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

constexpr KeyBinding kKeyBindings[] = {
    {"F1", "show or hide the overlay"},
    {"Left drag", "orbit the camera (outside the overlay)"},
    {"Wheel", "zoom"},
    {"R", "reset the camera to the starting view"},
    {"Right click", "drop a ripple where the cursor points on the mesh"},
    {"D", "drop mode: a left click drops a ripple instead of orbiting"},
    {"B / T", "binary / timeline semaphores from the next frame"},
    {"] / [", "double / halve the grid (rebuilds the shared buffer)"},
    {"M", "switch model: ripple / sinewave"},
    {"Space", "pause or resume the simulation"},
    {"N", "single step while paused"},
    {"Backspace", "reset the simulation to step 0"},
    {"V", "vsync on / off (recreates the swapchain)"},
    {"L", "level of detail on / off (every triangle when off)"},
    {"Escape", "quit"},
};

// GLFW hands callbacks the window only; the window's user pointer leads back
// to the App (renderer/window.h leaves the user pointer to the app).
App& appOf(GLFWwindow* window) {
  return *static_cast<App*>(glfwGetWindowUserPointer(window));
}

void keyCallback(GLFWwindow* w, int key, int scancode, int action, int mods) {
  onKey(appOf(w), key, scancode, action, mods);
}
void charCallback(GLFWwindow* w, unsigned int codepoint) {
  onChar(appOf(w), codepoint);
}
void mouseButtonCallback(GLFWwindow* w, int button, int action, int mods) {
  onMouseButton(appOf(w), button, action, mods);
}
void cursorPosCallback(GLFWwindow* w, double x, double y) {
  onCursorPos(appOf(w), x, y);
}
void scrollCallback(GLFWwindow* w, double xOffset, double yOffset) {
  onScroll(appOf(w), xOffset, yOffset);
}
void focusCallback(GLFWwindow* w, int focused) {
  onWindowFocus(appOf(w), focused);
}
void cursorEnterCallback(GLFWwindow* w, int entered) {
  onCursorEnter(appOf(w), entered);
}

// The size the cursor coordinates are measured against.
void windowSize(const App& app, uint32_t* width, uint32_t* height) {
  if (app.window.handle) {
    int w = 0, h = 0;
    glfwGetWindowSize(app.window.handle, &w, &h);
    *width = uint32_t(std::max(w, 0));
    *height = uint32_t(std::max(h, 0));
  } else {
    *width = app.offscreen.extent.width;
    *height = app.offscreen.extent.height;
  }
}

}  // namespace

std::span<const KeyBinding> keyBindings() {
  return kKeyBindings;
}

void installInputCallbacks(App& app) {
  GLFWwindow* window = app.window.handle;
  if (!window) return;
  glfwSetWindowUserPointer(window, &app);
  glfwSetKeyCallback(window, keyCallback);
  glfwSetCharCallback(window, charCallback);
  glfwSetMouseButtonCallback(window, mouseButtonCallback);
  glfwSetCursorPosCallback(window, cursorPosCallback);
  glfwSetScrollCallback(window, scrollCallback);
  // ImGui 1.86's GLFW backend needs focus and cursor-enter events when the
  // app installs the callbacks itself (its changelog, 2021-07-29 and -08-17).
  glfwSetWindowFocusCallback(window, focusCallback);
  glfwSetCursorEnterCallback(window, cursorEnterCallback);
}

void removeInputCallbacks(App& app) {
  GLFWwindow* window = app.window.handle;
  if (!window) return;
  glfwSetKeyCallback(window, nullptr);
  glfwSetCharCallback(window, nullptr);
  glfwSetMouseButtonCallback(window, nullptr);
  glfwSetCursorPosCallback(window, nullptr);
  glfwSetScrollCallback(window, nullptr);
  glfwSetWindowFocusCallback(window, nullptr);
  glfwSetCursorEnterCallback(window, nullptr);
  glfwSetWindowUserPointer(window, nullptr);
}

void onKey(App& app, int key, int scancode, int action, int mods) {
  overlayKeyEvent(app.overlay, key, scancode, action, mods);
  if (action != GLFW_PRESS) return;
  if (key == GLFW_KEY_F1) {
    app.overlay.visible = !app.overlay.visible;
    return;
  }
  // While a text field has the keyboard, letters are text, not shortcuts.
  if (overlayWantsKeyboard(app.overlay)) return;
  const ModelParams params = currentModelParams(app);
  switch (key) {
    case GLFW_KEY_ESCAPE:
      app.quitRequested = true;
      if (app.window.handle) glfwSetWindowShouldClose(app.window.handle, GLFW_TRUE);
      break;
    case GLFW_KEY_R:
      app.camera = app.options.camera;
      break;
    case GLFW_KEY_B:
      requestSyncMode(app, SyncMode::binary);
      break;
    case GLFW_KEY_T:
      requestSyncMode(app, SyncMode::timeline);
      break;
    case GLFW_KEY_RIGHT_BRACKET:
      requestGrid(app, params.grid >= kMaxGrid / 2 ? kMaxGrid : params.grid * 2);
      break;
    case GLFW_KEY_LEFT_BRACKET:
      requestGrid(app, params.grid / 2);
      break;
    case GLFW_KEY_M:
      requestModel(app, params.model == ModelKind::ripple ? ModelKind::sinewave : ModelKind::ripple);
      break;
    case GLFW_KEY_SPACE:
      app.paused = !app.paused;
      break;
    case GLFW_KEY_N:
      requestSingleStep(app);
      break;
    case GLFW_KEY_BACKSPACE:
      requestRebuild(app, params);
      break;
    case GLFW_KEY_V:
      requestVsync(app, !app.options.vsync);
      break;
    case GLFW_KEY_D:
      app.input.dropMode = !app.input.dropMode;
      break;
    case GLFW_KEY_L:
      // A draw choice: the next frame's mesh pass reads it, nothing is rebuilt.
      app.options.levelOfDetail = !app.options.levelOfDetail;
      break;
    default:
      break;
  }
}

void onChar(App& app, unsigned int codepoint) {
  overlayCharEvent(app.overlay, codepoint);
}

void onMouseButton(App& app, int button, int action, int mods) {
  // Decided before ImGui sees the press: WantCaptureMouse is from ImGui's
  // last frame, which is what a press on an overlay window must be judged by.
  const bool overlayHasMouse = overlayWantsMouse(app.overlay);
  overlayMouseButtonEvent(app.overlay, button, action, mods);
  InputState& input = app.input;
  if (button >= 0 && button < kMouseButtons) {
    input.buttonDown[button] = action == GLFW_PRESS;
    if (action == GLFW_PRESS) input.buttonPressed[button] = true;
  }
  if (button == GLFW_MOUSE_BUTTON_LEFT && action == GLFW_RELEASE) {
    input.orbiting = false;
    return;
  }
  if (action != GLFW_PRESS || overlayHasMouse || !input.cursorKnown) return;
  if (button == GLFW_MOUSE_BUTTON_RIGHT || (button == GLFW_MOUSE_BUTTON_LEFT && input.dropMode))
    dropRippleAt(app, input.cursorX, input.cursorY);
  else if (button == GLFW_MOUSE_BUTTON_LEFT)
    input.orbiting = true;
}

void onCursorPos(App& app, double x, double y) {
  InputState& input = app.input;
  if (input.orbiting && input.cursorKnown)
    orbitCamera(app.camera, float(x - input.cursorX), float(y - input.cursorY));
  input.cursorX = x;
  input.cursorY = y;
  input.cursorKnown = true;
}

void onScroll(App& app, double xOffset, double yOffset) {
  const bool overlayHasMouse = overlayWantsMouse(app.overlay);
  overlayScrollEvent(app.overlay, xOffset, yOffset);
  if (!overlayHasMouse) zoomCamera(app.camera, float(yOffset));
}

void onWindowFocus(App& app, int focused) {
  overlayFocusEvent(app.overlay, focused);
}

void onCursorEnter(App& app, int entered) {
  overlayCursorEnterEvent(app.overlay, entered);
}

ModelParams currentModelParams(const App& app) {
  if (app.input.requests.rebuild) return *app.input.requests.rebuild;
  if (simulationOf(app.grid)) return simulationOf(app.grid)->params();
  return app.options.model;
}

void requestGrid(App& app, uint32_t grid) {
  ModelParams params = currentModelParams(app);
  const uint32_t clamped = std::clamp(grid, kMinGrid, kMaxGrid);
  if (clamped == params.grid) return;
  params.grid = clamped;
  requestRebuild(app, params);
}

void requestModel(App& app, ModelKind model) {
  ModelParams params = currentModelParams(app);
  if (params.model == model) return;
  params.model = model;
  requestRebuild(app, params);
}

void requestRebuild(App& app, const ModelParams& params) {
  app.input.requests.rebuild = params;
}

void requestVsync(App& app, bool vsync) {
  if (app.headless || app.options.vsync == vsync) return;
  app.options.vsync = vsync;
  app.input.requests.recreateSwapchain = true;
}

void requestSingleStep(App& app) {
  app.input.requests.singleStep = true;
}

bool dropRippleAt(App& app, double x, double y) {
  InputState& input = app.input;
  if (!simulationOf(app.grid)) return false;
  const ModelParams& params = simulationOf(app.grid)->params();
  if (params.model != ModelKind::ripple) {
    input.lastDrop = "no drop: drops need the ripple model";
    return false;
  }
  uint32_t width = 0, height = 0;
  windowSize(app, &width, &height);
  const std::optional<GroundPoint> point = groundPointUnderCursor(app.camera, x, y, width, height);
  if (!point || std::abs(point->x) > 1.0f || std::abs(point->z) > 1.0f) {
    input.lastDrop = "no drop: the cursor is not over the mesh";
    return false;
  }
  Drop drop;
  drop.x = point->x;
  drop.z = point->z;
  drop.radius = params.dropRadius;
  drop.amplitude = params.dropAmplitude;
  simulationOf(app.grid)->addDrop(drop);
  input.lastDrop = fmt::format("drop at x {:.3f}, z {:.3f}", double(drop.x), double(drop.z));
  return true;
}

void applyFrameBoundaryRequests(App& app) {
  InputState& input = app.input;
  FrameBoundaryRequests requests = input.requests;
  input.requests = {};

  // A single step ends once the frame that advanced it has rendered.
  if (input.pauseAgainAfterFrame && app.schedule.totalFrames > *input.pauseAgainAfterFrame) {
    app.paused = true;
    input.pauseAgainAfterFrame.reset();
  }
  if (requests.rebuild) {
    // rebuildGridResources drains the schedule and tears the simulation down
    // CUDA first; the new state starts at frame 0 of a new timeline.
    rebuildGridResources(app, *requests.rebuild);
    input.lastDrop.clear();
  }
  if (requests.recreateSwapchain && !app.headless) {
    const VkExtent2D size = windowFramebufferSize(app.window);
    if (size.width == 0 || size.height == 0) {
      input.requests.recreateSwapchain = true;  // minimised: try again when restored
    } else {
      // The swapchain's images may still be in use by the last frame and
      // its present: recreate only after the device has gone idle.
      VK_CHECK(vkDeviceWaitIdle(app.device.device));
      recreateSwapchainTarget(app.device, app.swapchain, size, app.options.vsync);
    }
  }
  if (requests.singleStep && app.paused && !input.pauseAgainAfterFrame) {
    app.paused = false;
    input.pauseAgainAfterFrame = app.schedule.totalFrames;
  }
}

}  // namespace vksim
