#include "app/ui/script_player.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>

#include "app/app.h"
#include "app/files.h"
#include "app/ui/controls.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

constexpr int kDragSteps = 8;

int glfwButton(ScriptButton button) {
  switch (button) {
    case ScriptButton::left:
      return GLFW_MOUSE_BUTTON_LEFT;
    case ScriptButton::right:
      return GLFW_MOUSE_BUTTON_RIGHT;
    case ScriptButton::middle:
      return GLFW_MOUSE_BUTTON_MIDDLE;
  }
  return GLFW_MOUSE_BUTTON_LEFT;
}

// UTF-8 to code points, as GLFW's char callback delivers text; a malformed
// byte becomes U+FFFD.
std::vector<unsigned int> codePoints(const std::string& text) {
  std::vector<unsigned int> points;
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const int length = byte < 0x80           ? 1
                       : (byte >> 5) == 0x6  ? 2
                       : (byte >> 4) == 0xE  ? 3
                       : (byte >> 3) == 0x1E ? 4
                                             : 0;
    if (length == 0 || i + size_t(length) > text.size()) {
      points.push_back(0xFFFD);
      ++i;
      continue;
    }
    unsigned int point = length == 1 ? byte : byte & (0x7Fu >> length);
    for (int k = 1; k < length; ++k)
      point = (point << 6) | (static_cast<unsigned char>(text[i + size_t(k)]) & 0x3Fu);
    points.push_back(point);
    i += size_t(length);
  }
  return points;
}

void expand(const ScriptCommand& command, std::vector<ScriptEvent>& events) {
  // Every event carries its command's line, for the messages about it. The
  // reference is good until the next push.
  auto push = [&](uint64_t frame, ScriptEvent::Kind kind) -> ScriptEvent& {
    ScriptEvent& e = events.emplace_back();
    e.frame = frame;
    e.kind = kind;
    e.line = command.line;
    return e;
  };
  auto pressOrRelease = [&](uint64_t frame, ScriptEvent::Kind kind, int code, int action) {
    ScriptEvent& e = push(frame, kind);
    e.code = code;
    e.action = action;
  };
  auto moveCursor = [&](uint64_t frame, double x, double y) {
    ScriptEvent& e = push(frame, ScriptEvent::Kind::cursor);
    e.x = x;
    e.y = y;
  };
  const uint64_t f = command.frame;
  switch (command.action) {
    case ScriptAction::key:
      pressOrRelease(f, ScriptEvent::Kind::key, command.key, GLFW_PRESS);
      // Held across one ImGui frame, so ImGui sees it down.
      pressOrRelease(f + 1, ScriptEvent::Kind::key, command.key, GLFW_RELEASE);
      break;
    case ScriptAction::type:
      for (const unsigned int point : codePoints(command.text))
        push(f, ScriptEvent::Kind::character).code = int(point);
      break;
    case ScriptAction::click:
    case ScriptAction::drag: {
      // The cursor arrives one frame before the press: ImGui decides whether
      // a press is its own by what it saw hovered in its last frame.
      const int button = glfwButton(command.button);
      moveCursor(f, command.x0, command.y0);
      pressOrRelease(f + 1, ScriptEvent::Kind::button, button, GLFW_PRESS);
      uint64_t releaseFrame = f + 2;
      if (command.action == ScriptAction::drag) {
        for (int step = 1; step <= kDragSteps; ++step) {
          const double t = double(step) / kDragSteps;
          moveCursor(f + 1 + uint64_t(step), command.x0 + t * (command.x1 - command.x0),
                     command.y0 + t * (command.y1 - command.y0));
        }
        releaseFrame = f + 1 + kDragSteps;  // after the last move of the same frame
      }
      pressOrRelease(releaseFrame, ScriptEvent::Kind::button, button, GLFW_RELEASE);
      break;
    }
    case ScriptAction::scroll:
      push(f, ScriptEvent::Kind::scroll).y = command.y0;
      break;
    case ScriptAction::resize: {
      ScriptEvent& resize = push(f, ScriptEvent::Kind::resize);
      resize.width = command.width;
      resize.height = command.height;
      break;
    }
    case ScriptAction::screenshot:
      push(f, ScriptEvent::Kind::screenshot).path = command.text;
      break;
  }
}

void deliver(ScriptPlayer& player, App& app, const ScriptEvent& event) {
  switch (event.kind) {
    case ScriptEvent::Kind::cursor:
      // With a window, the pointer really moves (ImGui's GLFW backend polls
      // glfwGetCursorPos); GLFW reports no event for its own warp, so the
      // callback is called here, as GLFW would for a user's motion.
      if (app.window.handle) glfwSetCursorPos(app.window.handle, event.x, event.y);
      onCursorPos(app, event.x, event.y);
      break;
    case ScriptEvent::Kind::button:
      onMouseButton(app, event.code, event.action, 0);
      break;
    case ScriptEvent::Kind::key:
      onKey(app, event.code, 0, event.action, 0);
      break;
    case ScriptEvent::Kind::character:
      onChar(app, unsigned(event.code));
      break;
    case ScriptEvent::Kind::scroll:
      onScroll(app, event.x, event.y);
      break;
    case ScriptEvent::Kind::resize:
      if (app.window.handle) {
        // A request to the window system; the new framebuffer size arrives
        // as GLFW events and the frame loop recreates the swapchain.
        glfwSetWindowSize(app.window.handle, int(event.width), int(event.height));
      } else if (!player.warnedHeadlessResize) {
        std::printf("input script line %d: resize ignored in a headless run\n", event.line);
        player.warnedHeadlessResize = true;
      }
      break;
    case ScriptEvent::Kind::screenshot:
      player.screenshotsDue.push_back(event.path);
      break;
  }
}

}  // namespace

ScriptPlayer createScriptPlayer(const InputScript& script) {
  ScriptPlayer player;
  for (const ScriptCommand& command : script.commands) expand(command, player.events);
  std::stable_sort(player.events.begin(), player.events.end(),
                   [](const ScriptEvent& a, const ScriptEvent& b) { return a.frame < b.frame; });
  return player;
}

void playInputScript(ScriptPlayer& player, App& app) {
  while (player.next < player.events.size() && player.events[player.next].frame <= app.schedule.totalFrames)
    deliver(player, app, player.events[player.next++]);
}

bool screenshotDue(const ScriptPlayer& player) {
  return !player.screenshotsDue.empty();
}

void writeDueScreenshots(ScriptPlayer& player, const RgbaImage& image) {
  for (const std::string& path : player.screenshotsDue) {
    if (const Result<> written = writePngFile(path, image); !written)
      throw RuntimeFailure(written.error().message);
    std::printf("wrote screenshot %ux%u to %s\n", image.width, image.height, path.c_str());
  }
  player.screenshotsDue.clear();
}

}  // namespace vksim
