#include "app/capture/frame_budget.h"

#include <algorithm>

namespace vksim {

std::vector<TimeSpan> unionOfSpans(std::vector<TimeSpan> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const TimeSpan& a, const TimeSpan& b) { return a.beginNs < b.beginNs; });
  std::vector<TimeSpan> merged;
  for (const TimeSpan& span : spans) {
    if (span.endNs <= span.beginNs) continue;
    if (!merged.empty() && span.beginNs <= merged.back().endNs)
      merged.back().endNs = std::max(merged.back().endNs, span.endNs);
    else
      merged.push_back(span);
  }
  return merged;
}

std::vector<TimeSpan> intersectionOfSpans(const std::vector<TimeSpan>& a, const std::vector<TimeSpan>& b) {
  std::vector<TimeSpan> both;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t begin = std::max(a[i].beginNs, b[j].beginNs);
    const int64_t end = std::min(a[i].endNs, b[j].endNs);
    if (begin < end) both.push_back({begin, end});
    // The span that ends first cannot meet anything further on the other side.
    if (a[i].endNs < b[j].endNs)
      ++i;
    else
      ++j;
  }
  return both;
}

int64_t coveredNs(const std::vector<TimeSpan>& spans, int64_t beginNs, int64_t endNs) {
  // The first span that ends after the interval begins.
  auto it = std::upper_bound(spans.begin(), spans.end(), beginNs,
                             [](int64_t ns, const TimeSpan& span) { return ns < span.endNs; });
  int64_t covered = 0;
  for (; it != spans.end() && it->beginNs < endNs; ++it)
    covered += std::min(it->endNs, endNs) - std::max(it->beginNs, beginNs);
  return covered;
}

std::vector<IntervalBudget> intervalBudgets(const std::vector<FrameTiming>& timings, uint64_t firstMeasured) {
  std::vector<TimeSpan> renders, steps;
  for (const FrameTiming& timing : timings) {
    if (timing.renderGpu) renders.push_back(*timing.renderGpu);
    if (timing.simWork) steps.push_back(*timing.simWork);
  }
  const bool haveRenders = !renders.empty(), haveSteps = !steps.empty();
  const std::vector<TimeSpan> renderUnion = unionOfSpans(std::move(renders));
  const std::vector<TimeSpan> stepUnion = unionOfSpans(std::move(steps));
  const std::vector<TimeSpan> bothUnion = intersectionOfSpans(renderUnion, stepUnion);
  std::vector<IntervalBudget> budgets;
  for (const FrameTiming& timing : timings) {
    if (timing.frame < firstMeasured || timing.previousPresentNs == 0) continue;
    const int64_t begin = timing.previousPresentNs, end = timing.present.beginNs;
    IntervalBudget budget;
    budget.frameMs = double(end - begin) * 1.0e-6;
    if (haveRenders) budget.renderMs = double(coveredNs(renderUnion, begin, end)) * 1.0e-6;
    if (haveSteps) budget.simMs = double(coveredNs(stepUnion, begin, end)) * 1.0e-6;
    if (haveRenders && haveSteps) budget.overlapMs = double(coveredNs(bothUnion, begin, end)) * 1.0e-6;
    budgets.push_back(budget);
  }
  return budgets;
}

}  // namespace vksim
