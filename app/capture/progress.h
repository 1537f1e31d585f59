// A progress bar for long work on a terminal: headless runs with a frame
// count, captures, the benchmark. One line, redrawn in place at most every
// kProgressRedrawIntervalNs (base/config.h): frames done of the total, frames
// per second and the time left. When stdout is not a terminal the bar draws
// nothing, so what scripts read from a pipe or a file is unchanged.
// Plain C++ and POSIX; one thread (the frame loop) owns a bar.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace vksim {

struct ProgressBar {
  std::FILE* out = stdout;
  bool enabled = false;     // out is a terminal: the bar draws
  uint64_t totalFrames = 0;
  uint64_t framesDone = 0;
  int64_t startNs = 0;      // host clock (base/host_clock.h) when the bar was created
  int64_t lastDrawNs = 0;   // 0 until the first draw
  size_t drawnWidth = 0;    // characters of the last line drawn (a shorter one is padded over it)
  uint32_t draws = 0;       // lines drawn so far
};

// A bar for `totalFrames` frames starting at `nowNs` (host clock), drawing on
// `out` only when `out` is a terminal (isatty). totalFrames 0 makes a bar that
// never draws: there is nothing to show progress towards.
ProgressBar createProgressBar(uint64_t totalFrames, int64_t nowNs, std::FILE* out = stdout);

// Counts one frame done at `nowNs`. True when the caller should draw now: the
// bar is enabled and either nothing was drawn yet, kProgressRedrawIntervalNs
// has passed since the last draw, or this was the last frame. Never blocks.
bool countProgressFrame(ProgressBar& bar, int64_t nowNs);

// Redraws the line in place ("\r", the line, padding over a longer previous
// one, a flush) with `label` after the numbers, cut to fit the terminal's
// width. Does nothing when the bar is not enabled.
void drawProgressBar(ProgressBar& bar, int64_t nowNs, std::string_view label);

// Ends the bar's line (a newline after the last draw) so that what is
// printed next starts on a line of its own. Nothing when it never drew.
void finishProgressBar(ProgressBar& bar);

// The bar's text without the carriage return, `width` characters of bar:
// "[#####.....]  120/600 frames  52.3 fps  9 s left  label". Rates and time
// left read "--" until some time has passed. Pure: the unit tests call it.
std::string formatProgressLine(uint64_t framesDone, uint64_t totalFrames, int64_t elapsedNs,
                               std::string_view label, int width = 30);

}  // namespace vksim
