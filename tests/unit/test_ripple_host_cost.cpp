// What keeps the host's ripple step the same cost every step
// (docs/results/2026-12-03-cpu-backend.md): the next automatic drop computed ahead in bands, and
// subnormals flushed. Both are checked by what they leave in the fields, not
// by timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <vector>

#include "sim/host_float_mode.h"
#include "sim/models.h"

namespace vksim {
namespace {

ModelParams rippleParams(uint32_t grid, uint32_t dropInterval) {
  ModelParams params;
  params.model = ModelKind::ripple;
  params.grid = grid;
  params.seed = 11;
  params.dropInterval = dropInterval;
  return params;
}

size_t subnormalCount(const std::vector<float>& field) {
  size_t count = 0;
  for (float value : field) count += std::fpclassify(value) == FP_SUBNORMAL ? 1 : 0;
  return count;
}

// A model with automatic drops against one fed the same drops through the
// queue with no automatic drops, so nothing is prepared ahead: the prepared
// heights must be exactly those computed in the drop's own step, and a change
// of amplitude must not leave stale ones in use.
TEST(RipplePreparedDrop, GivesTheFieldOfTheDropComputedInItsStep) {
  constexpr uint32_t kGrid = 97, kInterval = 6;
  ModelParams automatic = rippleParams(kGrid, kInterval);
  RippleModel prepared(automatic);
  RippleModel reference(rippleParams(kGrid, 0));
  for (uint64_t step = 1; step <= 40; ++step) {
    // Part-way through an interval, and on a drop's own step, after its
    // heights were complete for the old amplitude.
    if (step == 15 || step == 24) {
      automatic.dropAmplitude += 0.03f;
      prepared.setParams(automatic);
    }
    if (step % kInterval == 0) reference.addDrop(automaticDrop(automatic, step / kInterval));
    prepared.step();
    reference.step();
    ASSERT_EQ(prepared.current(), reference.current()) << "step " << step;
    ASSERT_EQ(prepared.previous(), reference.previous()) << "step " << step;
  }
}

// No step computes more than its band of the next drop: ceil(grid / interval)
// rows, the whole drop spread over the interval's steps.
TEST(RipplePreparedDrop, EachStepComputesOneBand) {
  constexpr uint32_t kGrid = 130, kInterval = 24;
  constexpr uint32_t kBand = (kGrid + kInterval - 1) / kInterval;
  RippleModel model(rippleParams(kGrid, kInterval));
  EXPECT_EQ(model.preparedDropRows(), kBand);  // reset() prepares the first band
  uint32_t before = model.preparedDropRows();
  for (uint64_t step = 1; step <= 3 * kInterval; ++step) {
    model.step();
    const uint32_t after = model.preparedDropRows();
    // The step after a drop starts the next one from row 0.
    const uint32_t band = step % kInterval == 0 ? after : after - before;
    EXPECT_LE(band, kBand) << "step " << step;
    if (step % kInterval == kInterval - 1) {
      EXPECT_EQ(after, kGrid) << "complete on the drop's eve, step " << step;
    }
    before = after;
  }
}

TEST(FlushSubnormalsScope, FlushesInsideAndRestoresAfter) {
  volatile float half = 0.5f;
  volatile float smallest = FLT_MIN;
  {
    const FlushSubnormalsScope flush;
#if defined(__SSE2__)
    EXPECT_EQ(smallest * half, 0.0f);
#else
    EXPECT_EQ(std::fpclassify(smallest * half), FP_SUBNORMAL);  // no flush off x86
#endif
  }
  EXPECT_EQ(std::fpclassify(smallest * half), FP_SUBNORMAL);
}

// The Gaussian's tail and the wave front fill the field with subnormals
// unless they are flushed (docs/results/2026-12-03-cpu-backend.md counts them).
TEST(Ripple, TheHostFieldHoldsNoSubnormals) {
  RippleModel model(rippleParams(129, 24));
  size_t worst = subnormalCount(model.current());
  for (int step = 0; step < 120; ++step) {
    model.step();
    worst = std::max(worst, subnormalCount(model.current()) + subnormalCount(model.previous()));
  }
#if defined(__SSE2__)
  EXPECT_EQ(worst, 0u);
#else
  SUCCEED() << "subnormals are kept off x86: " << worst;
#endif
}

}  // namespace
}  // namespace vksim
