// The interop rules that only show at the ends of a run, in-process on
// lavapipe with the CPU backend and the validation layer on (ctest sets
// VKSIM_VALIDATION=1; these tests add synchronization validation):
// - the drain leaves the vertex buffer owned by Vulkan's queue family, so a
//   read-back after it is defined (and one before it is refused);
// - a step that fails before its signal leaves the drain nothing to wait for
//   and a renderDone nobody took is consumed: the run ends with exit 4, one
//   line, and no binary semaphore left signalled;
// - a device lost during teardown counts as idle: everything is destroyed,
//   exit 4, one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app/interop/teardown.h"
#include "app/interop/value_schedule.h"
#include "barrier_recorder.h"
#include "renderer/frame_sync.h"
#include "renderer/readback.h"
#include "renderer/vk_check.h"
#include "submit_recorder.h"
#include "sync_validation.h"

namespace vksim {
namespace {

size_t lineCount(const std::string& text) {
  return size_t(std::count(text.begin(), text.end(), '\n'));
}

// Synchronization validation for every instance created from now on in this
// process (ctest runs each test in a process of its own).
Options cpuOptions(SyncMode sync) {
  Options options;
  options.headless = true;
  options.backend = BackendChoice::cpu;
  options.sync = sync;
  options.model.model = ModelKind::ripple;
  options.model.grid = 48;
  options.width = options.height = 64;
  return options;
}

// The test seam for the CUDA path's ownership transfers on a driver without
// CUDA: the CPU backend's buffer is treated as written by another API, so
// every render acquires it from VK_QUEUE_FAMILY_EXTERNAL and releases it back
// exactly as on the CUDA zero-copy path, and the initial state starts out
// EXTERNAL's. (The host's writes through the mapping need no transfer; this
// only exercises Vulkan's side of them.)
void actAsExternalWriter(App& app) {
  app.grid.externalWriter = true;
  app.grid.vertexOwner = VertexOwner::external;
}

std::vector<uint8_t> mappedBytes(const App& app) {
  const auto* first = static_cast<const uint8_t*>(app.grid.vertices.mapped);
  return std::vector<uint8_t>(first, first + app.grid.vertices.size);
}

// The synchronization-validation tests here and in test_app.cpp mean
// something only if that validation is really on: a deliberate
// write-after-write hazard (two fills of one buffer, no barrier between) must
// be reported.
TEST(SynchronizationValidation, IsOnAndReportsADeliberateHazard) {
  enableSynchronizationValidation();
  App app;
  app.headless = true;
  createApp(app, cpuOptions(SyncMode::timeline));
  const uint32_t errorsBefore = validationCounts().errors.load();
  runOneTimeCommands(app.device, [&](VkCommandBuffer commandBuffer) {
    vkCmdFillBuffer(commandBuffer, app.grid.vertices.buffer, 0, VK_WHOLE_SIZE, 1u);
    vkCmdFillBuffer(commandBuffer, app.grid.vertices.buffer, 0, VK_WHOLE_SIZE, 2u);
  });
  EXPECT_GT(validationCounts().errors.load(), errorsBefore) << "synchronization validation is not on";
  destroyApp(app);
}

class DrainOwnership : public ::testing::TestWithParam<SyncMode> {};

TEST_P(DrainOwnership, LeavesTheBufferWithVulkanAndTheReadBackDefined) {
  enableSynchronizationValidation();
  App app;
  app.headless = true;
  Options options = cpuOptions(GetParam());
  options.switchSyncEvery = GetParam() == SyncMode::binary ? 3 : 0;  // binary also covers switches
  createApp(app, options);
  actAsExternalWriter(app);
  for (int frame = 0; frame < 12; ++frame) {
    ASSERT_EQ(runFrame(app), FrameStatus::rendered);
    ASSERT_EQ(app.grid.vertexOwner, VertexOwner::external) << "each render releases it back";
  }
  // Released to the other API: a Vulkan read-back now would be undefined.
  EXPECT_THROW(readSharedVertices(app.device, app.grid), RuntimeFailure);
  drainSchedule(app);
  EXPECT_EQ(app.grid.vertexOwner, VertexOwner::vulkan) << "the drain must acquire the buffer";
  EXPECT_TRUE(planDrain(app.schedule).empty());
  const std::vector<uint8_t> readBack = readSharedVertices(app.device, app.grid);
  EXPECT_EQ(readBack, mappedBytes(app)) << "the read-back differs from what the simulation wrote";
  // Twice is once: nothing is outstanding, nothing is submitted.
  drainSchedule(app);
  EXPECT_EQ(app.grid.vertexOwner, VertexOwner::vulkan);
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// What the layer cannot check: each render acquires the buffer from
// VK_QUEUE_FAMILY_EXTERNAL (not from its own family, which would be no
// transfer at all), behind a first scope of ALL_COMMANDS that chains with
// the semaphore wait at ALL_COMMANDS, and releases it back to EXTERNAL; the
// drain acquires it one last time.
TEST_P(DrainOwnership, EveryRenderAcquiresFromExternalAndReleasesBack) {
  enableSynchronizationValidation();
  App app;
  app.headless = true;
  Options options = cpuOptions(GetParam());
  options.switchSyncEvery = GetParam() == SyncMode::binary ? 3 : 0;
  createApp(app, options);
  actAsExternalWriter(app);
  const VkBuffer vertices = app.grid.vertices.buffer;
  const uint32_t family = app.device.queueFamily;
  {
    testing::BarrierRecorder recorder;
    for (int frame = 0; frame < 12; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
    drainSchedule(app);
    const auto acquires = recorder.transfersOf(vertices, VK_QUEUE_FAMILY_EXTERNAL, family);
    const auto releases = recorder.transfersOf(vertices, family, VK_QUEUE_FAMILY_EXTERNAL);
    EXPECT_EQ(acquires.size(), 13u) << "12 renders and the drain acquire the buffer from EXTERNAL";
    EXPECT_EQ(releases.size(), 12u) << "each render releases the buffer to EXTERNAL";
    for (const auto& acquire : acquires) EXPECT_EQ(acquire.srcStage, VkPipelineStageFlags(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT));
    // lavapipe offers no VK_KHR_maintenance8: the transfers take their
    // all-commands form, with no dependency flag (rule M21); the
    // renders' releases keep VERTEX_INPUT -> BOTTOM_OF_PIPE.
    ASSERT_FALSE(app.device.maintenance8);
    for (const auto& acquire : acquires) EXPECT_EQ(acquire.dependencyFlags, 0u);
    for (const auto& release : releases) {
      EXPECT_EQ(release.srcStage, VkPipelineStageFlags(VK_PIPELINE_STAGE_VERTEX_INPUT_BIT));
      EXPECT_EQ(release.dstStage, VkPipelineStageFlags(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT));
      EXPECT_EQ(release.dependencyFlags, 0u);
    }
    EXPECT_TRUE(recorder.transfersOf(vertices, family, family).empty()) << "a transfer within one family is none";
  }
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(BothModes, DrainOwnership, ::testing::Values(SyncMode::timeline, SyncMode::binary),
                         [](const auto& testInfo) { return std::string(toString(testInfo.param)); });

// A rebuild drains the old state and starts the new one EXTERNAL's again,
// whose render 0 waits on the new initial write's simDone.
TEST(DrainOwnership, ARebuildStartsOverWithTheInitialSignal) {
  enableSynchronizationValidation();
  App app;
  app.headless = true;
  const Options options = cpuOptions(SyncMode::timeline);
  createApp(app, options);
  for (int frame = 0; frame < 4; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  ModelParams bigger = options.model;
  bigger.grid = 40;
  rebuildGridResources(app, bigger);
  EXPECT_EQ(app.schedule.scheduleFrame, 0u);
  ASSERT_TRUE(app.schedule.simSignal);
  EXPECT_EQ(nextRenderSync(app.schedule).wait, RenderSync::Wait::simDone);
  for (int frame = 0; frame < 3; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  drainSchedule(app);
  EXPECT_EQ(readTimelineCounter(app.device, app.grid.semaphores), 6u) << "2N after N timeline frames";
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// The drain runs once on each way a grid ends (app/app.h, drainSchedule): a
// second call finds the schedule ended and submits nothing, so the teardown
// after the run's own drain does not drain again; a frame after a drain
// hands the buffer over again, and the next drain takes it back.
TEST(DrainOwnership, OnceAfterTheLastFrameAndAgainAfterMoreFrames) {
  enableSynchronizationValidation();
  App app;
  app.headless = true;
  createApp(app, cpuOptions(SyncMode::binary));
  actAsExternalWriter(app);
  for (int frame = 0; frame < 3; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  drainSchedule(app);
  EXPECT_TRUE(app.path.drained);
  EXPECT_EQ(app.grid.vertexOwner, VertexOwner::vulkan);
  {
    testing::SubmitRecorder recorder;
    drainSchedule(app);
    EXPECT_EQ(recorder.submissions, 0u) << "a second drain of an ended schedule submits nothing";
  }
  for (int frame = 0; frame < 3; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  EXPECT_FALSE(app.path.drained) << "a frame hands the buffer over again";
  drainSchedule(app);
  EXPECT_EQ(app.grid.vertexOwner, VertexOwner::vulkan) << "the drain after more frames must acquire the buffer";
  EXPECT_TRUE(planDrain(app.schedule).empty()) << "the drain after more frames left a signal outstanding";
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// A simulation that, from step `failAt` on, fails partway through its turn:
// before its wait (binary: renderDone stays unconsumed) or after its wait but
// before its signal. Everything else is the real CPU backend's.
class FailingSimulation final : public Simulation {
 public:
  enum class Where { beforeWait, beforeSignal };
  FailingSimulation(std::unique_ptr<Simulation> inner, HostSemaphoreOps& hostOps, uint64_t failAt, Where where)
      : inner_(std::move(inner)), hostOps_(hostOps), failAt_(failAt), where_(where) {}

  StepResult writeInitialState() override { return inner_->writeInitialState(); }
  StepResult step(const StepSync& sync, bool advance, uint64_t timeoutNs) override {
    if (steps_++ < failAt_) return inner_->step(sync, advance, timeoutNs);
    StepResult result;
    result.status = StepStatus::failed;
    if (where_ == Where::beforeSignal) {
      const bool waited = sync.mode == SyncMode::timeline ? hostOps_.waitTimeline(sync.waitValue, timeoutNs)
                                                          : hostOps_.waitRenderDone(timeoutNs);
      result.waitEnqueued = true;
      if (!waited) result.status = StepStatus::timeout;
    }
    return result;
  }
  void setParams(const ModelParams& params) override { inner_->setParams(params); }
  const ModelParams& params() const override { return inner_->params(); }
  void addDrop(const Drop& drop) override { inner_->addDrop(drop); }
  uint64_t stepCount() const override { return inner_->stepCount(); }
  bool finish(uint64_t timeoutNs) override { return inner_->finish(timeoutNs); }
  std::string backendName() const override { return inner_->backendName(); }
  std::string deviceName() const override { return inner_->deviceName(); }

 private:
  std::unique_ptr<Simulation> inner_;
  HostSemaphoreOps& hostOps_;
  uint64_t failAt_, steps_ = 0;
  Where where_;
};

void installFailingSimulation(App& app, uint64_t failAt, FailingSimulation::Where where) {
  app.grid.simulation = std::make_unique<FailingSimulation>(std::move(app.grid.simulation),
                                                              *app.path.cpuHost.hostOps, failAt, where);
}

// After the drain nothing is left signalled: a fresh signal of each binary
// semaphore is valid (signalling one that is still signalled is a validation
// error, VUID-vkQueueSubmit-pSignalSemaphores-00067), and is then consumed.
void expectNoBinarySemaphoreSignalled(App& app) {
  const uint32_t errorsBefore = validationCounts().errors.load();
  // The frame's fence is reused below. A drain with nothing to drain (a step
  // that failed before its signal, timeline) returns without waiting for
  // it, so the failed frame's render may still hold it: resetting it then is
  // VUID-vkResetFences-pFences-01123 (seen once in CI, in one run of several:
  // whether the layer still counts the fence in use there depends on timing).
  ASSERT_TRUE(waitForFence(app.device, currentSlotResources(app).inFlight, kWaitTimeoutNs));
  for (VkSemaphore semaphore : {app.grid.semaphores.renderDone, app.grid.semaphores.simDone}) {
    const SemaphoreSignal signal{semaphore, 0};
    submitToQueue(app.device, VK_NULL_HANDLE, {}, {&signal, 1}, VK_NULL_HANDLE);
    const SemaphoreWait wait{semaphore, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
    VK_CHECK(vkResetFences(app.device.device, 1, &currentSlotResources(app).inFlight));
    submitToQueue(app.device, VK_NULL_HANDLE, {&wait, 1}, {}, currentSlotResources(app).inFlight);
    ASSERT_TRUE(waitForFence(app.device, currentSlotResources(app).inFlight, kWaitTimeoutNs));
  }
  EXPECT_EQ(validationCounts().errors.load(), errorsBefore) << "a binary semaphore was left signalled";
}

struct FailureCase {
  SyncMode sync;
  FailingSimulation::Where where;
  const char* name;
};

class FailedStep : public ::testing::TestWithParam<FailureCase> {};

TEST_P(FailedStep, LeavesTheDrainExactlyWhatWasSignalled) {
  enableSynchronizationValidation();
  const FailureCase failure = GetParam();
  App app;
  app.headless = true;
  createApp(app, cpuOptions(failure.sync));
  installFailingSimulation(app, 3, failure.where);
  for (int frame = 0; frame < 3; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  EXPECT_THROW(runFrame(app), RuntimeFailure);
  const DrainPlan plan = planDrain(app.schedule);
  EXPECT_FALSE(plan.simSignal) << "the failed step enqueued no signal";
  EXPECT_EQ(plan.consumeRenderDone,
            failure.sync == SyncMode::binary && failure.where == FailingSimulation::Where::beforeWait);
  // Returns without waiting on the signal that never came (it would throw a
  // timeout after kWaitTimeoutNs otherwise).
  EXPECT_NO_THROW(drainSchedule(app));
  EXPECT_TRUE(planDrain(app.schedule).empty());
  expectNoBinarySemaphoreSignalled(app);
  EXPECT_NO_THROW(destroyApp(app));
  EXPECT_EQ(app.device.device, VK_NULL_HANDLE);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// The same failures on the zero-copy path's ownership (the external-writer
// seam): the failed frame's render released the buffer to
// VK_QUEUE_FAMILY_EXTERNAL, and the step enqueued no signal. An acquire is
// ordered after the other API's writes only by a wait, in the same
// submission, on a signal that the simulation enqueued (rule M21): with none,
// the drain must leave the buffer EXTERNAL's rather than acquire it unordered,
// whatever else it submits. Driven through drainSchedule's own contract
// (app/interop/teardown.h), every barrier and wait recorded.
TEST_P(FailedStep, TheDrainAcquiresFromExternalOnlyAfterASimulationSignal) {
  const FailureCase failure = GetParam();
  App app;
  app.headless = true;
  createApp(app, cpuOptions(failure.sync));
  actAsExternalWriter(app);
  installFailingSimulation(app, 3, failure.where);
  for (int frame = 0; frame < 3; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  EXPECT_THROW(runFrame(app), RuntimeFailure);
  ASSERT_EQ(app.grid.vertexOwner, VertexOwner::external) << "the failed frame's render released the buffer";
  const SyncSemaphores semaphores = app.grid.semaphores;
  const VkBuffer vertices = app.grid.vertices.buffer;
  {
    testing::BarrierRecorder barriers;
    testing::SubmitRecorder submits;
    EXPECT_NO_THROW(drainSchedule(app.device, currentSlotResources(app), app.grid, app.schedule, app.deviceLoss,
                                  GridResourceHooks{}));
    const size_t acquires =
        barriers.transfersOf(vertices, VK_QUEUE_FAMILY_EXTERNAL, app.device.queueFamily).size();
    const size_t simWaits = submits.waitsOn(semaphores.timeline).size() + submits.waitsOn(semaphores.simDone).size();
    EXPECT_TRUE(acquires == 0 || simWaits > 0)
        << "the drain acquired the vertex buffer from VK_QUEUE_FAMILY_EXTERNAL " << acquires
        << " time(s) with no wait on a simulation signal before it";
    EXPECT_EQ(acquires, 0u) << "the failed step signalled nothing that could order an acquire";
  }
  EXPECT_TRUE(planDrain(app.schedule).empty());
  EXPECT_NO_THROW(destroyApp(app));
  EXPECT_EQ(app.device.device, VK_NULL_HANDLE);
}

INSTANTIATE_TEST_SUITE_P(
    BeforeWaitOrSignal, FailedStep,
    ::testing::Values(FailureCase{SyncMode::timeline, FailingSimulation::Where::beforeSignal, "timeline_before_signal"},
                      FailureCase{SyncMode::binary, FailingSimulation::Where::beforeSignal, "binary_before_signal"},
                      FailureCase{SyncMode::binary, FailingSimulation::Where::beforeWait, "binary_before_wait"}),
    [](const auto& testInfo) { return std::string(testInfo.param.name); });

// The same through runThenTearDown, as the program ends: exit 4, and one line
// on stderr, the step's (a drain that waited for a signal never enqueued
// would add a second, "teardown: timeout ...", after kWaitTimeoutNs).
TEST(FailedStep, EndsTheRunWithExitFourAndOneLine) {
  for (SyncMode sync : {SyncMode::timeline, SyncMode::binary}) {
    App app;
    app.headless = true;
    ::testing::internal::CaptureStderr();
    const int exitCode = runThenTearDown(app, [&] {
      createApp(app, cpuOptions(sync));
      installFailingSimulation(app, 2, FailingSimulation::Where::beforeSignal);
      for (;;) runFrame(app);
    });
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(exitCode, kExitRuntime) << err;
    EXPECT_EQ(lineCount(err), 1u) << err;
    EXPECT_NE(err.find("the simulation step failed (frame 2, " + std::string(toString(sync)) + " mode)"),
              std::string::npos)
        << err;
    EXPECT_EQ(app.device.device, VK_NULL_HANDLE) << "teardown did not complete";
    EXPECT_EQ(app.instance.instance, VK_NULL_HANDLE);
  }
}

// VK_ERROR_DEVICE_LOST in teardown counts as idle (the spec's Lost Device
// section): everything is destroyed, and the run that had succeeded until
// then exits 4 with one line. lavapipe never loses its device, so the seam
// (the fault `device-lost`) makes teardown's waits report it once the device
// really is idle.
TEST(DeviceLost, InTeardownEverythingIsDestroyedAndTheRunExitsFourWithOneLine) {
  for (SyncMode sync : {SyncMode::timeline, SyncMode::binary}) {
    enableSynchronizationValidation();
    App app;
    app.headless = true;
    ::testing::internal::CaptureStderr();
    const int exitCode = runThenTearDown(app, [&] {
      createApp(app, cpuOptions(sync));
      for (int frame = 0; frame < 5; ++frame) runFrame(app);
      app.deviceLoss.injectInTeardown = true;
    });
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(exitCode, kExitRuntime) << err;
    EXPECT_EQ(lineCount(err), 1u) << err;
    EXPECT_NE(err.find("VK_ERROR_DEVICE_LOST"), std::string::npos) << err;
    EXPECT_TRUE(app.deviceLoss.lost);
    EXPECT_EQ(app.grid.simulation, nullptr);
    EXPECT_EQ(app.grid.vertices.buffer, VK_NULL_HANDLE);
    EXPECT_EQ(app.grid.semaphores.timeline, VK_NULL_HANDLE);
    EXPECT_EQ(currentSlotResources(app).inFlight, VK_NULL_HANDLE);
    EXPECT_EQ(app.device.device, VK_NULL_HANDLE);
    EXPECT_EQ(app.instance.instance, VK_NULL_HANDLE);
    EXPECT_EQ(validationCounts().errors.load(), 0u);
  }
}

// A loss seen by the run's own drain (before --dump-vertices would read) is
// the run's one line; teardown then submits nothing and adds nothing.
TEST(DeviceLost, InTheRunsDrainIsOneLineAndTeardownStillCompletes) {
  App app;
  app.headless = true;
  ::testing::internal::CaptureStderr();
  const int exitCode = runThenTearDown(app, [&] {
    createApp(app, cpuOptions(SyncMode::binary));
    for (int frame = 0; frame < 3; ++frame) runFrame(app);
    app.deviceLoss.injectInTeardown = true;
    drainSchedule(app);
    if (app.deviceLoss.lost) throw RuntimeFailure("the Vulkan device was lost (VK_ERROR_DEVICE_LOST)");
  });
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(exitCode, kExitRuntime) << err;
  EXPECT_EQ(lineCount(err), 1u) << err;
  EXPECT_EQ(app.device.device, VK_NULL_HANDLE);
}

}  // namespace
}  // namespace vksim
