// Where the overlay's widgets run in a frame (app/ui/overlay_panels.h,
// buildOverlayAhead), in-process on lavapipe with the validation layer: the
// ImGui frame that render k+1 draws is built during frame k, after render k
// was submitted and before the host saw its signal and stepped the
// simulation, not between sim k's handover and render k+1's submission. The
// host-ordered copy path and the render-queue path keep building at the
// frame boundary.
// docs/interactive.md, "What the overlay costs a frame".
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app/ui/overlay_panels.h"
#include "frame_timings.h"
#include "renderer/vk_check.h"
#include "sync_validation.h"

namespace vksim {
namespace {

constexpr int kFrames = 8;

struct OrderRun {
  std::vector<TimeSpan> builds;       // the overlay's last build, after each frame
  std::vector<bool> builtAhead;       // app.overlay.builtAhead, after each frame
  std::vector<FrameTiming> timings;   // every frame's record, after the drain
};

// The run loop's order (app/main.cpp): the overlay at the frame boundary,
// then the frame.
OrderRun runWithOverlay(TransferMode transfer, BackendChoice backend = BackendChoice::cpu) {
  enableSynchronizationValidation();
  Options options;
  options.headless = true;
  options.overlay = true;
  options.backend = backend;
  options.transfer = transfer;
  options.model.grid = 32;
  options.width = 320;
  options.height = 240;
  OrderRun run;
  App app;
  app.headless = true;
  createApp(app, options);
  EXPECT_TRUE(app.instance.validation && app.instance.synchronizationValidation);
  EXPECT_TRUE(app.overlay.vulkanBackend);
  for (int frame = 0; frame < kFrames; ++frame) {
    buildOverlay(app);
    EXPECT_EQ(runFrame(app), FrameStatus::rendered);
    run.builds.push_back({app.overlay.lastBuildBeginNs, app.overlay.lastBuildEndNs});
    run.builtAhead.push_back(app.overlay.builtAhead);
  }
  run.timings = drainAndTakeFrameTimings(app);
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
  return run;
}

TEST(OverlayOrder, TheNextFramesOverlayIsBuiltAfterTheRenderIsSubmittedAndBeforeTheStep) {
  const OrderRun run = runWithOverlay(TransferMode::zeroCopy);
  ASSERT_EQ(run.timings.size(), size_t(kFrames));
  for (size_t k = 0; k < run.timings.size(); ++k) {
    const FrameTiming& timing = run.timings[k];
    const TimeSpan& build = run.builds[k];
    EXPECT_TRUE(run.builtAhead[k]) << "frame " << k << " built no overlay for the next frame";
    // Headless, the present point is the end of the render's submission.
    EXPECT_GE(build.beginNs, timing.present.beginNs)
        << "frame " << k << ": the next frame's overlay was built before render " << k << " was submitted";
    // The poll for render k's signal comes right before sim k's step.
    ASSERT_NE(timing.renderSeenDoneNs, 0) << "frame " << k;
    EXPECT_LE(build.endNs, timing.renderSeenDoneNs)
        << "frame " << k << ": the next frame's overlay was built after the host saw render " << k
        << "'s signal (on the way to sim " << k << " and render " << k + 1 << ")";
    EXPECT_LE(build.endNs, timing.hostFrame.endNs) << "frame " << k << ": built at the frame boundary";
  }
}

void expectBuiltAtTheFrameBoundary(const OrderRun& run) {
  ASSERT_EQ(run.timings.size(), size_t(kFrames));
  for (size_t k = 0; k < run.timings.size(); ++k) {
    EXPECT_FALSE(run.builtAhead[k]) << "frame " << k;
    EXPECT_LE(run.builds[k].endNs, run.timings[k].hostFrame.beginNs)
        << "frame " << k << ": the overlay it draws was not built before it began";
  }
}

// The copy path's step follows the render's submission with no wait: the
// overlay stays at the frame boundary there, off the step's way.
TEST(OverlayOrder, TheCopyPathBuildsAtTheFrameBoundary) {
  expectBuiltAtTheFrameBoundary(runWithOverlay(TransferMode::copy));
}

// The render-queue path (vulkan) queues the step with the render: no host
// turn to stand in the way of, so the overlay stays current, built at the
// frame boundary.
TEST(OverlayOrder, TheRenderQueuePathBuildsAtTheFrameBoundary) {
  expectBuiltAtTheFrameBoundary(runWithOverlay(TransferMode::zeroCopy, BackendChoice::vulkan));
}

}  // namespace
}  // namespace vksim
