// What a frame's timing record becomes in the capture: each column built from
// the span docs/captures.md names, checked with spans whose lengths all
// differ, so that a column built from the wrong span (the simulation's wait
// instead of its work, the previous present's start instead of its return)
// shows as a wrong number, not merely as "a number". The records go through
// the same calls the frame loop makes (addFrameTiming, collectGpuTimings,
// recordFinishedFrames) and the CSV is read back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app/capture/capture_session.h"
#include "app/capture/frame_timing.h"
#include "app/capture/present_timing.h"
#include "sim/simulation.h"

namespace vksim {
namespace {
namespace fs = std::filesystem;

constexpr int64_t kMs = 1'000'000;  // nanoseconds

// A simulation that only hands out the step timings it was given: what the
// frame-timing queue asks of a backend.
class TimingOnlySimulation final : public Simulation {
 public:
  std::deque<StepTiming> timings;
  StepResult writeInitialState() override { return {}; }
  StepResult step(const StepSync&, bool, uint64_t) override { return {}; }
  void setParams(const ModelParams& params) override { params_ = params; }
  const ModelParams& params() const override { return params_; }
  void addDrop(const Drop&) override {}
  uint64_t stepCount() const override { return 0; }
  bool finish(uint64_t) override { return true; }
  std::string backendName() const override { return "test"; }
  std::string deviceName() const override { return "test"; }
  bool takeStepTiming(StepTiming* timing) override {
    if (timings.empty()) return false;
    *timing = timings.front();
    timings.pop_front();
    return true;
  }

 private:
  ModelParams params_;
};

// Frame k of a headless-like run: the present point and its return, the
// render's GPU span and the step's wait and work, with lengths that differ
// from one another and from frame to frame.
FrameTiming frameAt(uint64_t k) {
  const int64_t start = 1000 * kMs + int64_t(k) * 20 * kMs;
  FrameTiming timing;
  timing.frame = timing.scheduleFrame = k;
  timing.grid = 64;
  timing.hostFrame = {start, start + 9 * kMs};
  timing.present = {start + 8 * kMs, start + 8 * kMs + 3 * kMs / 2};  // a 1.5 ms present call
  timing.renderGpu = TimeSpan{start + 2 * kMs, start + 5 * kMs};       // 3 ms
  return timing;
}

// When frame k was seen on the display: 6 ms after its present point, plus
// half a millisecond more each frame, so that the display changes come
// 20.5 ms apart while the presents come 20 ms apart.
int64_t displayedAt(uint64_t k) {
  const int64_t start = 1000 * kMs + int64_t(k) * 20 * kMs;
  return start + 14 * kMs + int64_t(k) * kMs / 2;
}

StepTiming stepAt(uint64_t k) {
  const int64_t start = 1000 * kMs + int64_t(k) * 20 * kMs;
  StepTiming step;
  step.sequence = k;
  step.waitBeginNs = start + 1 * kMs;  // waits 4 ms for the render
  step.waitEndNs = start + 5 * kMs;
  step.workBeginNs = start + 5 * kMs;  // then works 2.5 ms
  step.workEndNs = start + 15 * kMs / 2;
  return step;
}

std::map<std::string, std::vector<std::string>> readColumns(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  std::map<std::string, std::vector<std::string>> columns;
  const auto split = [](const std::string& text) {
    std::vector<std::string> fields;
    std::stringstream stream(text);
    for (std::string field; std::getline(stream, field, ',');) fields.push_back(field);
    return fields;
  };
  if (std::getline(in, line)) header = split(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = split(line);
    for (size_t i = 0; i < header.size() && i < fields.size(); ++i) columns[header[i]].push_back(fields[i]);
  }
  return columns;
}

double number(const std::vector<std::string>& column, size_t row) {
  EXPECT_LT(row, column.size());
  return row < column.size() ? std::stod(column[row]) : -1.0;
}

class CaptureRows : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("vksim-capture-rows-" + std::to_string(getpid()));
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  // Three frames through the queue and the session, as the frame loop feeds
  // them; returns the CSV's columns. With `shown`, each frame is stamped as
  // seen on the display (what collectDisplayTimes does in a FIFO window, which
  // lavapipe under Xvfb never reaches: it has no VK_KHR_present_wait) at
  // displayedAt(k).
  std::map<std::string, std::vector<std::string>> capture(const std::string& backend, bool shown = false) {
    const std::string csv = (directory_ / "rows.csv").string();
    CaptureSession session;
    CaptureRequest request;
    request.csvPath = csv;
    request.warmupFrames = 0;
    EXPECT_TRUE(startCapture(session, request, 0, backend));
    FrameTimingQueue queue;
    const GpuTimer noTimer;  // unsupported: no render timestamps pending
    TimingOnlySimulation simulation;
    ScheduleLog log;
    for (uint64_t k = 0; k < 3; ++k) {
      addFrameTiming(queue, noTimer, 0, frameAt(k));
      queue.pending.back().renderGpu = frameAt(k).renderGpu;  // as if its timestamps had been read
      if (shown) noteDisplayed(queue, queue.pending.back(), displayedAt(k));
      simulation.timings.push_back(stepAt(k));
      GpuTimer timer;
      collectGpuTimings(queue, Device{}, timer, 0, &simulation);
    }
    const Result<> written =
        recordFinishedFrames(session, queue, log, 3, [] { return CaptureEnvironment{}; }, /*flush=*/true);
    EXPECT_TRUE(written) << (written ? "" : written.error().message);
    return readColumns(csv);
  }

  fs::path directory_;
};

// MsSimGpu is the step's work span (2.5 ms), not its wait and work together
// (6.5 ms); MsSimWait is the wait alone (4 ms).
TEST_F(CaptureRows, SimulationColumnsAreTheStepsWorkAndWaitSpans) {
  auto columns = capture("vulkan");
  ASSERT_EQ(columns["MsSimGpu"].size(), 3u);
  for (size_t row = 0; row < 3; ++row) {
    EXPECT_NEAR(number(columns["MsSimGpu"], row), 2.5, 1e-6) << "row " << row;
    EXPECT_NEAR(number(columns["MsSimWait"], row), 4.0, 1e-6) << "row " << row;
    EXPECT_NEAR(number(columns["MsRenderGpu"], row), 3.0, 1e-6) << "row " << row;
  }
}

// MsGPUBusy on a GPU backend: the union of the render (2..5 ms) and the
// step's work (5..7.5 ms) = 5.5 ms. Built from the wait span (1..5 ms) it
// would read 4 ms; from the render alone, 3 ms.
TEST_F(CaptureRows, GpuBusyIsTheUnionOfTheRenderAndTheStepsWork) {
  for (const char* backend : {"cuda", "vulkan", "cuda-nvx", "opencl"}) {
    auto columns = capture(backend);
    ASSERT_EQ(columns["MsGPUBusy"].size(), 3u) << backend;
    for (size_t row = 0; row < 3; ++row) EXPECT_NEAR(number(columns["MsGPUBusy"], row), 5.5, 1e-6) << backend;
  }
  // The CPU backend's step is host work: the GPU is busy with the render only.
  auto cpu = capture("cpu");
  for (size_t row = 0; row < 3; ++row) EXPECT_NEAR(number(cpu["MsGPUBusy"], row), 3.0, 1e-6);
}

// MsCPUBusy runs from the previous present call's return to this present
// call: 20 ms between presents less the 1.5 ms the previous call took =
// 18.5 ms. From the previous present's start it would equal
// MsBetweenPresents (20 ms). The first frame has no previous present: its
// host frame's start is used (8 ms).
TEST_F(CaptureRows, CpuBusyStartsWhereThePreviousPresentCallReturned) {
  auto columns = capture("cpu");
  ASSERT_EQ(columns["MsCPUBusy"].size(), 3u);
  EXPECT_NEAR(number(columns["MsCPUBusy"], 0), 8.0, 1e-6);
  for (size_t row = 1; row < 3; ++row) {
    EXPECT_NEAR(number(columns["MsBetweenPresents"], row), 20.0, 1e-6) << "row " << row;
    EXPECT_NEAR(number(columns["MsCPUBusy"], row), 18.5, 1e-6) << "row " << row;
  }
}

// The display columns, which no lavapipe run fills (no VK_KHR_present_wait):
// a frame seen on the display was not dropped; MsUntilDisplayed runs from
// the present point (6, 6.5, 7 ms; from the present call's return it would
// be 1.5 ms less); MsBetweenDisplayChange from the previous frame's display
// (20.5 ms, where the presents are 20 ms apart), NA for the first frame
// shown. Without display times all three are NA.
TEST_F(CaptureRows, DisplayColumnsComeFromTheDisplayTimes) {
  auto columns = capture("cuda", /*shown=*/true);
  ASSERT_EQ(columns["Dropped"].size(), 3u);
  EXPECT_EQ(columns["MsBetweenDisplayChange"][0], "NA");
  for (size_t row = 0; row < 3; ++row) {
    EXPECT_EQ(columns["Dropped"][row], "0") << "row " << row;
    EXPECT_NEAR(number(columns["MsUntilDisplayed"], row), 6.0 + 0.5 * double(row), 1e-6) << "row " << row;
    if (row > 0) {
      EXPECT_NEAR(number(columns["MsBetweenDisplayChange"], row), 20.5, 1e-6) << "row " << row;
    }
  }
  auto unseen = capture("cuda");
  for (const char* column : {"Dropped", "MsUntilDisplayed", "MsBetweenDisplayChange"})
    for (size_t row = 0; row < 3; ++row) EXPECT_EQ(unseen[column][row], "NA") << column << " row " << row;
}

}  // namespace
}  // namespace vksim
