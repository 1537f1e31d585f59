// The progress bar (app/capture/progress.h) on an injected clock: when it
// redraws, what a line says, and that a bar on a file that is not a terminal
// draws nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/capture/progress.h"
#include "base/config.h"

namespace vksim {
namespace {

constexpr int64_t kMs = 1'000'000;

std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text.push_back(char(c));
  return text;
}

// A bar that believes it draws on a terminal, writing into a temporary file.
ProgressBar terminalBar(std::FILE* file, uint64_t total) {
  ProgressBar bar;
  bar.out = file;
  bar.enabled = true;
  bar.totalFrames = total;
  bar.startNs = 1000 * kMs;
  return bar;
}

TEST(Progress, RedrawsAtMostOncePerIntervalAndOnTheLastFrame) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ProgressBar bar = terminalBar(file, 100);
  int64_t now = bar.startNs;
  uint32_t due = 0;
  // 100 frames, 3 ms apart: 300 ms in all.
  for (int frame = 0; frame < 100; ++frame) {
    now += 3 * kMs;
    if (countProgressFrame(bar, now)) {
      drawProgressBar(bar, now, "label");
      ++due;
    }
  }
  // The first frame, then one per 100 ms (at 102 ms, 204 ms), then the last.
  EXPECT_EQ(due, 4u);
  EXPECT_EQ(bar.draws, 4u);
  static_assert(kProgressRedrawIntervalNs == 100 * kMs, "the counts above assume 100 ms");
  finishProgressBar(bar);
  const std::string text = contents(file);
  std::fclose(file);
  EXPECT_EQ(text.front(), '\r');
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.find("100/100 frames"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'), 4);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
}

TEST(Progress, NotATerminalDrawsNothing) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ProgressBar bar = createProgressBar(10, 0, file);  // a regular file is no terminal
  EXPECT_FALSE(bar.enabled);
  for (int frame = 0; frame < 10; ++frame) {
    EXPECT_FALSE(countProgressFrame(bar, frame * 200 * kMs));
    drawProgressBar(bar, frame * 200 * kMs, "label");
  }
  finishProgressBar(bar);
  EXPECT_EQ(bar.framesDone, 10u);
  EXPECT_EQ(contents(file), "");
  std::fclose(file);
}

TEST(Progress, LineGivesFramesRateAndTimeLeft) {
  // 120 of 600 frames in 2 s: 60 fps, 480 frames left = 8 s.
  EXPECT_EQ(formatProgressLine(120, 600, 2000 * kMs, "recording out/run.csv", 10),
            "[##........] 120/600 frames  60.0 fps  8 s left  recording out/run.csv");
  // 50 of 100000 frames at 25 fps: 99950 / 25 = 3998 s = 1 h 06 min.
  EXPECT_EQ(formatProgressLine(50, 100000, 2000 * kMs, "", 4), "[....] 50/100000 frames  25.0 fps  1 h 06 min left");
  // 90 s left reads in minutes.
  EXPECT_EQ(formatProgressLine(10, 100, 10000 * kMs, "", 4), "[....] 10/100 frames  1.0 fps  1 min 30 s left");
  // Nothing to go on yet.
  EXPECT_EQ(formatProgressLine(0, 100, 0, "", 4), "[....] 0/100 frames  -- fps  -- left");
  EXPECT_EQ(formatProgressLine(100, 100, 1000 * kMs, "", 4), "[####] 100/100 frames  100.0 fps  0 s left");
}

// What a terminal shows after `text`: a carriage return moves back to the
// line's start and later characters overwrite earlier ones; a newline starts
// the next line. Trailing blanks are dropped.
std::vector<std::string> screenOf(const std::string& text) {
  std::vector<std::string> lines(1);
  size_t column = 0;
  for (char c : text) {
    if (c == '\r') {
      column = 0;
    } else if (c == '\n') {
      lines.emplace_back();
      column = 0;
    } else {
      std::string& line = lines.back();
      if (line.size() <= column) line.resize(column + 1, ' ');
      line[column++] = c;
    }
  }
  for (std::string& line : lines) line.erase(line.find_last_not_of(' ') + 1);
  return lines;
}

// A line shorter than the one before it (a shorter label, less time left)
// leaves nothing of the longer one on the screen: the terminal shows exactly
// the newest line, and nothing may wrap past the terminal's width (80
// columns where the size cannot be asked, as for this file).
TEST(Progress, AShorterLineLeavesNothingOfTheLongerOneOnScreen) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ProgressBar bar = terminalBar(file, 1000);
  countProgressFrame(bar, bar.startNs + 10 * kMs);
  drawProgressBar(bar, bar.startNs + 10 * kMs, "recording a/capture/with/a/long/name.csv");
  for (int frame = 0; frame < 999; ++frame) countProgressFrame(bar, bar.startNs + 20 * kMs);
  drawProgressBar(bar, bar.startNs + 20 * kMs, "x");
  const std::vector<std::string> screen = screenOf(contents(file));
  std::fclose(file);
  ASSERT_EQ(screen.size(), 1u);
  EXPECT_EQ(screen[0], formatProgressLine(1000, 1000, 20 * kMs, "x")) << "the screen shows: " << screen[0];
  // A label longer than the terminal is cut, not wrapped onto a second row.
  std::FILE* narrow = std::tmpfile();
  ASSERT_NE(narrow, nullptr);
  ProgressBar wide = terminalBar(narrow, 10);
  countProgressFrame(wide, wide.startNs + kMs);
  drawProgressBar(wide, wide.startNs + kMs, std::string(200, 'L'));
  const std::string drawn = contents(narrow);
  std::fclose(narrow);
  EXPECT_LT(screenOf(drawn)[0].size(), 80u) << drawn;
}

// The bar fills in proportion to the frames done, rounded down: it is full
// only when every frame is done, never a frame before.
TEST(Progress, TheBarIsFullOnlyWhenEveryFrameIsDone) {
  EXPECT_EQ(formatProgressLine(99, 100, 1000 * kMs, "", 4).substr(0, 6), "[###.]");
  EXPECT_EQ(formatProgressLine(999, 1000, 1000 * kMs, "", 10).substr(0, 12), "[#########.]");
  EXPECT_EQ(formatProgressLine(1, 1000, 1000 * kMs, "", 10).substr(0, 12), "[..........]");
  EXPECT_EQ(formatProgressLine(1000, 1000, 1000 * kMs, "", 10).substr(0, 12), "[##########]");
}

TEST(Progress, NoTotalNeverDraws) {
  ProgressBar bar = createProgressBar(0, 0, stdout);
  EXPECT_FALSE(bar.enabled);
  EXPECT_FALSE(countProgressFrame(bar, kProgressRedrawIntervalNs));
}

}  // namespace
}  // namespace vksim
