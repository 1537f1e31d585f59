// The barriers and waits of the paths on which no other API touches the
// memory, in-process on lavapipe with the CPU backend and synchronization
// validation on. On these paths one queue orders everything, so a barrier a
// stage too late or a wait a stage too late is a race that a fast driver
// may hide and the layer (1.3.239) does not always report across
// submissions: the recorded commands themselves are checked.
// - the copy path (--transfer copy): the upload may overwrite the vertices
//   only after the previous frame's vertex reads, and the draw reads them
//   only after the upload's writes (docs/design.md, "Paths");
// - the CPU host path: the render's wait on the step before it covers the
//   vertex input and, when the render uploads the texels the step wrote, the
//   transfer that uploads them; nothing is acquired from or released to
//   VK_QUEUE_FAMILY_EXTERNAL.
#include <gtest/gtest.h>

#include <cstdlib>

#include "app/app.h"
#include "app/frame_loop.h"
#include "barrier_recorder.h"
#include "submit_recorder.h"

namespace vksim {
namespace {

constexpr VkPipelineStageFlags kVertexInput = VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;
constexpr VkPipelineStageFlags kTransfer = VK_PIPELINE_STAGE_TRANSFER_BIT;

Options cpuOptions(TransferMode transfer) {
  setenv("VKSIM_VALIDATION", "1", 1);
  setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 1);
  Options options;
  options.headless = true;
  options.backend = BackendChoice::cpu;
  options.transfer = transfer;
  options.switchSyncEvery = 2;
  options.model.model = ModelKind::ripple;
  options.model.grid = 32;
  options.width = options.height = 64;
  return options;
}

void expectLayerSilent() {
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// Each frame's upload: an execution dependency from the vertex reads to the
// copy (write after read, across frames), then the copy's writes made
// visible to the vertex input (read after write).
TEST(PathBarriers, CopyPathUploadWaitsForTheReadsAndTheDrawForTheUpload) {
  App app;
  app.headless = true;
  createApp(app, cpuOptions(TransferMode::copy));
  ASSERT_EQ(app.path.descriptor->path, InteropPath::copy);
  const VkBuffer vertices = app.grid.vertices.buffer;
  {
    testing::BarrierRecorder recorder;
    for (int frame = 0; frame < 6; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
    drainSchedule(app);
    int beforeCopy = 0, afterCopy = 0;
    for (const testing::RecordedBarrier& barrier : recorder.barriers) {
      if (barrier.dstStage == kTransfer && barrier.buffers.empty()) {
        ++beforeCopy;
        EXPECT_EQ(barrier.srcStage & kVertexInput, kVertexInput)
            << "the upload's barrier does not wait for the previous frame's vertex reads: src 0x" << std::hex
            << barrier.srcStage;
      }
      for (const VkBufferMemoryBarrier& buffer : barrier.buffers) {
        if (buffer.buffer != vertices) continue;
        ++afterCopy;
        EXPECT_EQ(barrier.srcStage, kTransfer);
        EXPECT_EQ(barrier.dstStage & kVertexInput, kVertexInput)
            << "the draw's vertex reads are outside the upload barrier's second scope: dst 0x" << std::hex
            << barrier.dstStage;
        EXPECT_EQ(buffer.srcAccessMask, VkAccessFlags(VK_ACCESS_TRANSFER_WRITE_BIT));
        EXPECT_EQ(buffer.dstAccessMask & VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT,
                  VkAccessFlags(VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT));
      }
    }
    // One pair per frame, and one more where the drain uploads the last step's output.
    EXPECT_GE(beforeCopy, 6) << "one write-after-read barrier per upload";
    EXPECT_EQ(afterCopy, beforeCopy) << "one read-after-write barrier per upload";
  }
  destroyApp(app);
  expectLayerSilent();
}

// Whether a semaphore wait at `mask` waits before every command at `stage`:
// the stage itself, or a mask that names it as a group (ALL_COMMANDS; for a
// graphics stage, ALL_GRAPHICS). Any wider wait is correct, only slower.
bool coversStage(VkPipelineStageFlags mask, VkPipelineStageFlags stage) {
  constexpr VkPipelineStageFlags kTransferStage = VK_PIPELINE_STAGE_TRANSFER_BIT;
  if (mask & (stage | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT)) return true;
  return stage != kTransferStage && (mask & VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT);
}

// The CPU host path with the surface texture: every render uploads the
// texels the step wrote (TRANSFER) before the mesh reads the vertices, so
// its wait on the step's signal must cover both stages (a wider wait, up to
// ALL_COMMANDS, is correct too). Nothing but the host writes the memory on
// this path, so no render and no drain acquires anything from
// VK_QUEUE_FAMILY_EXTERNAL: the mapped writes are made visible by the
// submission itself.
TEST(PathBarriers, CpuHostRenderWaitCoversTheTexelUploadAndTheVertexInput) {
  App app;
  app.headless = true;
  createApp(app, cpuOptions(TransferMode::zeroCopy));
  ASSERT_EQ(app.path.descriptor->path, InteropPath::cpuHost);
  ASSERT_EQ(app.grid.texture.writer, TextureWriter::hostUpload);
  const SyncSemaphores semaphores = app.grid.semaphores;
  const VkBuffer vertices = app.grid.vertices.buffer;
  const VkImage texture = app.grid.texture.image;
  {
    testing::SubmitRecorder recorder;
    testing::BarrierRecorder barriers;
    for (int frame = 0; frame < 8; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
    std::vector<testing::RecordedWait> renderWaits = recorder.waitsOn(semaphores.timeline);
    for (const testing::RecordedWait& wait : recorder.waitsOn(semaphores.simDone))
      renderWaits.push_back(wait);
    EXPECT_GE(renderWaits.size(), 7u);  // frame 0 may wait on nothing but the initial write's signal
    for (const testing::RecordedWait& wait : renderWaits) {
      EXPECT_TRUE(coversStage(wait.stage, kVertexInput))
          << "submission " << wait.submission << ": the render's wait at 0x" << std::hex << wait.stage
          << " does not cover the vertex input";
      EXPECT_TRUE(coversStage(wait.stage, kTransfer))
          << "submission " << wait.submission << ": the render's wait at 0x" << std::hex << wait.stage
          << " does not cover the texels' upload";
    }
    drainSchedule(app);
    const uint32_t family = app.device.queueFamily;
    EXPECT_TRUE(barriers.transfersOf(vertices, VK_QUEUE_FAMILY_EXTERNAL, family).empty())
        << "a plain CPU run acquired the vertex buffer from VK_QUEUE_FAMILY_EXTERNAL";
    EXPECT_TRUE(barriers.transfersOf(vertices, family, VK_QUEUE_FAMILY_EXTERNAL).empty())
        << "a plain CPU run released the vertex buffer to VK_QUEUE_FAMILY_EXTERNAL";
    EXPECT_TRUE(barriers.transfersOf(texture, VK_QUEUE_FAMILY_EXTERNAL, family).empty())
        << "a plain CPU run acquired the texture from VK_QUEUE_FAMILY_EXTERNAL";
  }
  destroyApp(app);
  expectLayerSilent();
}

}  // namespace
}  // namespace vksim
