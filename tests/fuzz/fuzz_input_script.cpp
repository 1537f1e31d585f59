// libFuzzer target: --input-script files (app/ui/input_script.h). Checks,
// beyond "no crash, no sanitizer report, no slow input", what
// docs/interactive.md promises of every input:
//   - a refusal is one line, "FILE:LINE: PROBLEM", with exit code 2;
//   - an accepted script's commands are sorted by frame, keep the file's
//     order within a frame, and hold only values the format allows (a known
//     key, finite coordinates, a window size from 16 to 8192, a screenshot
//     path ending in .png, a non-empty `type` text).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "app/ui/input_script.h"
#include "fuzz_check.h"

namespace {

void checkCommand(const vksim::ScriptCommand& command, std::string_view text) {
  using vksim::ScriptAction;
  using vksim::fuzz::expect;
  expect(command.line >= 1, "a command without its line", text);
  expect(std::isfinite(command.x0) && std::isfinite(command.y0) && std::isfinite(command.x1) &&
             std::isfinite(command.y1),
         "a coordinate that is not finite", text);
  switch (command.action) {
    case ScriptAction::key:
      expect(command.key >= 0, "a key that is not a key", text);
      break;
    case ScriptAction::type:
      expect(!command.text.empty(), "an empty type command", text);
      break;
    case ScriptAction::resize:
      expect(command.width >= 16 && command.width <= 8192 && command.height >= 16 && command.height <= 8192,
             "a window size outside 16 to 8192", text);
      break;
    case ScriptAction::screenshot:
      expect(command.text.size() >= 4 && command.text.ends_with(".png"), "a screenshot that is not a .png",
             text);
      break;
    default:
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const vksim::Result<vksim::InputScript> script = vksim::parseInputScript(text, "fuzz.txt");
  if (!script) {
    vksim::fuzz::expectOneLineRefusal(script.error(), "fuzz.txt:");
    return 0;
  }
  for (size_t i = 0; i < script->commands.size(); ++i) {
    checkCommand(script->commands[i], text);
    if (i == 0) continue;
    const vksim::ScriptCommand& before = script->commands[i - 1];
    const vksim::ScriptCommand& after = script->commands[i];
    vksim::fuzz::expect(before.frame < after.frame || (before.frame == after.frame && before.line < after.line),
                        "commands out of frame order, or a frame's commands out of file order", text);
  }
  return 0;
}
