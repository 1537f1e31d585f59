// Keyboard and mouse state that the app keeps between events, and the changes
// that must wait for a frame boundary.
//
// Layering: plain data BELOW app/app.h (App holds an InputState); the code
// that acts on events with the whole App (the GLFW callbacks, the key
// bindings, the requests and applyFrameBoundaryRequests) is app/ui/controls.h,
// above app/app.h.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "sim/sim_types.h"

namespace vksim {

// Changes that destroy or recreate Vulkan objects (and, on the CUDA backend,
// re-export and re-import them), so they wait for the frame boundary, where
// applyFrameBoundaryRequests (app/ui/controls.h) carries them out. Keys and
// overlay controls both ask through these.
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

}  // namespace vksim
