// Frames in flight (base/config.h), in-process on lavapipe with the
// validation layer and synchronization validation on: a render-queue backend
// (--backend vulkan) keeps two frames in flight, alternating its frame slots,
// and every frame's render timestamps still reach that frame (they arrive two
// frames later, from the slot the frame used); every other path keeps one
// frame in flight on slot 0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "frame_timings.h"
#include "renderer/vk_check.h"
#include "sync_validation.h"

namespace vksim {
namespace {

Options inFlightOptions(BackendChoice backend, SyncMode sync) {
  Options options;
  options.headless = true;
  options.backend = backend;
  options.sync = sync;
  options.model.model = ModelKind::ripple;
  options.model.grid = 48;
  options.width = options.height = 64;
  return options;
}

struct SlotRun {
  std::vector<uint32_t> slots;        // app.frameSlot after each frame
  std::vector<FrameTiming> timings;   // every frame's record, after the drain
};

// Runs `frames` frames (switching the sync mode every third frame), drains,
// settles the timings and takes every record.
SlotRun runFrames(BackendChoice backend, SyncMode sync, int frames) {
  enableSynchronizationValidation();
  SlotRun run;
  App app;
  app.headless = true;
  createApp(app, inFlightOptions(backend, sync));
  EXPECT_TRUE(app.instance.validation && app.instance.synchronizationValidation);
  for (int frame = 0; frame < frames; ++frame) {
    if (frame % 3 == 2)
      requestSyncMode(app, app.schedule.mode == SyncMode::timeline ? SyncMode::binary : SyncMode::timeline);
    EXPECT_EQ(runFrame(app), FrameStatus::rendered);
    run.slots.push_back(app.frameSlot);
  }
  run.timings = drainAndTakeFrameTimings(app);
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
  return run;
}

TEST(FramesInFlight, TheVulkanBackendAlternatesTwoSlotsAndEveryFrameKeepsItsOwnRenderTime) {
  constexpr int kFrames = 12;
  const SlotRun run = runFrames(BackendChoice::vulkan, SyncMode::timeline, kFrames);
  ASSERT_EQ(run.slots.size(), size_t(kFrames));
  for (size_t k = 1; k < run.slots.size(); ++k)
    EXPECT_NE(run.slots[k], run.slots[k - 1]) << "frame " << k << " reused the slot of the frame before it";
  ASSERT_EQ(run.timings.size(), size_t(kFrames));
  // One queue runs render 0, sim 0, render 1, sim 1, ... each after the one
  // before (the schedule's semaphores). A render span or a step span attached
  // to a neighbouring frame (the other slot's) breaks this interleaving.
  for (size_t k = 0; k < run.timings.size(); ++k) {
    const FrameTiming& timing = run.timings[k];
    EXPECT_EQ(timing.frame, k);
    ASSERT_TRUE(timing.renderGpu.has_value()) << "frame " << k << " has no render time";
    ASSERT_TRUE(timing.simWork.has_value()) << "frame " << k << " has no step time";
    EXPECT_LE(timing.renderGpu->beginNs, timing.renderGpu->endNs) << "frame " << k;
    EXPECT_LE(timing.renderGpu->endNs, timing.simWork->beginNs)
        << "frame " << k << ": its step began before its render ended";
    if (k > 0) {
      EXPECT_LE(run.timings[k - 1].simWork->endNs, timing.renderGpu->beginNs)
          << "frame " << k << ": its render began before the step before it ended";
    }
  }
}

// On lavapipe, where vkGetQueryPoolResults waits for the whole device to be
// idle, the render's timestamps come through a buffer the command buffer
// fills (renderer/gpu_timer.h): a stuck queue cannot block the frame loop.
TEST(FramesInFlight, LavapipesTimerReadsItsResultsWithoutAVulkanCall) {
  App app;
  app.headless = true;
  createApp(app, inFlightOptions(BackendChoice::cpu, SyncMode::timeline));
  ASSERT_EQ(app.device.info.driverId, VK_DRIVER_ID_MESA_LLVMPIPE) << "these tests run on lavapipe";
  EXPECT_TRUE(app.gpuTimer.copiesResults);
  EXPECT_EQ(app.gpuTimer.results.size(), app.gpuTimer.pools.size());
  destroyApp(app);
}

TEST(FramesInFlight, TheCpuBackendKeepsOneFrameInFlightOnSlotZero) {
  const SlotRun run = runFrames(BackendChoice::cpu, SyncMode::binary, 6);
  for (size_t k = 0; k < run.slots.size(); ++k) EXPECT_EQ(run.slots[k], 0u) << "frame " << k;
  for (const FrameTiming& timing : run.timings) EXPECT_TRUE(timing.renderGpu.has_value()) << "frame " << timing.frame;
}

}  // namespace
}  // namespace vksim
