// What keys, the mouse and the overlay's controls do to the running app: the
// callbacks installed on the GLFW window, the key bindings, and the requests
// that wait for a frame boundary. The input script player
// (app/ui/script_player.h) calls the same on* functions that GLFW's callbacks
// call, so a script drives exactly what a user drives.
//
// Layering: ABOVE app/app.h (these read and change the whole App); the state
// they keep (InputState) and the ImGui event forwarding they call
// (app/ui/overlay.h) sit below it. Only the run loop, the overlay's panels
// and the script player include this header.
#pragma once
#include <cstdint>
#include <span>

#include "app/app.h"

namespace vksim {

// One line of the overlay's help and of docs/interactive.md.
struct KeyBinding {
  const char* input;
  const char* action;
};
std::span<const KeyBinding> keyBindings();

// Windowed runs: installs key, char, mouse button, cursor, scroll, focus and
// cursor-enter callbacks on app.window and points the window's user pointer
// at `app`, which must stay at the same address until removeInputCallbacks.
// Both are no-ops without a window.
void installInputCallbacks(App& app);
void removeInputCallbacks(App& app);

// The run loop's hold on the callbacks: installed for this object's lifetime,
// removed when it ends, by a throw too, so that the window never leads to an
// App that is being torn down.
struct InputCallbackScope {
  explicit InputCallbackScope(App& target) : app(target) { installInputCallbacks(app); }
  ~InputCallbackScope() { removeInputCallbacks(app); }
  InputCallbackScope(const InputCallbackScope&) = delete;
  InputCallbackScope& operator=(const InputCallbackScope&) = delete;
  App& app;
};

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
// frame runs: rebuilds the grid resources, recreates the swapchain, and starts
// or ends a single step, as requested.
void applyFrameBoundaryRequests(App& app);

}  // namespace vksim
