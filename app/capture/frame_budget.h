// The bench's frame budget counted inside each frame's own interval.
//
// A frame's interval runs from the present before it to its own present. The
// spans a frame record carries do not all fall inside it: on the CPU backend
// the step recorded with frame k runs after present k, in frame k+1's
// interval, and a render runs on past its present. Averaging each span over
// the frames that recorded it therefore paired a frame with its neighbour's
// step, and where steps vary (a heavy step among light ones) the parts summed
// to more than the frame: a negative "unexplained"
// (docs/results/bench-method.md, "What each number means"). Here every span's time is counted in the interval
// it lies in, render spans and step spans each as a union (two renders in
// flight may overlap), so that inside every interval
//   render + sim - overlap = the time either covered <= the interval.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "app/capture/frame_timing.h"

namespace vksim {

// Sorted, disjoint spans covering what `spans` cover (empty spans dropped).
std::vector<TimeSpan> unionOfSpans(std::vector<TimeSpan> spans);

// What two unions (sorted, disjoint) both cover.
std::vector<TimeSpan> intersectionOfSpans(const std::vector<TimeSpan>& a, const std::vector<TimeSpan>& b);

// Nanoseconds of a union (sorted, disjoint) inside [beginNs, endNs).
int64_t coveredNs(const std::vector<TimeSpan>& spans, int64_t beginNs, int64_t endNs);

// One measured frame's budget, ms: its interval and the time the render
// spans, the step spans and both covered inside it. Null where no frame of the
// run had that kind of span (a path without GPU timestamps, or without a step
// span).
struct IntervalBudget {
  double frameMs = 0.0;
  std::optional<double> renderMs, simMs, overlapMs;
};

// The budget of every frame of `timings` (oldest first) whose frame number is
// at least `firstMeasured` and which has a present before it. Earlier frames
// (the warm-up) count only through their spans that reach into a measured
// interval.
std::vector<IntervalBudget> intervalBudgets(const std::vector<FrameTiming>& timings, uint64_t firstMeasured);

}  // namespace vksim
