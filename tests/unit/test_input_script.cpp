#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/ui/input_script.h"
#include "app/ui/script_player.h"

namespace vksim {
namespace {

TEST(InputScript, ParsesEveryCommand) {
  const Result<InputScript> result = parseInputScript(
      "# a comment\n"
      "\n"
      "at 10 key F1\n"
      "at 3 key right_bracket\n"
      "at 4 click 10 20.5 right\n"
      "at 5 drag 1 2 3 4\n"
      "at 6 scroll -2\n"
      "at 7 resize 800 600\n"
      "at 8 screenshot out dir/shot.png\n"
      "at 9 type my scene\r\n",
      "test.txt");
  ASSERT_TRUE(result) << result.error().message;
  const std::vector<ScriptCommand>& c = result->commands;
  ASSERT_EQ(c.size(), 8u);
  // Sorted by frame.
  EXPECT_EQ(c[0].frame, 3u);
  EXPECT_EQ(c[0].key, GLFW_KEY_RIGHT_BRACKET);
  EXPECT_EQ(c[0].line, 4);
  EXPECT_EQ(c[1].action, ScriptAction::click);
  EXPECT_EQ(c[1].button, ScriptButton::right);
  EXPECT_DOUBLE_EQ(c[1].y0, 20.5);
  EXPECT_EQ(c[2].action, ScriptAction::drag);
  EXPECT_DOUBLE_EQ(c[2].x1, 3.0);
  EXPECT_EQ(c[2].button, ScriptButton::left);
  EXPECT_DOUBLE_EQ(c[3].y0, -2.0);
  EXPECT_EQ(c[4].width, 800u);
  EXPECT_EQ(c[4].height, 600u);
  EXPECT_EQ(c[5].text, "out dir/shot.png");
  EXPECT_EQ(c[6].text, "my scene");
  EXPECT_EQ(c[7].key, GLFW_KEY_F1);
}

TEST(InputScript, KeepsFileOrderWithinAFrame) {
  const Result<InputScript> result = parseInputScript("at 5 key B\nat 2 key M\nat 5 key T\n", "s");
  ASSERT_TRUE(result);
  const auto& c = result->commands;
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].key, GLFW_KEY_M);
  EXPECT_EQ(c[1].key, GLFW_KEY_B);
  EXPECT_EQ(c[2].key, GLFW_KEY_T);
}

struct BadLine {
  const char* text;
  const char* message;
};

class InputScriptErrors : public ::testing::TestWithParam<BadLine> {};

TEST_P(InputScriptErrors, NameTheFileLineAndProblem) {
  const Result<InputScript> result =
      parseInputScript(std::string("at 1 key F1\n") + GetParam().text, "my.txt");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, std::string("my.txt:2: ") + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Lines, InputScriptErrors,
    ::testing::Values(BadLine{"key F1", "expected 'at FRAME COMMAND ...'"},
                      BadLine{"at -1 key F1", "frame '-1' is not a whole number"},
                      BadLine{"at 1 key NOPE", "unknown key 'NOPE'"},
                      BadLine{"at 1 key", "usage: at FRAME key NAME"},
                      BadLine{"at 1 key A B", "usage: at FRAME key NAME"},
                      BadLine{"at 1 click 1", "usage: at FRAME click X Y [left|right|middle]"},
                      BadLine{"at 1 click 1 2 thumb", "unknown mouse button 'thumb' (left, right or middle)"},
                      BadLine{"at 1 drag 1 2 x 4", "coordinate 'x' is not a number"},
                      BadLine{"at 1 resize 10 600", "window size must be two whole numbers from 16 to 8192"},
                      BadLine{"at 1 screenshot a.jpg", "screenshot path 'a.jpg' must end in .png"},
                      BadLine{
                          "at 1 fly 3",
                          "unknown command 'fly' (key, type, click, drag, scroll, resize or screenshot)"}));

// Found by fuzz_input_script (tests/fuzz/corpus/input_script/regression-cr-in-message.txt):
// a '\r' inside a screenshot path went into the message as it was, and a
// terminal showing it returns to the start of the line and overwrites it.
// Control characters are shown as \xNN: the message stays one line.
TEST(InputScript, ControlCharactersInAMessageAreShownEscaped) {
  const Result<InputScript> result = parseInputScript("at 70 screenshot out/x\x1b\r.jpg\n", "my.txt");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message, "my.txt:1: screenshot path 'out/x\\x1b\\x0d.jpg' must end in .png");
}

TEST(InputScript, KeyNames) {
  EXPECT_EQ(keyFromName("a"), GLFW_KEY_A);
  EXPECT_EQ(keyFromName("7"), GLFW_KEY_7);
  EXPECT_EQ(keyFromName("f12"), GLFW_KEY_F12);
  EXPECT_EQ(keyFromName("LEFT_BRACKET"), GLFW_KEY_LEFT_BRACKET);
  EXPECT_EQ(keyFromName("Escape"), GLFW_KEY_ESCAPE);
  EXPECT_EQ(keyFromName("F0"), -1);
  EXPECT_EQ(keyFromName("AB"), -1);
}

// Each button name is its own button, for clicks and drags, and the player
// presses the GLFW button of that name: `middle` is neither the left button
// (which drops a ripple) nor the right one.
TEST(InputScript, EachButtonNameIsThatButton) {
  const Result<InputScript> parsed = parseInputScript(
      "at 1 click 5 6 left\nat 2 click 5 6 right\nat 3 click 5 6 middle\nat 4 click 5 6\n"
      "at 10 drag 0 0 8 0 middle\nat 30 drag 0 0 8 0 right\nat 50 drag 0 0 8 0 left\n",
      "buttons.txt");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const std::vector<ScriptButton> expected{ScriptButton::left,   ScriptButton::right, ScriptButton::middle,
                                           ScriptButton::left,   ScriptButton::middle, ScriptButton::right,
                                           ScriptButton::left};
  ASSERT_EQ(parsed->commands.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(int(parsed->commands[i].button), int(expected[i])) << "line " << parsed->commands[i].line;
  // The presses the player makes, in order: one per click or drag.
  std::vector<int> pressed;
  for (const ScriptEvent& e : createScriptPlayer(*parsed).events)
    if (e.kind == ScriptEvent::Kind::button && e.action == GLFW_PRESS) pressed.push_back(e.code);
  EXPECT_EQ(pressed, (std::vector<int>{GLFW_MOUSE_BUTTON_LEFT, GLFW_MOUSE_BUTTON_RIGHT, GLFW_MOUSE_BUTTON_MIDDLE,
                                       GLFW_MOUSE_BUTTON_LEFT, GLFW_MOUSE_BUTTON_MIDDLE, GLFW_MOUSE_BUTTON_RIGHT,
                                       GLFW_MOUSE_BUTTON_LEFT}));
}

TEST(ScriptPlayer, ExpandsClicksKeysAndDragsIntoTimedEvents) {
  const Result<InputScript> parsed =
      parseInputScript("at 4 click 5 6\nat 4 key F1\nat 10 drag 0 0 80 0\n", "s");
  ASSERT_TRUE(parsed);
  const ScriptPlayer player = createScriptPlayer(*parsed);
  using Kind = ScriptEvent::Kind;
  std::vector<std::pair<uint64_t, Kind>> seen;
  for (const ScriptEvent& e : player.events) seen.emplace_back(e.frame, e.kind);
  const std::vector<std::pair<uint64_t, Kind>> expected{
      {4, Kind::cursor},  {4, Kind::key},     {5, Kind::button},  {5, Kind::key},
      {6, Kind::button},  {10, Kind::cursor}, {11, Kind::button}, {12, Kind::cursor},
      {13, Kind::cursor}, {14, Kind::cursor}, {15, Kind::cursor}, {16, Kind::cursor},
      {17, Kind::cursor}, {18, Kind::cursor}, {19, Kind::cursor}, {19, Kind::button}};
  EXPECT_EQ(seen, expected);
  EXPECT_DOUBLE_EQ(player.events[14].x, 80.0);  // the drag ends where asked
  EXPECT_EQ(player.events[15].action, GLFW_RELEASE);
}

}  // namespace
}  // namespace vksim
