#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "app/interop/value_schedule.h"

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

constexpr StepResult kSignalled{StepStatus::ok, false, true};  // what a successful initial write reports
constexpr StepResult kStepDone{StepStatus::ok, true, true};

// One frame through the bookkeeping, as runFrame does it: render, then sim.
void runFrameOfSchedule(ScheduleState& schedule, const StepResult& step = kStepDone) {
  const RenderSync render = nextRenderSync(schedule);
  noteRenderSubmitted(schedule, render);
  noteSimulationTurn(schedule, simSyncForFrame(schedule.scheduleFrame, schedule.mode), step);
  advanceFrame(schedule);
}

TEST(ValueSchedule, RenderZeroWaitsOnTheInitialWritesSimDoneInEitherMode) {
  for (SyncMode mode : {SyncMode::timeline, SyncMode::binary}) {
    ScheduleState schedule;
    schedule.mode = mode;
    restartSchedule(schedule, kSignalled, /*copyPath=*/false);
    EXPECT_EQ(schedule.scheduleFrame, 0u);
    const RenderSync render = nextRenderSync(schedule);
    EXPECT_EQ(render.wait, RenderSync::Wait::simDone) << toString(mode);
    // The render's own signal is the ordinary one of frame 0.
    if (mode == SyncMode::timeline) {
      EXPECT_EQ(render.signalValue, 1u);
    }
    // A drain before any frame still consumes the initial signal.
    const DrainPlan plan = planDrain(schedule);
    ASSERT_TRUE(plan.simSignal);
    EXPECT_EQ(plan.simSignal->mode, SyncMode::binary);
    EXPECT_FALSE(plan.consumeRenderDone);
  }
}

TEST(ValueSchedule, AfterARebuildRenderZeroWaitsOnSimDoneAgain) {
  ScheduleState schedule;
  restartSchedule(schedule, kSignalled, false);
  for (int k = 0; k < 5; ++k) runFrameOfSchedule(schedule);
  ASSERT_EQ(nextRenderSync(schedule).wait, RenderSync::Wait::timeline);
  // The rebuild: drain, then a new shared state whose initial write signals.
  noteDrained(schedule);
  EXPECT_EQ(nextRenderSync(schedule).wait, RenderSync::Wait::none) << "drained: nothing outstanding";
  restartSchedule(schedule, kSignalled, false);
  EXPECT_EQ(schedule.scheduleFrame, 0u);
  EXPECT_EQ(schedule.totalFrames, 5u) << "the run's frame count carries over";
  EXPECT_EQ(nextRenderSync(schedule).wait, RenderSync::Wait::simDone);
  runFrameOfSchedule(schedule);
  EXPECT_EQ(nextRenderSync(schedule).wait, RenderSync::Wait::timeline);
  EXPECT_EQ(nextRenderSync(schedule).waitValue, 2u);
}

TEST(ValueSchedule, TheCopyPathWaitsForNothingAndHasItsInitialOutputToStage) {
  ScheduleState schedule;
  restartSchedule(schedule, StepResult{}, /*copyPath=*/true);
  EXPECT_EQ(nextRenderSync(schedule).wait, RenderSync::Wait::none);
  EXPECT_TRUE(schedule.hostOutputUnstaged);
  EXPECT_TRUE(planDrain(schedule).empty());
}

TEST(ValueSchedule, AnInitialWriteThatSignalledNothingLeavesNothingToWaitFor) {
  ScheduleState schedule;
  restartSchedule(schedule, StepResult{StepStatus::failed, false, false}, false);
  EXPECT_EQ(nextRenderSync(schedule).wait, RenderSync::Wait::none);
  EXPECT_TRUE(planDrain(schedule).empty());
}

// Error paths: the drain consumes exactly what was handed over.
TEST(ValueSchedule, AStepThatFailedBeforeItsSignalLeavesNoSimSignalForTheDrain) {
  for (SyncMode mode : {SyncMode::timeline, SyncMode::binary}) {
    ScheduleState schedule;
    schedule.mode = mode;
    restartSchedule(schedule, kSignalled, false);
    runFrameOfSchedule(schedule);
    runFrameOfSchedule(schedule, StepResult{StepStatus::failed, /*wait*/ true, /*signal*/ false});
    const DrainPlan plan = planDrain(schedule);
    EXPECT_FALSE(plan.simSignal) << toString(mode) << ": the drain would wait on a signal never enqueued";
    EXPECT_FALSE(plan.consumeRenderDone) << toString(mode) << ": the step's wait already took renderDone";
    EXPECT_TRUE(plan.empty());
  }
}

TEST(ValueSchedule, ARenderDoneThatNoSimulationWaitTookIsConsumedByTheDrain) {
  ScheduleState schedule;
  schedule.mode = SyncMode::binary;
  restartSchedule(schedule, kSignalled, false);
  runFrameOfSchedule(schedule);
  // Render 1 signals renderDone; the step fails (or times out) before its wait.
  runFrameOfSchedule(schedule, StepResult{StepStatus::timeout, false, false});
  DrainPlan plan = planDrain(schedule);
  EXPECT_FALSE(plan.simSignal);
  EXPECT_TRUE(plan.consumeRenderDone);
  noteDrained(schedule);
  EXPECT_TRUE(planDrain(schedule).empty()) << "a second drain must find nothing";
}

TEST(ValueSchedule, AHealthyRunDrainsItsLastSignalOnce) {
  for (SyncMode mode : {SyncMode::timeline, SyncMode::binary}) {
    ScheduleState schedule;
    schedule.mode = mode;
    restartSchedule(schedule, kSignalled, false);
    for (int k = 0; k < 4; ++k) runFrameOfSchedule(schedule);
    const DrainPlan plan = planDrain(schedule);
    ASSERT_TRUE(plan.simSignal);
    EXPECT_EQ(plan.simSignal->mode, mode);
    if (mode == SyncMode::timeline) {
      EXPECT_EQ(plan.simSignal->value, 8u);
    }
    EXPECT_FALSE(plan.consumeRenderDone);
    noteDrained(schedule);
    EXPECT_TRUE(planDrain(schedule).empty());
  }
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
  // The initial write has signalled simDone before frame 0.
  int renderDonePending = 0, simDonePending = 1;
  uint64_t counter = 0;  // highest timeline value signalled so far
  std::optional<SyncMode> previous = kInitialStateSignal.mode;
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
