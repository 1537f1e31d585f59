// The stage of the render's semaphore wait when an acquire from
// VK_QUEUE_FAMILY_EXTERNAL comes after it, as submitted (rules M21, M22,
// renderer/external_transfer_stages.h): the acquire happens in no pipeline
// stage, so without VK_KHR_maintenance8 the wait must be at ALL_COMMANDS;
// only a device with the extension enabled may wait at the acquire's own
// (narrow) stages. In-process on lavapipe (no maintenance8) with the CPU
// backend acting as the other API's writer (the external-writer seam of
// test_interop_teardown.cpp), every vkQueueSubmit recorded.
#include <gtest/gtest.h>

#include <cstdlib>

#include "app/app.h"
#include "app/frame_loop.h"
#include "renderer/external_transfer_stages.h"
#include "submit_recorder.h"

namespace vksim {
namespace {

constexpr VkPipelineStageFlags kAllCommands = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
constexpr VkPipelineStageFlags kVertexInput = VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;

class ExternalAcquireWait : public ::testing::TestWithParam<SyncMode> {};

TEST_P(ExternalAcquireWait, IsAtAllCommandsWithoutMaintenance8) {
  setenv("VKSIM_VALIDATION", "1", 1);
  setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 1);
  Options options;
  options.headless = true;
  options.backend = BackendChoice::cpu;
  options.sync = GetParam();
  options.switchSyncEvery = 3;  // both modes' waits: timeline values and simDone
  options.model.model = ModelKind::ripple;
  options.model.grid = 32;
  options.width = options.height = 64;
  App app;
  app.headless = true;
  createApp(app, options);
  // The seam: every render acquires the buffer from EXTERNAL, as on the
  // CUDA zero-copy path.
  app.grid.externalWriter = true;
  app.grid.vertexOwner = VertexOwner::external;
  const bool maintenance8 = app.device.maintenance8;
  const SyncSemaphores semaphores = app.grid.semaphores;
  {
    testing::SubmitRecorder recorder;
    for (int frame = 0; frame < 12; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
    drainSchedule(app);
    // Every wait on the simulation's signal (timeline or simDone) orders an
    // acquire: 12 renders and the drain.
    std::vector<testing::RecordedWait> acquireWaits = recorder.waitsOn(semaphores.timeline);
    for (const testing::RecordedWait& wait : recorder.waitsOn(semaphores.simDone))
      acquireWaits.push_back(wait);
    EXPECT_GE(acquireWaits.size(), 13u);
    // What the rule asks, written out: ALL_COMMANDS, or with maintenance8
    // the stages of the acquire's consumer, the vertex input.
    const VkPipelineStageFlags required = maintenance8 ? kVertexInput : kAllCommands;
    for (const testing::RecordedWait& wait : acquireWaits)
      EXPECT_EQ(wait.stage & required, required)
          << "submission " << wait.submission << ": a wait that orders an acquire from EXTERNAL at stages 0x"
          << std::hex << wait.stage << (maintenance8 ? "" : " on a device without VK_KHR_maintenance8");
    // The one place that decides it agrees.
    EXPECT_EQ(externalAcquireStages(maintenance8, kVertexInput).semaphoreWaitStage & required, required);
  }
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(SyncModes, ExternalAcquireWait,
                         ::testing::Values(SyncMode::timeline, SyncMode::binary),
                         [](const ::testing::TestParamInfo<SyncMode>& p) {
                           return std::string(toString(p.param));
                         });

}  // namespace
}  // namespace vksim
