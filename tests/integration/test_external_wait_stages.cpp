// The stage of the render's semaphore wait when an acquire from
// VK_QUEUE_FAMILY_EXTERNAL comes after it, as submitted (rules M21, M22,
// renderer/external_transfer_stages.h): the acquire happens in no pipeline
// stage, so without VK_KHR_maintenance8 the wait must be at ALL_COMMANDS;
// only a device with the extension enabled may wait at the acquire's own
// (narrow) stages. In-process on lavapipe (no maintenance8) with the CPU
// backend acting as the other API's writer (the external-writer seam of
// test_interop_teardown.cpp), every vkQueueSubmit recorded: on the CPU host
// path's frames, and on the zero-copy path's own frame function, which
// computes its wait stage in its own file. On the same seam, the vertex
// buffer's ownership transfers in the zero-copy and the OpenCL frames'
// renders, every vkCmdPipelineBarrier recorded.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app/paths/path_factory.h"
#include "barrier_recorder.h"
#include "renderer/external_transfer_stages.h"
#include "submit_recorder.h"

namespace vksim {
namespace {

constexpr VkPipelineStageFlags kAllCommands = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
constexpr VkPipelineStageFlags kVertexInput = VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;

class ExternalAcquireWait : public ::testing::TestWithParam<SyncMode> {};

// A CPU run in `sync` mode, switching every 3 frames (both modes' waits:
// timeline values and simDone), with the external-writer seam: every render
// acquires the buffer from EXTERNAL, as on the CUDA zero-copy path. Without
// the surface texture: the seam below runs frames that upload no texels.
App& createExternalWriterApp(App& app, SyncMode sync) {
  setenv("VKSIM_VALIDATION", "1", 1);
  setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 1);
  Options options;
  options.headless = true;
  options.backend = BackendChoice::cpu;
  options.sync = sync;
  options.switchSyncEvery = 3;
  options.texture = false;
  options.model.model = ModelKind::ripple;
  options.model.grid = 32;
  options.width = options.height = 64;
  app.headless = true;
  createApp(app, options);
  app.grid.externalWriter = true;
  app.grid.vertexOwner = VertexOwner::external;
  return app;
}

// Runs 12 frames and the drain with every vkQueueSubmit recorded, and holds
// every wait on the simulation's signal (each orders an acquire) to the rule:
// ALL_COMMANDS, or with maintenance8 the stages of the acquire's consumer,
// the vertex input.
void expectAcquireWaitsFollowTheRule(App& app) {
  const bool maintenance8 = app.device.maintenance8;
  const SyncSemaphores semaphores = app.grid.semaphores;
  testing::SubmitRecorder recorder;
  for (int frame = 0; frame < 12; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  drainSchedule(app);
  // 12 renders and the drain.
  std::vector<testing::RecordedWait> acquireWaits = recorder.waitsOn(semaphores.timeline);
  for (const testing::RecordedWait& wait : recorder.waitsOn(semaphores.simDone)) acquireWaits.push_back(wait);
  EXPECT_GE(acquireWaits.size(), 13u);
  const VkPipelineStageFlags required = maintenance8 ? kVertexInput : kAllCommands;
  for (const testing::RecordedWait& wait : acquireWaits)
    EXPECT_EQ(wait.stage & required, required)
        << "submission " << wait.submission << ": a wait that orders an acquire from EXTERNAL at stages 0x"
        << std::hex << wait.stage << (maintenance8 ? "" : " on a device without VK_KHR_maintenance8");
  // The one place that decides it agrees.
  EXPECT_EQ(externalAcquireStages(maintenance8, kVertexInput).semaphoreWaitStage & required, required);
}

// The CPU host path's renders.
TEST_P(ExternalAcquireWait, IsAtAllCommandsWithoutMaintenance8) {
  App app;
  createExternalWriterApp(app, GetParam());
  ASSERT_EQ(app.path.descriptor->path, InteropPath::cpuHost);
  expectAcquireWaitsFollowTheRule(app);
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// The zero-copy path's own frame (runZeroCopyFrame, through its descriptor's
// frame function) on the same seam: the CPU simulation takes CUDA's turns
// through the host semaphore operations, and the frame acquires, renders and
// releases as it does for CUDA, with the wait stage it computes itself. The
// CPU host path's descriptor is put back before the teardown, which destroys
// that path's own state.
TEST_P(ExternalAcquireWait, ZeroCopyFrameIsAtAllCommandsWithoutMaintenance8) {
  App app;
  createExternalWriterApp(app, GetParam());
  const PathDescriptor* cpuHost = app.path.descriptor;
  ASSERT_EQ(cpuHost->path, InteropPath::cpuHost);
  ASSERT_EQ(app.grid.texture.writer, TextureWriter::placeholder);
  app.path.descriptor = &describePath(InteropPath::zeroCopy);
  expectAcquireWaitsFollowTheRule(app);
  app.path.descriptor = cpuHost;
  destroyApp(app);
}

// The ownership transfers that render k's command buffer records on the same
// seam, on the zero-copy frame and on the OpenCL frame, which begins and ends
// its render with the same two functions (beginZeroCopyRender: the acquire;
// endZeroCopyRender: the release) and, with the texture off, records nothing
// between them but the mesh pass: one acquire of the vertex buffer from
// EXTERNAL and one release back per render, in that order. Binary sync and
// no switch, as OpenCL runs.
class ExternalWriterRender : public ::testing::TestWithParam<InteropPath> {};

TEST_P(ExternalWriterRender, EachRenderAcquiresTheBufferFromExternalThenReleasesIt) {
  App app;
  createExternalWriterApp(app, SyncMode::binary);
  app.schedule.switchEvery = 0;
  const PathDescriptor* cpuHost = app.path.descriptor;
  ASSERT_EQ(cpuHost->path, InteropPath::cpuHost);
  ASSERT_EQ(app.grid.texture.writer, TextureWriter::placeholder);
  app.path.descriptor = &describePath(GetParam());
  const VkBuffer vertices = app.grid.vertices.buffer;
  const uint32_t family = app.device.queueFamily;
  std::string transfers;  // 'A' an acquire from EXTERNAL, 'R' a release to it, in recording order
  {
    testing::BarrierRecorder recorder;
    for (int frame = 0; frame < 6; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered) << "frame " << frame;
    for (const testing::RecordedBarrier& barrier : recorder.barriers)
      for (const VkBufferMemoryBarrier& buffer : barrier.buffers)
        if (buffer.buffer == vertices)
          transfers += buffer.srcQueueFamilyIndex == VK_QUEUE_FAMILY_EXTERNAL && buffer.dstQueueFamilyIndex == family
                           ? 'A'
                           : buffer.srcQueueFamilyIndex == family && buffer.dstQueueFamilyIndex == VK_QUEUE_FAMILY_EXTERNAL
                                 ? 'R'
                                 : '?';
  }
  EXPECT_EQ(transfers, "ARARARARARAR") << toString(GetParam()) << ": the vertex buffer's transfers over 6 renders";
  drainSchedule(app);
  app.path.descriptor = cpuHost;
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Paths, ExternalWriterRender, ::testing::Values(InteropPath::zeroCopy, InteropPath::openCl),
                         [](const ::testing::TestParamInfo<InteropPath>& p) {
                           return p.param == InteropPath::zeroCopy ? std::string("zeroCopy") : std::string("openCl");
                         });

INSTANTIATE_TEST_SUITE_P(SyncModes, ExternalAcquireWait,
                         ::testing::Values(SyncMode::timeline, SyncMode::binary),
                         [](const ::testing::TestParamInfo<SyncMode>& p) {
                           return std::string(toString(p.param));
                         });

}  // namespace
}  // namespace vksim
