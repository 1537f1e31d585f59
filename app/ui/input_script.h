// --input-script: a small text file of timed keyboard and mouse commands, a
// test and demo facility (docs/interactive.md gives the format). This header
// only parses; app/ui/script_player.h delivers the commands through the same
// input callbacks that GLFW calls, so that ImGui and the camera see them as
// they would see a user.
//
//   # comment
//   at 10 key F1
//   at 20 click 640 360 right
//   at 30 screenshot out/overlay.png
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace vksim {

enum class ScriptAction {
  key,         // press now, release one frame later
  type,        // one character event per UTF-8 code point of `text`
  click,       // move there, press one frame later, release the frame after
  drag,        // move to (x0, y0); one frame later press, move to (x1, y1) in steps, release
  scroll,      // wheel: y0 steps (positive zooms in)
  resize,      // glfwSetWindowSize(width, height): real window events (window runs only)
  screenshot,  // write the frame rendered at `frame` to `text` (.png)
};

enum class ScriptButton { left, right, middle };

struct ScriptCommand {
  uint64_t frame = 0;  // delivered before this frame (app.schedule.totalFrames) is rendered
  ScriptAction action = ScriptAction::key;
  int key = 0;                               // GLFW_KEY_* (key)
  std::string text;                          // type: characters; screenshot: path
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;     // window coordinates (click: x0 y0; scroll: y0)
  uint32_t width = 0, height = 0;            // resize, screen coordinates
  ScriptButton button = ScriptButton::left;  // click, drag
  int line = 0;                              // 1-based line in the file, for messages
};

struct InputScript {
  std::string source;                   // the file, for messages
  std::vector<ScriptCommand> commands;  // sorted by frame; file order kept within a frame
};

// Parses script text; `source` names it in messages. Blank lines and lines
// starting with '#' are skipped. Every other line is `at FRAME COMMAND ARGS`.
// An error is one line, "FILE:LINE: PROBLEM", exit code kExitUsage.
Result<InputScript> parseInputScript(std::string_view text, const std::string& source);

// Reads (at most 1 MiB, app/files.h) and parses a script file.
Result<InputScript> loadInputScript(const std::string& path);

// GLFW_KEY_* for a key name as scripts spell it (F1, B, RIGHT_BRACKET,
// ESCAPE, SPACE, ...; case-insensitive), or -1 when the name is unknown.
int keyFromName(std::string_view name);

}  // namespace vksim
