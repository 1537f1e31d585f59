#include "app/capture/capture_stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace vksim {
namespace {
// A rate from a time: 0 rather than infinity when the time is 0, so that the
// summary JSON (which has no infinity) stays valid.
double framesPerSecond(double frames, double milliseconds) {
  return milliseconds > 0.0 ? frames * 1000.0 / milliseconds : 0.0;
}
}  // namespace

double interpolatedPercentile(std::span<const double> sortedMs, double p) {
  if (sortedMs.empty()) return 0.0;
  p = std::clamp(p, 0.0, 1.0);
  const double h = p * double(sortedMs.size() - 1);
  const std::size_t low = std::size_t(std::floor(h));
  if (low + 1 >= sortedMs.size()) return sortedMs.back();
  const double fraction = h - double(low);
  return sortedMs[low] + fraction * (sortedMs[low + 1] - sortedMs[low]);
}

std::size_t countStutters(std::span<const double> frameTimesMs, double factor, std::size_t window) {
  window = std::max<std::size_t>(window, 1);
  std::size_t stutters = 0;
  for (std::size_t i = 1; i < frameTimesMs.size(); ++i) {
    // The window is summed afresh per frame (window adds) rather than kept as a
    // running sum: a running sum drifts over a million-frame capture, and the
    // cost is nothing next to a frame.
    const std::size_t first = i > window ? i - window : 0;
    double sum = 0.0;
    for (std::size_t j = first; j < i; ++j) sum += frameTimesMs[j];
    const double mean = sum / double(i - first);
    if (frameTimesMs[i] > factor * mean) ++stutters;
  }
  return stutters;
}

FrameStats computeFrameStats(std::span<const double> frameTimesMs, std::size_t warmupFrames) {
  FrameStats stats;
  stats.warmupFramesExcluded = std::min(warmupFrames, frameTimesMs.size());
  const std::span<const double> frames = frameTimesMs.subspan(stats.warmupFramesExcluded);
  stats.frameCount = frames.size();
  if (frames.empty()) return stats;

  for (double t : frames) stats.totalMs += t;
  stats.averageFps = framesPerSecond(double(frames.size()), stats.totalMs);

  std::vector<double> sorted(frames.begin(), frames.end());
  std::sort(sorted.begin(), sorted.end());
  stats.p50Ms = interpolatedPercentile(sorted, 0.50);
  stats.p90Ms = interpolatedPercentile(sorted, 0.90);
  stats.p95Ms = interpolatedPercentile(sorted, 0.95);
  stats.p99Ms = interpolatedPercentile(sorted, 0.99);
  stats.p999Ms = interpolatedPercentile(sorted, 0.999);
  stats.onePercentLowFps = framesPerSecond(1.0, stats.p99Ms);
  stats.pointOnePercentLowFps = framesPerSecond(1.0, stats.p999Ms);

  // ceil(N/100) so that the slowest 1% is never empty and, for N not a
  // multiple of 100, includes the partial frame rather than dropping it.
  const std::size_t slowest = (sorted.size() + 99) / 100;
  double slowestSum = 0.0;
  for (std::size_t i = sorted.size() - slowest; i < sorted.size(); ++i) slowestSum += sorted[i];
  stats.slowestOnePercentMeanMs = slowestSum / double(slowest);

  stats.stutterCount = countStutters(frames);
  return stats;
}

}  // namespace vksim
