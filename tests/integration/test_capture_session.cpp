// The capture session's API as the overlay's Record button uses it: start at
// a frame boundary, a fixed frame count or a stop, progress, and the files.
// In-process on lavapipe with the CPU backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "app/app.h"
#include "app/capture/capture_session.h"
#include "app/frame_loop.h"
#include "app_runner.h"

namespace vksim {
namespace {

size_t lineCount(const std::string& text) {
  return size_t(std::count(text.begin(), text.end(), '\n'));
}

class CaptureSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options;
    options.headless = true;
    options.backend = BackendChoice::cpu;
    options.model.grid = 32;
    options.width = options.height = 64;
    app_.headless = true;
    createApp(app_, options);
  }
  void TearDown() override { destroyApp(app_); }

  void runFrames(int count) {
    for (int i = 0; i < count; ++i) {
      ASSERT_EQ(runFrame(app_), FrameStatus::rendered);
      ASSERT_TRUE(recordCapturedFrames(app_, /*flush=*/false));
    }
  }

  Result<> start(const CaptureRequest& request) {
    return startCapture(app_.capture, request, app_.schedule.totalFrames, "cpu");
  }

  App app_;
};

TEST_F(CaptureSessionTest, AFixedFrameCountFinishesByItselfAndWritesEveryFile) {
  const std::string dir = testing::makeTempDir("session-count");
  runFrames(3);  // frames before the start are not recorded
  const CaptureRequest request{dir + "/a.csv", dir + "/a.json", 2, 10};
  ASSERT_TRUE(start(request));
  EXPECT_FALSE(start(request)) << "one capture at a time";
  EXPECT_TRUE(captureProgress(app_.capture).recording);
  EXPECT_EQ(captureProgress(app_.capture).framesWanted, 10u);
  runFrames(15);
  const CaptureProgress progress = captureProgress(app_.capture);
  EXPECT_FALSE(progress.recording);
  EXPECT_EQ(progress.framesRecorded, 10u);
  EXPECT_EQ(progress.lastResult.rfind("wrote ", 0), 0u) << progress.lastResult;
  EXPECT_EQ(lineCount(testing::readFile(dir + "/a.csv")), 11u);
  EXPECT_TRUE(testing::fileExists(dir + "/a.summary.json"));
  EXPECT_TRUE(testing::fileExists(dir + "/a.json"));
  EXPECT_TRUE(app_.instance.validation) << "the validation layer was off (ctest sets VKSIM_VALIDATION=1)";
  EXPECT_TRUE(app_.instance.synchronizationValidation);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
}

TEST_F(CaptureSessionTest, StopRecordsTheFramesRunSoFarOnceTheirResultsArrive) {
  const std::string dir = testing::makeTempDir("session-stop");
  ASSERT_TRUE(start({dir + "/b.csv", "", 0, 0}));
  runFrames(6);
  stopCapture(app_.capture, app_.schedule.totalFrames);
  runFrames(4);  // the last frames' GPU results arrive; the session finishes
  const CaptureProgress progress = captureProgress(app_.capture);
  EXPECT_FALSE(progress.recording);
  EXPECT_FALSE(progress.stopping);
  EXPECT_EQ(progress.framesRecorded, 6u);
  EXPECT_EQ(lineCount(testing::readFile(dir + "/b.csv")), 7u);
  EXPECT_FALSE(testing::fileExists(dir + "/b.json")) << "no trace was asked for";
}

TEST_F(CaptureSessionTest, AnUnwritablePathFailsAndLeavesTheSessionIdle) {
  const Result<> started = start({"/proc/no/such/dir/c.csv", "", 0, 0});
  ASSERT_FALSE(started);
  EXPECT_FALSE(started.error().message.empty());
  EXPECT_FALSE(captureProgress(app_.capture).recording);
  runFrames(2);
}

}  // namespace
}  // namespace vksim
