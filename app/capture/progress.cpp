#include "app/capture/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "base/config.h"

namespace vksim {
namespace {

// The terminal's width in columns; 80 when it does not say. A line longer
// than the terminal wraps, and "\r" then returns only to the wrapped part.
size_t terminalColumns(std::FILE* out) {
  winsize size{};
  if (ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

std::string formatTimeLeft(double seconds) {
  if (seconds < 60.0) return fmt::format("{:.0f} s left", std::ceil(seconds));
  const auto whole = uint64_t(std::ceil(seconds));
  if (whole < 3600) return fmt::format("{} min {:02} s left", whole / 60, whole % 60);
  return fmt::format("{} h {:02} min left", whole / 3600, (whole % 3600) / 60);
}

}  // namespace

ProgressBar createProgressBar(uint64_t totalFrames, int64_t nowNs, std::FILE* out) {
  ProgressBar bar;
  bar.out = out;
  bar.enabled = totalFrames > 0 && isatty(fileno(out)) == 1;
  bar.totalFrames = totalFrames;
  bar.startNs = nowNs;
  return bar;
}

bool countProgressFrame(ProgressBar& bar, int64_t nowNs) {
  ++bar.framesDone;
  if (!bar.enabled) return false;
  return bar.draws == 0 || nowNs - bar.lastDrawNs >= kProgressRedrawIntervalNs ||
         bar.framesDone >= bar.totalFrames;
}

void drawProgressBar(ProgressBar& bar, int64_t nowNs, std::string_view label) {
  if (!bar.enabled) return;
  std::string line = formatProgressLine(bar.framesDone, bar.totalFrames, nowNs - bar.startNs, label);
  const size_t columns = terminalColumns(bar.out);
  if (line.size() >= columns) line.resize(columns - 1);  // the cursor's own cell stays free: no wrap
  const size_t padding = bar.drawnWidth > line.size() ? bar.drawnWidth - line.size() : 0;
  fmt::print(bar.out, "\r{}{:{}}", line, "", padding);
  std::fflush(bar.out);
  bar.drawnWidth = line.size();
  bar.lastDrawNs = nowNs;
  ++bar.draws;
}

void finishProgressBar(ProgressBar& bar) {
  if (bar.enabled && bar.draws > 0) {
    fmt::print(bar.out, "\n");
    std::fflush(bar.out);
  }
  bar.draws = 0;
  bar.drawnWidth = 0;
}

std::string formatProgressLine(uint64_t framesDone, uint64_t totalFrames, int64_t elapsedNs,
                               std::string_view label, int width) {
  const double fraction =
      totalFrames > 0 ? std::min(1.0, double(framesDone) / double(totalFrames)) : 0.0;
  const int filled = int(fraction * width);
  const double seconds = double(elapsedNs) * 1.0e-9;
  // Under a millisecond or before the first frame there is no rate worth showing.
  const bool rateKnown = framesDone > 0 && seconds >= 1.0e-3;
  const double fps = rateKnown ? double(framesDone) / seconds : 0.0;
  const uint64_t left = totalFrames > framesDone ? totalFrames - framesDone : 0;
  std::string line = fmt::format("[{}{}] {}/{} frames  {}  {}", std::string(size_t(filled), '#'),
                                 std::string(size_t(width - filled), '.'), framesDone, totalFrames,
                                 rateKnown ? fmt::format("{:.1f} fps", fps) : std::string("-- fps"),
                                 rateKnown ? formatTimeLeft(double(left) / fps) : std::string("-- left"));
  if (!label.empty()) fmt::format_to(std::back_inserter(line), "  {}", label);
  return line;
}

}  // namespace vksim
