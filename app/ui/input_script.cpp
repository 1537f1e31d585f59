#include "app/ui/input_script.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "app/files.h"

namespace vksim {
namespace {

// Scripts are a few hundred lines; a large file is a wrong path, not a script.
constexpr size_t kMaxScriptBytes = 1 << 20;
// Window sizes a script may ask for; GLFW and the swapchain accept far more,
// but a typo like 12800 should be an error, not a window larger than the screen.
constexpr uint32_t kMinWindowSide = 16, kMaxWindowSide = 8192;

struct KeyName {
  const char* name;
  int key;
};
constexpr KeyName kNamedKeys[] = {
    {"SPACE", GLFW_KEY_SPACE},
    {"APOSTROPHE", GLFW_KEY_APOSTROPHE},
    {"COMMA", GLFW_KEY_COMMA},
    {"MINUS", GLFW_KEY_MINUS},
    {"PERIOD", GLFW_KEY_PERIOD},
    {"SLASH", GLFW_KEY_SLASH},
    {"SEMICOLON", GLFW_KEY_SEMICOLON},
    {"EQUAL", GLFW_KEY_EQUAL},
    {"LEFT_BRACKET", GLFW_KEY_LEFT_BRACKET},
    {"BACKSLASH", GLFW_KEY_BACKSLASH},
    {"RIGHT_BRACKET", GLFW_KEY_RIGHT_BRACKET},
    {"GRAVE_ACCENT", GLFW_KEY_GRAVE_ACCENT},
    {"ESCAPE", GLFW_KEY_ESCAPE},
    {"ENTER", GLFW_KEY_ENTER},
    {"TAB", GLFW_KEY_TAB},
    {"BACKSPACE", GLFW_KEY_BACKSPACE},
    {"DELETE", GLFW_KEY_DELETE},
    {"RIGHT", GLFW_KEY_RIGHT},
    {"LEFT", GLFW_KEY_LEFT},
    {"DOWN", GLFW_KEY_DOWN},
    {"UP", GLFW_KEY_UP},
    {"HOME", GLFW_KEY_HOME},
    {"END", GLFW_KEY_END},
};

std::string upper(std::string_view text) {
  std::string result(text);
  for (char& c : result) c = char(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

template <typename Number>
bool parseNumber(std::string_view text, Number* value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), *value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

std::vector<std::string_view> splitWords(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

// Everything after the first `count` words, leading spaces dropped: the
// argument of `type` and `screenshot`, which may contain spaces.
std::string_view restAfterWords(std::string_view line, size_t count) {
  size_t i = 0;
  for (size_t word = 0; word < count; ++word) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  }
  while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  std::string_view rest = line.substr(i);
  while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
  return rest;
}

// Parses one non-comment line into *command; the problem (no "FILE:LINE: ") if it is bad.
Result<> parseLine(std::string_view line, ScriptCommand* command) {
  const std::vector<std::string_view> words = splitWords(line);
  if (words.size() < 3 || words[0] != "at") return fail("expected 'at FRAME COMMAND ...'");
  if (!parseNumber(words[1], &command->frame))
    return fail("frame '" + std::string(words[1]) + "' is not a whole number");
  const std::string_view name = words[2];
  const size_t arguments = words.size() - 3;
  // from_chars reads "nan" and "inf" as numbers; neither is a place on the
  // window nor a scroll amount.
  auto coordinate = [&](size_t index, double* value) {
    return parseNumber(words[3 + index], value) && std::isfinite(*value);
  };
  auto wrongArguments = [&](const char* usage) { return std::string("usage: at FRAME ") + usage; };

  if (name == "key") {
    command->action = ScriptAction::key;
    if (arguments != 1) return fail(wrongArguments("key NAME"));
    command->key = keyFromName(words[3]);
    if (command->key < 0) return fail("unknown key '" + std::string(words[3]) + "'");
  } else if (name == "type") {
    command->action = ScriptAction::type;
    command->text = std::string(restAfterWords(line, 3));
    if (command->text.empty()) return fail(wrongArguments("type TEXT"));
  } else if (name == "click" || name == "drag") {
    const bool drag = name == "drag";
    command->action = drag ? ScriptAction::drag : ScriptAction::click;
    const size_t points = drag ? 4 : 2;
    const char* usage = drag ? "drag X0 Y0 X1 Y1 [left|right|middle]" : "click X Y [left|right|middle]";
    if (arguments != points && arguments != points + 1) return fail(wrongArguments(usage));
    double* targets[] = {&command->x0, &command->y0, &command->x1, &command->y1};
    for (size_t i = 0; i < points; ++i)
      if (!coordinate(i, targets[i]))
        return fail("coordinate '" + std::string(words[3 + i]) + "' is not a number");
    if (arguments == points + 1) {
      const std::string button = upper(words[3 + points]);
      if (button == "LEFT")
        command->button = ScriptButton::left;
      else if (button == "RIGHT")
        command->button = ScriptButton::right;
      else if (button == "MIDDLE")
        command->button = ScriptButton::middle;
      else
        return fail("unknown mouse button '" + std::string(words[3 + points]) + "' (left, right or middle)");
    }
  } else if (name == "scroll") {
    command->action = ScriptAction::scroll;
    if (arguments != 1) return fail(wrongArguments("scroll DY"));
    if (!coordinate(0, &command->y0))
      return fail("scroll amount '" + std::string(words[3]) + "' is not a number");
  } else if (name == "resize") {
    command->action = ScriptAction::resize;
    if (arguments != 2) return fail(wrongArguments("resize WIDTH HEIGHT"));
    if (!parseNumber(words[3], &command->width) || !parseNumber(words[4], &command->height) ||
        command->width < kMinWindowSide || command->height < kMinWindowSide ||
        command->width > kMaxWindowSide || command->height > kMaxWindowSide)
      return fail("window size must be two whole numbers from " + std::to_string(kMinWindowSide) + " to " +
                  std::to_string(kMaxWindowSide));
  } else if (name == "screenshot") {
    command->action = ScriptAction::screenshot;
    command->text = std::string(restAfterWords(line, 3));
    if (command->text.empty()) return fail(wrongArguments("screenshot PATH.png"));
    if (command->text.size() < 4 || command->text.substr(command->text.size() - 4) != ".png")
      return fail("screenshot path '" + command->text + "' must end in .png");
  } else {
    return fail("unknown command '" + std::string(name) +
                "' (key, type, click, drag, scroll, resize or screenshot)");
  }
  return {};
}

}  // namespace

int keyFromName(std::string_view name) {
  const std::string key = upper(name);
  if (key.size() == 1 && ((key[0] >= 'A' && key[0] <= 'Z') || (key[0] >= '0' && key[0] <= '9')))
    return key[0];  // GLFW_KEY_A.. and GLFW_KEY_0.. are the ASCII codes
  if (key.size() >= 2 && key[0] == 'F') {
    int number = 0;
    if (parseNumber(std::string_view(key).substr(1), &number) && number >= 1 && number <= 25)
      return GLFW_KEY_F1 + number - 1;
  }
  for (const KeyName& named : kNamedKeys)
    if (key == named.name) return named.key;
  return -1;
}

Result<InputScript> parseInputScript(std::string_view text, const std::string& source) {
  InputScript script;
  script.source = source;
  size_t start = 0;
  for (int lineNumber = 1; start <= text.size(); ++lineNumber) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::vector<std::string_view> words = splitWords(line);
    if (words.empty() || words[0].front() == '#') continue;
    ScriptCommand command;
    command.line = lineNumber;
    if (const Result<> parsed = parseLine(line, &command); !parsed)
      return fail(printableText(source + ":" + std::to_string(lineNumber) + ": " + parsed.error().message));
    script.commands.push_back(command);
  }
  // Commands may be written in any order; within one frame they keep the
  // file's order (a screenshot after a key sees the key's effect).
  std::stable_sort(script.commands.begin(), script.commands.end(),
                   [](const ScriptCommand& a, const ScriptCommand& b) { return a.frame < b.frame; });
  return script;
}

Result<InputScript> loadInputScript(const std::string& path) {
  const Result<std::string> text = readFileBounded(path, "input script", kMaxScriptBytes);
  if (!text) return fail(text.error().message);
  return parseInputScript(*text, path);
}

}  // namespace vksim
