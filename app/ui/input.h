// Keyboard and mouse: the callbacks the app installs on its GLFW window, the
// key bindings, and the changes that must wait for a frame boundary. The
// input script player (app/script_player.h) calls the same on* functions
// that GLFW's callbacks call, so a script drives exactly what a user drives.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "sim/sim_types.h"

namespace vksim {

struct App;

// Changes that destroy or recreate Vulkan objects (and, on the CUDA backend,
// re-export and re-import them), so they wait for the frame boundary, where
// applyFrameBoundaryRequests carries them out. Keys and overlay controls both
// ask through these.
struct FrameBoundaryRequests {
  std::optional<ModelParams> rebuild;  // new model or grid, or a reset (the same params)
  bool recreateSwapchain = false;      // vsync changed: app.options.vsync holds the new setting
  bool singleStep = false;             // advance exactly one step while paused
};

inline constexpr int kMouseButtons = 3;  // left, right, middle (GLFW_MOUSE_BUTTON_1..3)

struct InputState {
  FrameBoundaryRequests requests;
  bool orbiting = false;                // the left button went down outside ImGui and is still held
  bool dropMode = false;                // a left click drops a ripple instead of starting an orbit
  double cursorX = 0.0, cursorY = 0.0;  // last position delivered, window coordinates
  bool cursorKnown = false;
  // As delivered to onMouseButton: the headless overlay, which has no GLFW
  // backend to poll, hands these to ImGui (a press counts as held for one
  // frame even when released before it, like ImGui's GLFW backend does).
  bool buttonDown[kMouseButtons] = {};
  bool buttonPressed[kMouseButtons] = {};
  std::optional<uint64_t> pauseAgainAfterFrame;  // single step: the frame that advances
  std::string lastDrop;                          // "drop at x, z" or why there was none, for the overlay
};

// One line of the overlay's help and of docs/interactive.md.
struct KeyBinding {
  const char* input;
  const char* action;
};
std::span<const KeyBinding> keyBindings();

// Windowed runs: installs key, char, mouse button, cursor, scroll, focus and
// cursor-enter callbacks on app.window and points the window's user pointer
// at `app`, which must stay at the same address until removeInputCallbacks.
void installInputCallbacks(App& app);
void removeInputCallbacks(App& app);

// What GLFW's callbacks call, with GLFW's arguments (GLFW_KEY_*, GLFW_PRESS /
// GLFW_RELEASE / GLFW_REPEAT, window coordinates). Each first hands the event
// to the overlay (ImGui), then acts on it unless ImGui wants that device.
// Main thread, between frames (inside glfwPollEvents or the script player).
void onKey(App& app, int key, int scancode, int action, int mods);
void onChar(App& app, unsigned int codepoint);
void onMouseButton(App& app, int button, int action, int mods);
void onCursorPos(App& app, double x, double y);
void onScroll(App& app, double xOffset, double yOffset);
void onWindowFocus(App& app, int focused);
void onCursorEnter(App& app, int entered);

// Requests for the next frame boundary, from keys and overlay controls alike.
// The model parameters a request starts from are those of a rebuild already
// asked for, else the running simulation's.
ModelParams currentModelParams(const App& app);
void requestGrid(App& app, uint32_t grid);  // clamped to [kMinGrid, kMaxGrid]
void requestModel(App& app, ModelKind model);
void requestRebuild(App& app, const ModelParams& params);  // also a reset: the simulation restarts at step 0
void requestVsync(App& app, bool vsync);                   // windowed runs only
void requestSingleStep(App& app);

// Adds a ripple drop where the ray through window position (x, y) meets the
// y = 0 plane, if that point lies on the grid and the model is ripple.
// Returns whether a drop was added; input.lastDrop says what happened.
bool dropRippleAt(App& app, double x, double y);

// At the frame boundary, after input and before the overlay is built and the
// frame runs: rebuilds the shared state, recreates the swapchain, and starts
// or ends a single step, as requested.
void applyFrameBoundaryRequests(App& app);

}  // namespace vksim
