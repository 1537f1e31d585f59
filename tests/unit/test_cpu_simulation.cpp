// The CPU backend (createCpuSimulation): its turn in the value schedule,
// observed through a fake HostSemaphoreOps, and its reproducibility.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sim/models.h"
#include "sim/simulation.h"

namespace vksim {
namespace {

// Records every host semaphore operation together with a fingerprint of the
// vertex buffer at that moment, so a test can tell whether the writes came
// before or after it.
class RecordingHostOps final : public HostSemaphoreOps {
 public:
  struct Call {
    std::string what;  // "waitTimeline", "signalTimeline", "waitRenderDone", "signalSimDone"
    uint64_t value;    // timeline value (0 for binary)
    std::vector<Vertex> vertices;
  };

  explicit RecordingHostOps(const std::vector<Vertex>& vertices) : vertices_(vertices) {}

  bool waitTimeline(uint64_t value, uint64_t timeoutNs) override {
    record("waitTimeline", value);
    lastTimeoutNs = timeoutNs;
    return !timeOut;
  }
  void signalTimeline(uint64_t value) override { record("signalTimeline", value); }
  bool waitRenderDone(uint64_t timeoutNs) override {
    record("waitRenderDone", 0);
    lastTimeoutNs = timeoutNs;
    return !timeOut;
  }
  void signalSimDone() override { record("signalSimDone", 0); }

  std::vector<Call> calls;
  bool timeOut = false;  // the next waits report a timeout
  uint64_t lastTimeoutNs = 0;

 private:
  void record(const char* what, uint64_t value) { calls.push_back({what, value, vertices_}); }
  const std::vector<Vertex>& vertices_;
};

bool sameBytes(const std::vector<Vertex>& a, const std::vector<Vertex>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vertex)) == 0;
}

ModelParams params(ModelKind model, uint32_t grid) {
  ModelParams p;
  p.model = model;
  p.grid = grid;
  return p;
}

struct Fixture {
  explicit Fixture(const ModelParams& p) : vertices(size_t(p.grid) * p.grid), ops(vertices) {
    simulation = createCpuSimulation(p, vertices.data(), ops);
  }
  // The initial write, whose one simDone signal (render 0's wait) is checked
  // by its own test and then forgotten, so that a step's calls stand alone.
  void writeInitialState() {
    ASSERT_TRUE(simulation->writeInitialState().signalEnqueued);
    ops.calls.clear();
  }
  std::vector<Vertex> vertices;
  RecordingHostOps ops;
  std::unique_ptr<Simulation> simulation;
};

constexpr uint64_t kTimeoutNs = 123'456'789;

TEST(CpuSimulation, TimelineStepWaitsBeforeWritingAndSignalsAfter) {
  for (ModelKind model : {ModelKind::sinewave, ModelKind::ripple}) {
    Fixture f(params(model, 32));
    ASSERT_TRUE(f.simulation);
    const StepResult initial = f.simulation->writeInitialState();
    // Render 0 waits on simDone: the initial write ends in its signal, once,
    // after every vertex is written.
    EXPECT_EQ(initial.status, StepStatus::ok);
    EXPECT_TRUE(initial.signalEnqueued);
    EXPECT_FALSE(initial.waitEnqueued);
    ASSERT_EQ(f.ops.calls.size(), 1u);
    EXPECT_EQ(f.ops.calls[0].what, "signalSimDone");
    EXPECT_TRUE(sameBytes(f.ops.calls[0].vertices, f.vertices)) << "written after the initial signal";
    for (uint64_t k = 0; k < 3; ++k) {
      const std::vector<Vertex> before = f.vertices;
      f.ops.calls.clear();
      ASSERT_EQ(f.simulation->step({SyncMode::timeline, 2 * k + 1, 2 * k + 2}, true, kTimeoutNs).status,
                StepStatus::ok);
      ASSERT_EQ(f.ops.calls.size(), 2u);
      EXPECT_EQ(f.ops.calls[0].what, "waitTimeline");
      EXPECT_EQ(f.ops.calls[0].value, 2 * k + 1);
      EXPECT_TRUE(sameBytes(f.ops.calls[0].vertices, before)) << "written before the wait";
      EXPECT_EQ(f.ops.calls[1].what, "signalTimeline");
      EXPECT_EQ(f.ops.calls[1].value, 2 * k + 2);
      EXPECT_TRUE(sameBytes(f.ops.calls[1].vertices, f.vertices)) << "written after the signal";
      EXPECT_FALSE(sameBytes(f.vertices, before)) << "the step wrote nothing";
      EXPECT_EQ(f.ops.lastTimeoutNs, kTimeoutNs);
    }
    EXPECT_EQ(f.simulation->stepCount(), 3u);
  }
}

TEST(CpuSimulation, BinaryStepWaitsForRenderDoneBeforeWritingAndSignalsSimDoneAfter) {
  Fixture f(params(ModelKind::sinewave, 24));
  f.writeInitialState();
  const std::vector<Vertex> before = f.vertices;
  // Binary mode ignores the timeline values.
  const StepResult result = f.simulation->step({SyncMode::binary, 99, 100}, true, kTimeoutNs);
  ASSERT_EQ(result.status, StepStatus::ok);
  EXPECT_TRUE(result.waitEnqueued);
  EXPECT_TRUE(result.signalEnqueued);
  ASSERT_EQ(f.ops.calls.size(), 2u);
  EXPECT_EQ(f.ops.calls[0].what, "waitRenderDone");
  EXPECT_TRUE(sameBytes(f.ops.calls[0].vertices, before));
  EXPECT_EQ(f.ops.calls[1].what, "signalSimDone");
  EXPECT_TRUE(sameBytes(f.ops.calls[1].vertices, f.vertices));
  EXPECT_FALSE(sameBytes(f.vertices, before));
  EXPECT_EQ(f.ops.lastTimeoutNs, kTimeoutNs);
}

TEST(CpuSimulation, SwitchingModesBetweenStepsUsesEachModesOperations) {
  Fixture f(params(ModelKind::ripple, 16));
  f.writeInitialState();
  ASSERT_EQ(f.simulation->step({SyncMode::timeline, 1, 2}, true, kTimeoutNs).status, StepStatus::ok);
  ASSERT_EQ(f.simulation->step({SyncMode::binary, 0, 0}, true, kTimeoutNs).status, StepStatus::ok);
  ASSERT_EQ(f.simulation->step({SyncMode::timeline, 5, 6}, true, kTimeoutNs).status, StepStatus::ok);
  std::vector<std::string> order;
  for (const auto& call : f.ops.calls) order.push_back(call.what + ":" + std::to_string(call.value));
  EXPECT_EQ(order, (std::vector<std::string>{"waitTimeline:1", "signalTimeline:2", "waitRenderDone:0",
                                             "signalSimDone:0", "waitTimeline:5", "signalTimeline:6"}));
}

TEST(CpuSimulation, PausedStepStillWaitsAndSignalsButLeavesTheVertices) {
  for (SyncMode mode : {SyncMode::timeline, SyncMode::binary}) {
    Fixture f(params(ModelKind::ripple, 32));
    f.writeInitialState();
    ASSERT_EQ(f.simulation->step({mode, 1, 2}, true, kTimeoutNs).status, StepStatus::ok);
    const std::vector<Vertex> before = f.vertices;
    f.ops.calls.clear();
    ASSERT_EQ(f.simulation->step({mode, 3, 4}, false, kTimeoutNs).status, StepStatus::ok);
    ASSERT_EQ(f.ops.calls.size(), 2u);
    EXPECT_EQ(f.ops.calls[0].what, mode == SyncMode::timeline ? "waitTimeline" : "waitRenderDone");
    EXPECT_EQ(f.ops.calls[1].what, mode == SyncMode::timeline ? "signalTimeline" : "signalSimDone");
    if (mode == SyncMode::timeline) {
      EXPECT_EQ(f.ops.calls[0].value, 3u);
      EXPECT_EQ(f.ops.calls[1].value, 4u);
    }
    EXPECT_TRUE(sameBytes(f.vertices, before));
    EXPECT_EQ(f.simulation->stepCount(), 1u);
  }
}

TEST(CpuSimulation, TimedOutWaitReturnsTimeoutWithoutWritingOrSignalling) {
  for (SyncMode mode : {SyncMode::timeline, SyncMode::binary}) {
    Fixture f(params(ModelKind::sinewave, 16));
    f.writeInitialState();
    const std::vector<Vertex> before = f.vertices;
    f.ops.timeOut = true;
    const StepResult result = f.simulation->step({mode, 1, 2}, true, kTimeoutNs);
    EXPECT_EQ(result.status, StepStatus::timeout);
    // What the drain must know: the wait was handed over (binary: renderDone
    // is consumed by it), the signal was not (nothing for the drain to wait on).
    EXPECT_TRUE(result.waitEnqueued);
    EXPECT_FALSE(result.signalEnqueued);
    ASSERT_EQ(f.ops.calls.size(), 1u);
    EXPECT_EQ(f.ops.calls[0].what, mode == SyncMode::timeline ? "waitTimeline" : "waitRenderDone");
    EXPECT_TRUE(sameBytes(f.vertices, before));
    EXPECT_EQ(f.simulation->stepCount(), 0u);
  }
}

std::vector<Vertex> runRipple(uint64_t seed, int steps) {
  ModelParams p = params(ModelKind::ripple, 48);
  p.seed = seed;
  p.dropInterval = 4;
  Fixture f(p);
  f.writeInitialState();
  for (int k = 0; k < steps; ++k) {
    if (k == 10) {
      Drop drop;
      drop.x = -0.3f, drop.z = 0.2f;
      f.simulation->addDrop(drop);
    }
    EXPECT_EQ(f.simulation->step({SyncMode::timeline, 2u * k + 1, 2u * k + 2}, true, kTimeoutNs).status,
              StepStatus::ok);
  }
  return f.vertices;
}

TEST(CpuSimulation, RippleIsBitwiseReproducibleForASeed) {
  const std::vector<Vertex> first = runRipple(42, 120);
  const std::vector<Vertex> second = runRipple(42, 120);
  EXPECT_TRUE(sameBytes(first, second));
}

TEST(CpuSimulation, AnotherSeedGivesOtherDrops) {
  EXPECT_FALSE(sameBytes(runRipple(42, 120), runRipple(43, 120)));
}

TEST(CpuSimulation, WritesWhatTheReferenceModelsCompute) {
  ModelParams p = params(ModelKind::ripple, 40);
  p.dropInterval = 5;
  Fixture f(p);
  RippleModel reference(p);
  f.writeInitialState();
  for (uint64_t k = 0; k < 30; ++k) {
    ASSERT_EQ(f.simulation->step({SyncMode::timeline, 2 * k + 1, 2 * k + 2}, true, kTimeoutNs).status,
              StepStatus::ok);
    reference.step();
  }
  std::vector<Vertex> expected(40 * 40);
  reference.writeVertices(expected.data());
  EXPECT_TRUE(sameBytes(f.vertices, expected));

  Fixture sine(params(ModelKind::sinewave, 40));
  sine.writeInitialState();
  for (uint64_t k = 0; k < 7; ++k) sine.simulation->step({SyncMode::binary, 0, 0}, true, kTimeoutNs);
  writeSinewaveVertices(params(ModelKind::sinewave, 40), 7, expected.data());
  EXPECT_TRUE(sameBytes(sine.vertices, expected));
}

TEST(CpuSimulation, WriteInitialStateResetsTheStepCountAndTheState) {
  Fixture f(params(ModelKind::ripple, 32));
  f.writeInitialState();
  const std::vector<Vertex> initial = f.vertices;
  for (uint64_t k = 0; k < 5; ++k)
    f.simulation->step({SyncMode::timeline, 2 * k + 1, 2 * k + 2}, true, kTimeoutNs);
  EXPECT_EQ(f.simulation->stepCount(), 5u);
  f.writeInitialState();
  EXPECT_EQ(f.simulation->stepCount(), 0u);
  EXPECT_TRUE(sameBytes(f.vertices, initial));
}

TEST(CpuSimulation, SetParamsKeepsModelAndGridAndClamps) {
  Fixture f(params(ModelKind::ripple, 32));
  ModelParams changed = f.simulation->params();
  changed.model = ModelKind::sinewave;
  changed.grid = 64;
  changed.damping = 0.9f;
  changed.courant = 5.0f;
  f.simulation->setParams(changed);
  EXPECT_EQ(f.simulation->params().model, ModelKind::ripple);
  EXPECT_EQ(f.simulation->params().grid, 32u);
  EXPECT_EQ(f.simulation->params().damping, 0.9f);
  EXPECT_EQ(f.simulation->params().courant, kMaxCourant);
}

// The overlay's sliders reach the running model, not only params(): after
// setParams the steps are those of a model built with the new damping and
// wave speed, and differ from the old ones.
TEST(CpuSimulation, SetParamsChangesTheRunningRippleModel) {
  ModelParams p = params(ModelKind::ripple, 40);
  p.dropInterval = 5;
  ModelParams changed = p;
  changed.damping = p.damping * 0.5f;
  changed.courant = p.courant * 0.5f;
  ASSERT_NE(changed.damping, p.damping);

  Fixture f(p);
  f.writeInitialState();
  f.simulation->setParams(changed);
  RippleModel expectedModel(p), unchangedModel(p);
  expectedModel.setParams(changed);
  for (uint64_t k = 0; k < 30; ++k) {
    ASSERT_EQ(f.simulation->step({SyncMode::timeline, 2 * k + 1, 2 * k + 2}, true, kTimeoutNs).status,
              StepStatus::ok);
    expectedModel.step();
    unchangedModel.step();
  }
  std::vector<Vertex> expected(40 * 40), unchanged(40 * 40);
  expectedModel.writeVertices(expected.data());
  unchangedModel.writeVertices(unchanged.data());
  ASSERT_FALSE(sameBytes(expected, unchanged)) << "the change must show in 30 steps, or this test proves nothing";
  EXPECT_TRUE(sameBytes(f.vertices, expected)) << "the running model did not take the new parameters";
}

TEST(CpuSimulation, RefusesWhatItCannotWrite) {
  std::vector<Vertex> vertices(4);
  RecordingHostOps ops(vertices);
  EXPECT_EQ(createCpuSimulation(params(ModelKind::ripple, 1), vertices.data(), ops), nullptr);
  EXPECT_EQ(createCpuSimulation(params(ModelKind::ripple, kMaxGrid + 1), vertices.data(), ops), nullptr);
  EXPECT_EQ(createCpuSimulation(params(ModelKind::ripple, 2), nullptr, ops), nullptr);
  const auto simulation = createCpuSimulation(params(ModelKind::sinewave, 2), vertices.data(), ops);
  ASSERT_TRUE(simulation);
  EXPECT_EQ(simulation->backendName(), "cpu");
  EXPECT_FALSE(simulation->deviceName().empty());
  EXPECT_TRUE(simulation->finish(0));
}

// The copy path has no semaphores: nothing it does is outstanding for a drain.
TEST(CpuCopySimulation, ReportsNoWaitAndNoSignal) {
  const auto simulation = createCpuCopySimulation(params(ModelKind::ripple, 16));
  ASSERT_TRUE(simulation);
  const StepResult initial = simulation->writeInitialState();
  EXPECT_EQ(initial.status, StepStatus::ok);
  EXPECT_FALSE(initial.signalEnqueued);
  const StepResult step = simulation->step({SyncMode::binary, 0, 0}, true, kTimeoutNs);
  EXPECT_EQ(step.status, StepStatus::ok);
  EXPECT_FALSE(step.waitEnqueued);
  EXPECT_FALSE(step.signalEnqueued);
}

}  // namespace
}  // namespace vksim
