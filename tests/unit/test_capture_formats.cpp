// The capture's other layouts (docs/captures.md): PresentMon 2.x's column set
// (--capture-columns v2) against PresentMon's golden header, MangoHud 0.6.8's
// frame log (--capture-format mangohud), and CapFrameX's import rules
// (tests/support/capframex_rules.h) applied to every layout this program
// writes. Written from synthetic frames through the real CaptureWriter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "app/capture/capture_writer.h"
#include "tests/support/capframex_rules.h"

namespace vksim {
namespace {

using testing::CapFrameXReading;
using testing::readAsCapFrameX;
namespace capframex = testing::capframex;

constexpr int kFrames = 40;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A window run in FIFO mode whose frames 10 and up were seen on the display:
// frame i is presented at 16.6 ms steps plus a small wobble.
FrameRecord syntheticFrame(int i) {
  FrameRecord frame;
  frame.frame = uint64_t(i);
  frame.swapchainHandle = 0x55d0c0ffee;
  frame.syncInterval = 1;
  frame.allowsTearing = false;
  frame.msBetweenPresents = 16.6 + 0.01 * (i % 7);
  frame.timeInSeconds = 0.02 + i * 0.0166;
  frame.msInPresentApi = 0.25;
  frame.msCpuBusy = frame.msBetweenPresents - 0.25;
  frame.cpuStartSeconds = frame.timeInSeconds - frame.msCpuBusy / 1000.0;
  frame.msUntilRenderComplete = 1.5;
  frame.msRenderGpu = 1.2;
  frame.msSimGpu = 0.4;
  frame.msSimWait = 0.1;
  frame.msGpuBusy = 1.6;
  frame.msGpuLatency = 0.3;
  frame.msGpuTime = 1.9;
  frame.msCpuFrame = 2.0;
  frame.syncMode = "timeline";
  frame.backend = "cuda";
  frame.model = "ripple";
  frame.grid = 64;
  frame.timelineValue = uint64_t(2 * i + 2);
  if (i >= 10) {
    frame.dropped = false;
    frame.msUntilDisplayed = 8.0;
    if (i >= 11) frame.msBetweenDisplayChange = frame.msBetweenPresents;
  }
  return frame;
}

// Writes kFrames frames (syntheticFrame unless `frameOf` says otherwise) in
// `format` / `columns` and returns the file.
std::string writeCapture(CaptureFormat format, CaptureColumns columns, const std::string& name,
                         FrameRecord (*frameOf)(int) = syntheticFrame) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vksim-formats-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  CaptureOptions options;
  options.csvPath = (dir / name).string();
  options.processId = 4242;
  options.format = format;
  options.columns = columns;
  CaptureWriter writer;
  EXPECT_TRUE(writer.open(options).has_value());
  for (int i = 0; i < kFrames; ++i) writer.addFrame(frameOf(i));
  CaptureEnvironment environment;
  environment.gpu = "llvmpipe (LLVM 15.0.6, 256 bits)";
  environment.driver = "llvmpipe, Mesa 22.3.6 (LLVM 15.0.6)";
  const Result<> finished = writer.finish(environment);
  EXPECT_TRUE(finished.has_value()) << finished.error().message;
  return readText(options.csvPath);
}

// PresentMon's golden default-mode header, typed in from
// GameTechDev/PresentMon Tests/Gold/test_case_0.csv at commit
// 18f60475624d52dba0e13a2c1ab327ed41aecf3d (the file last changed in
// 7dd331f810cdb53d92ac9b0f0deb2674044eb5f2). That file was made with
// --qpc_time, so its two time columns are TimeInQPC and CPUStartQPC; without
// it (PresentMon's default unit, milliseconds: PresentMon/CsvOutput.cpp,
// WriteCsvHeader<FrameMetrics>) they are TimeInMs and CPUStartTimeInMs.
const std::vector<std::string> kGoldenDefaultHeader = {
    "Application",    "ProcessID",        "SwapChainAddress",      "PresentRuntime",
    "SyncInterval",   "PresentFlags",     "AllowsTearing",         "PresentMode",
    "FrameType",      "TimeInQPC",        "MsBetweenSimulationStart", "MsBetweenPresents",
    "MsBetweenDisplayChange", "MsInPresentAPI", "MsRenderPresentLatency", "MsUntilDisplayed",
    "MsPCLatency",    "CPUStartQPC",      "MsBetweenAppStart",     "MsCPUBusy",
    "MsCPUWait",      "MsGPULatency",     "MsGPUTime",             "MsGPUBusy",
    "MsGPUWait",      "MsVideoBusy",      "MsAnimationError",      "AnimationTime",
    "MsFlipDelay",    "MsAllInputToPhotonLatency", "MsClickToPhotonLatency", "MsInstrumentedLatency"};

TEST(CaptureFormats, V2HeaderIsPresentMonsGoldenHeader) {
  const std::vector<std::string> lines =
      capframex::splitLines(writeCapture(CaptureFormat::presentmon, CaptureColumns::v2, "v2.csv"));
  ASSERT_EQ(lines.size(), size_t(kFrames + 1));
  const std::vector<std::string> header = capframex::splitCommas(lines[0]);
  std::vector<std::string> expected = kGoldenDefaultHeader;
  expected[9] = "TimeInMs";
  expected[17] = "CPUStartTimeInMs";
  // PresentMon's columns first, in its order; then this program's own.
  ASSERT_GE(header.size(), expected.size());
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + long(expected.size())), expected);
  const std::vector<std::string> appColumns = {"Frame",      "SyncMode",    "Backend",  "Model",     "Grid",
                                               "MsCpuFrame", "MsRenderGpu", "MsSimGpu", "MsSimWait", "TimelineValue"};
  EXPECT_EQ(std::vector<std::string>(header.begin() + long(expected.size()), header.end()), appColumns);
  for (size_t row = 1; row < lines.size(); ++row)
    EXPECT_EQ(capframex::splitCommas(lines[row]).size(), header.size()) << "row " << row;
}

// Each v2 value as docs/captures.md defines it from the frame record.
TEST(CaptureFormats, V2ValuesFollowPresentMonsDefinitions) {
  const std::vector<std::string> lines =
      capframex::splitLines(writeCapture(CaptureFormat::presentmon, CaptureColumns::v2, "v2-values.csv"));
  const std::vector<std::string> header = capframex::splitCommas(lines[0]);
  const auto value = [&](int row, const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << name;
    return capframex::splitCommas(lines[size_t(row) + 1])[size_t(at - header.begin())];
  };
  const auto number = [&](int row, const std::string& name) { return std::stod(value(row, name)); };
  for (int i = 0; i < kFrames; ++i) {
    const FrameRecord frame = syntheticFrame(i);
    EXPECT_EQ(value(i, "SwapChainAddress"), "0x55D0C0FFEE");
    EXPECT_EQ(value(i, "AllowsTearing"), "0");
    EXPECT_EQ(value(i, "FrameType"), "Application");
    EXPECT_NEAR(number(i, "TimeInMs"), frame.timeInSeconds * 1000.0, 1e-4);
    EXPECT_NEAR(number(i, "CPUStartTimeInMs"), frame.cpuStartSeconds * 1000.0, 1e-4);
    EXPECT_NEAR(number(i, "MsBetweenAppStart"), number(i, "MsCPUBusy") + number(i, "MsCPUWait"), 2e-4);
    EXPECT_EQ(value(i, "MsCPUWait"), value(i, "MsInPresentAPI"));
    EXPECT_EQ(value(i, "MsRenderPresentLatency"), "1.5000");
    EXPECT_NEAR(number(i, "MsGPUWait"), number(i, "MsGPUTime") - number(i, "MsGPUBusy"), 2e-4);
    EXPECT_NEAR(number(i, "AnimationTime"), (frame.cpuStartSeconds - syntheticFrame(0).cpuStartSeconds) * 1000.0,
                2e-4);
    EXPECT_EQ(value(i, "MsAnimationError") == "NA", i < 11) << i;
    for (const char* unmeasured : {"MsBetweenSimulationStart", "MsPCLatency", "MsVideoBusy", "MsFlipDelay",
                                   "MsAllInputToPhotonLatency", "MsClickToPhotonLatency", "MsInstrumentedLatency"})
      EXPECT_EQ(value(i, unmeasured), "NA") << unmeasured;
  }
}

// Display times as a window run would see them: CPU starts every 16 ms
// exactly, and the screen showing frames 20 to 25 at these times (ms from the
// capture's start): on time, on time, one refresh late (missed), the next
// one back on its refresh, then 4 ms early and 4 ms late against a steady
// 16 ms. Frames before 20 and after 25 have no display time.
constexpr double kCpuStepMs = 16.0;
constexpr int kFirstShown = 20;
constexpr double kShownAtMs[] = {330.0, 346.0, 378.0, 394.0, 406.0, 426.0};
constexpr int kShownCount = int(std::size(kShownAtMs));

FrameRecord displayedFrame(int i) {
  FrameRecord frame = syntheticFrame(i);
  frame.cpuStartSeconds = (10.0 + i * kCpuStepMs) / 1000.0;
  frame.msCpuBusy = kCpuStepMs - frame.msInPresentApi;
  frame.timeInSeconds = frame.cpuStartSeconds + frame.msCpuBusy / 1000.0;
  frame.msBetweenPresents = kCpuStepMs;
  frame.msUntilDisplayed.reset();
  frame.msBetweenDisplayChange.reset();
  frame.dropped.reset();
  const int shown = i - kFirstShown;
  if (shown >= 0 && shown < kShownCount) {
    frame.dropped = false;
    frame.msUntilDisplayed = kShownAtMs[shown] - frame.timeInSeconds * 1000.0;
    if (shown > 0) frame.msBetweenDisplayChange = kShownAtMs[shown] - kShownAtMs[shown - 1];
  }
  return frame;
}

// MsAnimationError as PresentMon 2.x computes it when the application sends
// no simulation markers (its source is the CPU start): for a displayed frame
// whose displayed predecessor is known, the step between their CPU starts
// minus the step between their display times (GameTechDev/PresentMon's
// ComputeAnimationError returns simElapsed - displayElapsed, and 2.x's CSV
// writer the same difference). A frame shown a refresh late is an animation
// that moved 16 ms while the screen moved 32: -16 ms. Computed here from the display
// times above, not from the frame records.
TEST(CaptureFormats, V2AnimationErrorHasPresentMonsSignAgainstDisplayTimes) {
  const std::vector<std::string> lines = capframex::splitLines(
      writeCapture(CaptureFormat::presentmon, CaptureColumns::v2, "v2-animation.csv", displayedFrame));
  ASSERT_EQ(lines.size(), size_t(kFrames + 1));
  const std::vector<std::string> header = capframex::splitCommas(lines[0]);
  const auto column = size_t(std::find(header.begin(), header.end(), "MsAnimationError") - header.begin());
  ASSERT_LT(column, header.size());
  const auto errorOf = [&](int frame) { return capframex::splitCommas(lines[size_t(frame) + 1])[column]; };
  const double expectedMs[] = {0.0, 0.0, -16.0, 0.0, 4.0, -4.0};  // by index into kShownAtMs
  for (int shown = 1; shown < kShownCount; ++shown) {
    const double displayStepMs = kShownAtMs[shown] - kShownAtMs[shown - 1];
    ASSERT_DOUBLE_EQ(kCpuStepMs - displayStepMs, expectedMs[shown]);
    const std::string written = errorOf(kFirstShown + shown);
    ASSERT_NE(written, "NA") << "frame " << kFirstShown + shown << " has a display time and one before it";
    EXPECT_NEAR(std::stod(written), expectedMs[shown], 1e-4)
        << "frame " << kFirstShown + shown << ": the CPU start moved " << kCpuStepMs << " ms and the display "
        << displayStepMs << " ms";
  }
  // No display time, or none before it: NA.
  for (int frame : {0, kFirstShown - 1, kFirstShown, kFirstShown + kShownCount, kFrames - 1})
    EXPECT_EQ(errorOf(frame), "NA") << "frame " << frame;
}

TEST(CaptureFormats, MangoHudLogHasMangoHudsLinesAndUnits) {
  const std::vector<std::string> lines =
      capframex::splitLines(writeCapture(CaptureFormat::mangohud, CaptureColumns::v1, "mangohud.csv"));
  ASSERT_EQ(lines.size(), size_t(kFrames + 3));
  EXPECT_EQ(lines[0], "os,cpu,gpu,ram,kernel,driver,cpuscheduler");
  const std::vector<std::string> system = capframex::splitCommas(lines[1]);
  ASSERT_EQ(system.size(), 7u) << lines[1];
  EXPECT_EQ(system[2], "llvmpipe");             // the parenthesised part and its commas dropped
  EXPECT_EQ(system[5], "llvmpipe Mesa 22.3.6");
  EXPECT_EQ(lines[2],
            "fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,"
            "gpu_power,ram_used,elapsed");
  for (int i = 0; i < kFrames; ++i) {
    const FrameRecord frame = syntheticFrame(i);
    const std::vector<std::string> values = capframex::splitCommas(lines[size_t(i) + 3]);
    ASSERT_EQ(values.size(), 12u);
    // Whole microseconds, truncated; fps from them; nanoseconds since the start.
    const uint64_t frameTimeUs = uint64_t(std::llround(frame.msBetweenPresents * 1e6)) / 1000;
    EXPECT_EQ(values[1], std::to_string(frameTimeUs)) << i;
    EXPECT_NEAR(std::stod(values[0]), 1e6 / double(frameTimeUs), 1e-2) << i;
    for (size_t column = 2; column < 11; ++column) EXPECT_EQ(values[column], "0") << column;
    EXPECT_EQ(values[11], std::to_string(std::llround(frame.timeInSeconds * 1e9))) << i;
  }
}

// Frame times that are not whole microseconds, as a clock gives them: each
// half a microsecond or more past a whole one, so that rounding and
// truncating part. The synthetic frames above are whole microseconds and
// cannot tell the two apart.
constexpr int64_t kFractionalFrameTimesNs[] = {16'666'667, 16'666'500, 8'333'999, 33'333'833, 1'000'999};
FrameRecord fractionalFrame(int i) {
  FrameRecord frame = syntheticFrame(i);
  frame.msBetweenPresents = double(kFractionalFrameTimesNs[i % 5]) / 1e6;
  return frame;
}

// MangoHud 0.6.8 truncates the frame time to whole microseconds (its
// frametime column, and the fps it computes from it): 16,666.667 us is
// 16666, not 16667.
TEST(CaptureFormats, MangoHudFrameTimeIsTruncatedNotRounded) {
  const std::vector<std::string> lines = capframex::splitLines(
      writeCapture(CaptureFormat::mangohud, CaptureColumns::v1, "fractional.csv", fractionalFrame));
  ASSERT_EQ(lines.size(), size_t(kFrames + 3));
  for (int i = 0; i < kFrames; ++i) {
    const std::vector<std::string> values = capframex::splitCommas(lines[size_t(i) + 3]);
    ASSERT_EQ(values.size(), 12u);
    const uint64_t truncatedUs = uint64_t(kFractionalFrameTimesNs[i % 5] / 1000);
    EXPECT_EQ(values[1], std::to_string(truncatedUs)) << "frame " << i << ": " << lines[size_t(i) + 3];
    // 1e6 / 16666 and 1e6 / 16667 differ by 0.0036 fps.
    EXPECT_NEAR(std::stod(values[0]), 1e6 / double(truncatedUs), 1e-3) << "frame " << i;
  }
  EXPECT_EQ(mangoHudFrameTimeUs(16'666'999), 16666u);
  EXPECT_EQ(mangoHudFrameTimeUs(999), 0u);
  EXPECT_EQ(mangoHudFrameTimeUs(-5), 0u);
}

// MangoHud 0.6.8's summary figures, over the fps 1..3000 in shuffled order.
// 3000 rows is where MangoHud's float arithmetic and exact arithmetic part:
// 3000 * 0.001f rounds to 3.0000002 in float, so its "0.1% Min FPS" is the
// mean of the lowest four rows, not three.
TEST(CaptureFormats, MangoHudSummaryFollowsMangoHudsArithmetic) {
  std::vector<float> fps;
  for (int k = 1; k <= 3000; ++k) fps.push_back(float((k * 1237) % 3000 + 1));  // 1237 and 3000 coprime
  const MangoHudSummary summary = summarizeMangoHudFps(fps);
  EXPECT_EQ(summary.minFps01, 2.5f);       // (1 + 2 + 3 + 4) / 4
  EXPECT_EQ(summary.minFps1, 15.5f);       // ceil(30.0f) = 30 rows: (1 + ... + 30) / 30
  EXPECT_EQ(summary.percentile97, 2910.0f);  // sorted[floor(0.97 * 2999)] = sorted[2909]
  EXPECT_EQ(summary.averageFps, 1500.5f);
  std::ostringstream file;
  writeMangoHudSummary(file, summary);
  EXPECT_EQ(file.str(),
            "0.1% Min FPS,1% Min FPS,97% Percentile FPS,Average FPS,GPU Load,CPU Load\n"
            "2.5,15.5,2910.0,1500.5,0.0,0.0");
  // One row: every figure is that row.
  const MangoHudSummary one = summarizeMangoHudFps(std::vector<float>{60.0f});
  EXPECT_EQ(one.minFps01, 60.0f);
  EXPECT_EQ(one.percentile97, 60.0f);
}

// --capture-format mangohud writes MangoHud's summary beside the log, named
// as MangoHud names it; PresentMon's layouts do not.
TEST(CaptureFormats, MangoHudSummaryIsWrittenBesideTheLogOnly) {
  EXPECT_EQ(mangoHudSummaryPathFor("/tmp/run.csv"), "/tmp/run_summary.csv");
  EXPECT_EQ(mangoHudSummaryPathFor("run.data"), "run.data_summary.csv");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vksim-formats-" + std::to_string(getpid()));
  writeCapture(CaptureFormat::mangohud, CaptureColumns::v1, "beside.csv");
  const std::vector<std::string> lines = capframex::splitLines(readText((dir / "beside_summary.csv").string()));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "0.1% Min FPS,1% Min FPS,97% Percentile FPS,Average FPS,GPU Load,CPU Load");
  // The synthetic frames last 16,600 to 16,660 us: 60.0 to 60.2 fps.
  const std::vector<std::string> values = capframex::splitCommas(lines[1]);
  ASSERT_EQ(values.size(), 6u);
  for (size_t field = 0; field < 4; ++field) {
    EXPECT_GE(std::stod(values[field]), 60.0) << lines[1];
    EXPECT_LE(std::stod(values[field]), 60.3) << lines[1];
  }
  writeCapture(CaptureFormat::presentmon, CaptureColumns::v1, "plain.csv");
  EXPECT_FALSE(std::filesystem::exists(dir / "plain_summary.csv"));
}

// CapFrameX's rules, applied to every layout. v1 and MangoHud's pass its file
// check; v2 fails it for the reason PresentMon 2.x's own default CSV does (no
// Dropped and no TimeInSeconds column), which the last part shows on the
// golden header itself.
TEST(CaptureFormats, CapFrameXReadsEveryLayout) {
  const CapFrameXReading v1 = readAsCapFrameX(writeCapture(CaptureFormat::presentmon, CaptureColumns::v1, "c1.csv"));
  EXPECT_FALSE(v1.mangoHud);
  EXPECT_TRUE(v1.headerCheckPassed) << v1.headerCheckMissing;
  EXPECT_EQ(v1.frameStartColumn, 7);   // TimeInSeconds
  EXPECT_EQ(v1.frameTimeColumn, 8);    // MsBetweenPresents
  EXPECT_EQ(v1.displayTimeColumn, 9);  // MsBetweenDisplayChange
  EXPECT_EQ(v1.droppedColumn, 6);      // Dropped
  EXPECT_EQ(v1.untilDisplayedColumn, 22);  // MsUntilDisplayed
  ASSERT_EQ(v1.rowsKept, size_t(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    const FrameRecord frame = syntheticFrame(i);
    EXPECT_NEAR(v1.frameTimeMs[size_t(i)], frame.msBetweenPresents, 1e-4);
    EXPECT_NEAR(v1.frameStartSeconds[size_t(i)], frame.timeInSeconds - syntheticFrame(0).timeInSeconds, 2e-6);
    // NA does not parse as an integer: CapFrameX takes it as dropped.
    EXPECT_EQ(v1.dropped[size_t(i)], i < 10) << i;
    EXPECT_NEAR(v1.untilDisplayedMs[size_t(i)], i < 10 ? 0.0 : 8.0, 1e-9);
  }

  const CapFrameXReading v2 = readAsCapFrameX(writeCapture(CaptureFormat::presentmon, CaptureColumns::v2, "c2.csv"));
  EXPECT_FALSE(v2.headerCheckPassed);
  EXPECT_EQ(v2.headerCheckMissing, "Dropped TimeInSeconds");
  EXPECT_EQ(v2.frameStartColumn, 9);       // TimeInMs, in ms
  EXPECT_TRUE(v2.frameStartInMs);
  EXPECT_EQ(v2.cpuStartInMsColumn, 17);    // CPUStartTimeInMs, read over it
  EXPECT_EQ(v2.frameTimeColumn, 11);       // MsBetweenPresents
  EXPECT_EQ(v2.displayTimeColumn, 12);     // MsBetweenDisplayChange
  EXPECT_EQ(v2.untilDisplayedColumn, 15);  // MsUntilDisplayed
  EXPECT_EQ(v2.droppedColumn, -1);
  ASSERT_EQ(v2.rowsKept, size_t(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_NEAR(v2.frameTimeMs[size_t(i)], syntheticFrame(i).msBetweenPresents, 1e-4);
    EXPECT_NEAR(v2.frameStartSeconds[size_t(i)],
                syntheticFrame(i).cpuStartSeconds - syntheticFrame(0).cpuStartSeconds, 2e-6);
  }

  const CapFrameXReading mango = readAsCapFrameX(writeCapture(CaptureFormat::mangohud, CaptureColumns::v1, "cm.csv"));
  EXPECT_TRUE(mango.mangoHud);
  EXPECT_TRUE(mango.headerCheckPassed);
  EXPECT_EQ(mango.frameTimeColumn, 1);  // frametime
  EXPECT_EQ(mango.frameStartColumn, -1);
  ASSERT_EQ(mango.rowsKept, size_t(kFrames));
  // MangoHud 0.6.8 writes microseconds where CapFrameX expects the
  // milliseconds of later MangoHud versions: its frame times read 1000 times
  // too long, for MangoHud's own 0.6.8 logs as for this one.
  for (int i = 0; i < kFrames; ++i)
    EXPECT_NEAR(mango.frameTimeMs[size_t(i)], std::floor(syntheticFrame(i).msBetweenPresents * 1000.0), 1.0);

  std::string golden;
  for (const std::string& name : kGoldenDefaultHeader) golden += (golden.empty() ? "" : ",") + name;
  golden += "\n";
  for (int row = 0; row < kFrames; ++row) golden += "dwm.exe,1268,0x224B280A1C0\n";
  const CapFrameXReading presentMon = readAsCapFrameX(golden);
  EXPECT_FALSE(presentMon.headerCheckPassed);
  EXPECT_EQ(presentMon.headerCheckMissing, "Dropped TimeInSeconds");
}

// Every layout goes through the atomic writer (app/files.h): nothing at the
// path and no temporary file until finish(), and nothing left by a writer
// dropped before it.
TEST(CaptureFormats, EveryLayoutAppearsOnlyComplete) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vksim-formats-atomic-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& [format, columns] : {std::pair{CaptureFormat::presentmon, CaptureColumns::v2},
                                        std::pair{CaptureFormat::mangohud, CaptureColumns::v1}}) {
    CaptureOptions options;
    options.csvPath = (dir / "run.csv").string();
    options.format = format;
    options.columns = columns;
    {
      CaptureWriter dropped;
      ASSERT_TRUE(dropped.open(options).has_value());
      for (int i = 0; i < kFrames; ++i) dropped.addFrame(syntheticFrame(i));
      EXPECT_FALSE(std::filesystem::exists(options.csvPath));
    }
    EXPECT_TRUE(std::filesystem::is_empty(dir)) << "a dropped writer left a file";
    CaptureWriter writer;
    ASSERT_TRUE(writer.open(options).has_value());
    for (int i = 0; i < kFrames; ++i) writer.addFrame(syntheticFrame(i));
    ASSERT_TRUE(writer.finish(CaptureEnvironment{}).has_value());
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    std::vector<std::string> expected = {"run.csv", "run.summary.json"};
    if (format == CaptureFormat::mangohud) expected.push_back("run_summary.csv");  // MangoHud's own summary
    EXPECT_EQ(names, expected);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vksim
