#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "app/value_schedule.h"

namespace vksim {
namespace {

TEST(ValueSchedule, TimelineFrameKWaitsTwoKAndSignalsTwoKPlusOne) {
  for (uint64_t k = 1; k < 50; ++k) {
    const RenderSync render = renderSyncForFrame(k, SyncMode::timeline, SyncMode::timeline);
    EXPECT_EQ(render.wait, RenderSync::Wait::timeline);
    EXPECT_EQ(render.waitValue, 2 * k);
    EXPECT_EQ(render.signal, RenderSync::Signal::timeline);
    EXPECT_EQ(render.signalValue, 2 * k + 1);
    const StepSync sim = simSyncForFrame(k, SyncMode::timeline);
    EXPECT_EQ(sim.waitValue, 2 * k + 1);
    EXPECT_EQ(sim.signalValue, 2 * k + 2);
  }
}

TEST(ValueSchedule, FrameZeroRenderWaitsForNothing) {
  EXPECT_EQ(renderSyncForFrame(0, SyncMode::timeline, std::nullopt).wait, RenderSync::Wait::none);
  EXPECT_EQ(renderSyncForFrame(0, SyncMode::binary, std::nullopt).wait, RenderSync::Wait::none);
}

TEST(ValueSchedule, BinaryRenderWaitsSimDoneAndSignalsRenderDone) {
  const RenderSync render = renderSyncForFrame(7, SyncMode::binary, SyncMode::binary);
  EXPECT_EQ(render.wait, RenderSync::Wait::simDone);
  EXPECT_EQ(render.signal, RenderSync::Signal::renderDone);
  EXPECT_EQ(simSyncForFrame(7, SyncMode::binary).mode, SyncMode::binary);
}

// Replays a sequence of modes through the schedule and checks the rules the
// design notes state: every binary signal is consumed by exactly one later
// wait, timeline signals strictly increase, every timeline wait is for a
// value already signalled earlier in submission order.
void checkSequence(const std::vector<SyncMode>& modes) {
  int renderDonePending = 0, simDonePending = 0;
  uint64_t counter = 0;  // highest timeline value signalled so far
  std::optional<SyncMode> previous;
  for (uint64_t k = 0; k < modes.size(); ++k) {
    const RenderSync render = renderSyncForFrame(k, modes[k], previous);
    if (render.wait == RenderSync::Wait::simDone) {
      ASSERT_EQ(simDonePending, 1) << "frame " << k << " waits simDone with nothing signalled";
      simDonePending = 0;
    } else if (render.wait == RenderSync::Wait::timeline) {
      ASSERT_LE(render.waitValue, counter) << "frame " << k << " waits a value nobody signalled";
      ASSERT_EQ(render.waitValue, counter) << "frame " << k << " does not wait for the previous sim step";
    }
    if (render.signal == RenderSync::Signal::timeline) {
      ASSERT_GT(render.signalValue, counter);
      counter = render.signalValue;
    } else {
      ASSERT_EQ(renderDonePending, 0) << "renderDone signalled twice without a wait";
      renderDonePending = 1;
    }
    const StepSync sim = simSyncForFrame(k, modes[k]);
    if (sim.mode == SyncMode::timeline) {
      ASSERT_EQ(sim.waitValue, counter) << "sim " << k << " must wait for its own frame's render";
      ASSERT_GT(sim.signalValue, counter);
      counter = sim.signalValue;
    } else {
      ASSERT_EQ(renderDonePending, 1) << "sim " << k << " waits renderDone with nothing signalled";
      renderDonePending = 0;
      ASSERT_EQ(simDonePending, 0);
      simDonePending = 1;
    }
    previous = modes[k];
  }
  EXPECT_EQ(renderDonePending, 0);
  // The drain after the last frame consumes the last simDone, if any.
  if (lastSimSignal(modes.back()) == RenderSync::Wait::timeline) EXPECT_EQ(counter, 2 * modes.size());
  else EXPECT_EQ(simDonePending, 1);
}

TEST(ValueSchedule, SwitchingEveryFrameKeepsEverySemaphoreBalanced) {
  std::vector<SyncMode> modes;
  for (int k = 0; k < 200; ++k) modes.push_back(k % 2 ? SyncMode::binary : SyncMode::timeline);
  checkSequence(modes);
}

TEST(ValueSchedule, LongRunsOfEachModeAndIrregularSwitches) {
  std::vector<SyncMode> modes;
  for (int k = 0; k < 300; ++k) modes.push_back((k / 7) % 3 == 0 ? SyncMode::binary : SyncMode::timeline);
  checkSequence(modes);
  modes.assign(50, SyncMode::binary);
  checkSequence(modes);
}

TEST(ValueSchedule, CounterReadsTwoNAfterNTimelineFrames) {
  checkSequence(std::vector<SyncMode>(123, SyncMode::timeline));
  EXPECT_EQ(simSyncForFrame(122, SyncMode::timeline).signalValue, 2u * 123u);
}

}  // namespace
}  // namespace vksim
