// Frame-time statistics for captures (docs/captures.md defines each one).
// Plain C++: no Vulkan, no CUDA.
#pragma once
#include <cstddef>
#include <span>

namespace vksim {

// A frame stutters when its time exceeds kStutterFactor times the mean of the
// kStutterWindowFrames frames before it (fewer at the start of the series).
inline constexpr double kStutterFactor = 2.5;
inline constexpr std::size_t kStutterWindowFrames = 30;

// Statistics over the frame times that remain after the warm-up frames are
// dropped. All times in milliseconds, rates in frames per second. With no
// frames left every field is 0; a rate whose divisor is 0 (all-zero frame
// times) is 0 as well, never infinity.
struct FrameStats {
  std::size_t warmupFramesExcluded = 0;  // frames actually dropped from the front
  std::size_t frameCount = 0;            // N, frames after warm-up
  double totalMs = 0.0;                  // sum of the N frame times
  double averageFps = 0.0;               // N / (totalMs / 1000)
  double p50Ms = 0.0, p90Ms = 0.0, p95Ms = 0.0, p99Ms = 0.0, p999Ms = 0.0;
  double onePercentLowFps = 0.0;         // 1000 / p99Ms
  double pointOnePercentLowFps = 0.0;    // 1000 / p999Ms
  double slowestOnePercentMeanMs = 0.0;  // mean of the ceil(N/100) slowest frames
  std::size_t stutterCount = 0;          // see countStutters
};

// Computes FrameStats over frameTimesMs[warmupFrames..]. warmupFrames larger
// than the series leaves nothing (all zeros). Does not keep the span.
FrameStats computeFrameStats(std::span<const double> frameTimesMs, std::size_t warmupFrames = 0);

// The p-quantile (p in [0, 1], clamped) of an ascending series by linear
// interpolation at h = p * (N - 1): s[floor(h)] + frac(h) * (s[floor(h)+1] - s[floor(h)]).
// Returns 0 for an empty series. The caller sorts.
double interpolatedPercentile(std::span<const double> sortedMs, double p);

// Frames i >= 1 (in capture order) with t[i] > factor * mean(t[max(0, i-window) .. i-1]).
// Frame 0 has no history and is never a stutter; frames 1..window-1 are judged
// against all the frames before them. A stutter stays in the average of the
// frames after it. window 0 is treated as 1.
std::size_t countStutters(std::span<const double> frameTimesMs, double factor = kStutterFactor,
                          std::size_t window = kStutterWindowFrames);

}  // namespace vksim
