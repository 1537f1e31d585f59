// Plays an --input-script (app/ui/input_script.h) into the running app: each
// command becomes the GLFW-style events a user would cause, delivered through
// app/ui/controls.h's on* functions, which hand them to ImGui first, exactly as
// the callbacks GLFW calls do. Nothing here assigns app state itself; a resize
// asks GLFW for a new window size, which comes back as real window events.
//
// Layering: ABOVE app/app.h, like app/ui/controls.h (it drives the whole
// App); only the run loop includes this header.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/ui/input_script.h"
#include "renderer/readback.h"

namespace vksim {

struct App;

struct ScriptEvent {
  enum class Kind { cursor, button, key, character, scroll, resize, screenshot };
  uint64_t frame = 0;  // delivered before this frame is rendered
  Kind kind = Kind::key;
  int code = 0;         // GLFW key, mouse button or code point
  int action = 0;       // GLFW_PRESS / GLFW_RELEASE
  double x = 0, y = 0;  // cursor: window coordinates; scroll: offsets
  uint32_t width = 0, height = 0;
  std::string path;  // screenshot
  int line = 0;      // the script line it came from
};

struct ScriptPlayer {
  std::vector<ScriptEvent> events;  // sorted by frame
  size_t next = 0;
  std::vector<std::string> screenshotsDue;  // paths waiting for the next rendered frame
  bool warnedHeadlessResize = false;
};

// Expands the commands into events: key = press, release one frame later;
// click = move, press a frame later, release the frame after; drag = move,
// press a frame later, eight moves on the next eight frames, release.
ScriptPlayer createScriptPlayer(const InputScript& script);

// At the frame boundary, after glfwPollEvents: delivers every event due at or
// before app.schedule.totalFrames (frames that were skipped, e.g. while
// minimised, do not count, so nothing is delivered twice or lost).
void playInputScript(ScriptPlayer& player, App& app);

// Whether the coming frame must be read back for the script.
bool screenshotDue(const ScriptPlayer& player);

// Writes a rendered frame to every due path and clears them. Throws
// RuntimeFailure naming the file when one cannot be written.
void writeDueScreenshots(ScriptPlayer& player, const RgbaImage& image);

}  // namespace vksim
