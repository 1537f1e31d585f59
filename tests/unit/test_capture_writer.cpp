// The capture CSV, its summary and the trace, written from synthetic frames and
// parsed back; and the all-or-nothing rule for every file the user asked for.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/capture/capture_writer.h"
#include "app/capture/trace_writer.h"

// Global allocations made by the thread that counts them (countAllocations
// below): this test binary's operator new counts, then allocates as usual.
namespace {
thread_local bool countingAllocations = false;
thread_local std::size_t allocationCount = 0;
}  // namespace

void* operator new(std::size_t size) {
  if (countingAllocations) ++allocationCount;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
// GCC takes new-expressions for the library's allocator and warns when a
// delete it inlines frees with free(); here both sides are malloc's.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* memory) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
  std::free(memory);
}
#pragma GCC diagnostic pop

namespace vksim {
namespace {
namespace fs = std::filesystem;

// How many global allocations `work` made on this thread.
template <typename Work>
std::size_t countAllocations(Work&& work) {
  allocationCount = 0;
  countingAllocations = true;
  work();
  countingAllocations = false;
  return allocationCount;
}

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() / ("vksim-capture-" + std::to_string(::getpid()) + "-" +
                                         info->test_suite_name() + "-" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  const fs::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(path_)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path path_;
};

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> splitLine(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::stringstream in(line);
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.push_back("");
  return fields;
}

std::vector<std::vector<std::string>> readCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) rows.push_back(splitLine(line));
  return rows;
}

// Frame k: 10 ms frames with every 10th at 40 ms; GPU times known on even
// frames only; binary mode (no timeline value) from frame 20.
FrameRecord syntheticFrame(uint64_t k, double& timeSeconds) {
  FrameRecord frame;
  frame.frame = k;
  frame.swapchainHandle = 0xABCDEF12u;
  frame.syncInterval = 1;
  frame.dropped = false;
  frame.msBetweenPresents = k % 10 == 9 ? 40.0 : 10.0;
  timeSeconds += frame.msBetweenPresents / 1000.0;
  frame.timeInSeconds = timeSeconds;
  frame.msInPresentApi = 0.25;
  frame.msUntilRenderComplete = 3.5;
  const bool binary = k >= 20;
  frame.syncMode = binary ? "binary" : "timeline";
  frame.backend = "cuda";
  frame.model = "ripple";
  frame.grid = 512;
  frame.msCpuFrame = 1.5;
  if (k % 2 == 0) {
    frame.msRenderGpu = 2.0;
    frame.msSimGpu = 1.25;
    frame.msSimWait = 0.5;
  }
  if (!binary) frame.timelineValue = 2 * (k + 1);
  return frame;
}

CaptureEnvironment syntheticEnvironment() {
  CaptureEnvironment environment;
  environment.gpu = "NVIDIA H200";
  environment.driver = "NVIDIA 550.54.15";
  environment.vulkanVersion = "1.3.277";
  environment.cudaVersion = "12.4";
  environment.presentMode = "FIFO";
  environment.width = 1280;
  environment.height = 720;
  return environment;
}

const std::vector<std::string> kExpectedHeader = {"Application",
                                                  "ProcessID",
                                                  "SwapChainAddress",
                                                  "Runtime",
                                                  "SyncInterval",
                                                  "PresentFlags",
                                                  "Dropped",
                                                  "TimeInSeconds",
                                                  "MsBetweenPresents",
                                                  "MsBetweenDisplayChange",
                                                  "MsInPresentAPI",
                                                  "MsUntilRenderComplete",
                                                  "Frame",
                                                  "SyncMode",
                                                  "Backend",
                                                  "Model",
                                                  "Grid",
                                                  "MsCpuFrame",
                                                  "MsRenderGpu",
                                                  "MsSimGpu",
                                                  "MsSimWait",
                                                  "TimelineValue",
                                                  "MsUntilDisplayed",
                                                  "MsCPUBusy",
                                                  "MsGPUBusy"};

std::size_t column(const std::string& name) {
  return std::size_t(std::find(kExpectedHeader.begin(), kExpectedHeader.end(), name) -
                     kExpectedHeader.begin());
}

void writeSyntheticCapture(const std::string& csvPath, std::size_t frames, std::size_t warmup) {
  CaptureWriter writer;
  CaptureOptions options;
  options.csvPath = csvPath;
  options.warmupFrames = warmup;
  options.expectedFrames = frames;
  ASSERT_TRUE(writer.open(options)) << csvPath;
  double timeSeconds = 0.0;
  for (uint64_t k = 0; k < frames; ++k) writer.addFrame(syntheticFrame(k, timeSeconds));
  const Result<> result = writer.finish(syntheticEnvironment());
  ASSERT_TRUE(result) << result.error().message;
}

TEST(CaptureWriter, CsvHasPresentMonHeaderThirtyRowsAndNaWhereUnknown) {
  TempDir dir;
  writeSyntheticCapture(dir.file("run.csv"), 30, 5);
  const auto rows = readCsv(dir.file("run.csv"));
  ASSERT_EQ(rows.size(), 31u);  // header + 30 frames
  EXPECT_EQ(rows[0], kExpectedHeader);
  for (std::size_t k = 0; k < 30; ++k) {
    const auto& row = rows[k + 1];
    ASSERT_EQ(row.size(), kExpectedHeader.size()) << "row " << k;
    EXPECT_EQ(row[column("Application")], "vkcuda-sim");
    EXPECT_EQ(row[column("ProcessID")], std::to_string(::getpid()));
    EXPECT_EQ(row[column("SwapChainAddress")], "0x00000000ABCDEF12");
    EXPECT_EQ(row[column("Runtime")], "Vulkan");
    EXPECT_EQ(row[column("SyncInterval")], "1");
    EXPECT_EQ(row[column("PresentFlags")], "0");
    EXPECT_EQ(row[column("Dropped")], "0");
    EXPECT_EQ(row[column("MsBetweenDisplayChange")], "NA");
    EXPECT_EQ(std::stod(row[column("MsBetweenPresents")]), k % 10 == 9 ? 40.0 : 10.0);
    EXPECT_EQ(std::stod(row[column("MsUntilRenderComplete")]), 3.5);
    EXPECT_EQ(row[column("Frame")], std::to_string(k));
    EXPECT_EQ(row[column("SyncMode")], k >= 20 ? "binary" : "timeline");
    EXPECT_EQ(row[column("Backend")], "cuda");
    EXPECT_EQ(row[column("Model")], "ripple");
    EXPECT_EQ(row[column("Grid")], "512");
    const bool gpuKnown = k % 2 == 0;
    for (const char* name : {"MsRenderGpu", "MsSimGpu", "MsSimWait"})
      EXPECT_EQ(row[column(name)] == "NA", !gpuKnown) << name << " row " << k;
    const std::string timeline = k >= 20 ? "NA" : std::to_string(2 * (k + 1));
    EXPECT_EQ(row[column("TimelineValue")], timeline);
  }
  // The rows' times add up: the last present is at 30 frames' worth of time.
  EXPECT_NEAR(std::stod(rows[30][column("TimeInSeconds")]), (27 * 10.0 + 3 * 40.0) / 1000.0, 1e-6);
  // Only the two finished files remain: no temporary left over.
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"run.csv", "run.summary.json"}));
}

TEST(CaptureWriter, SummaryJsonParsesAndHasEveryKey) {
  TempDir dir;
  writeSyntheticCapture(dir.file("run.csv"), 30, 5);
  const auto summary = nlohmann::json::parse(readFile(dir.file("run.summary.json")));
  const auto& environment = summary.at("environment");
  EXPECT_EQ(environment.at("gpu"), "NVIDIA H200");
  EXPECT_EQ(environment.at("driver"), "NVIDIA 550.54.15");
  EXPECT_EQ(environment.at("vulkanVersion"), "1.3.277");
  EXPECT_EQ(environment.at("cudaVersion"), "12.4");
  EXPECT_EQ(environment.at("presentMode"), "FIFO");
  EXPECT_EQ(environment.at("resolution").at("width"), 1280);
  EXPECT_EQ(environment.at("resolution").at("height"), 720);
  EXPECT_EQ(summary.at("capture"), "run.csv");
  EXPECT_EQ(summary.at("frameTimeColumn"), "MsBetweenPresents");
  EXPECT_EQ(summary.at("rows"), 30);
  EXPECT_EQ(summary.at("warmupFramesExcluded"), 5);
  EXPECT_EQ(summary.at("frames"), 25);

  // Frames 5..29 (25): 40 ms at 9, 19 and 29, 10 ms at the other 22.
  // T = 22 * 10 + 3 * 40 = 340 ms; average FPS = 25 / 0.34 s = 73.529...
  EXPECT_NEAR(summary.at("durationSeconds").get<double>(), 0.34, 1e-12);
  EXPECT_NEAR(summary.at("averageFps").get<double>(), 25 / 0.34, 1e-9);
  // Sorted: s[0..21] = 10, s[22..24] = 40; N - 1 = 24 (docs/captures.md).
  // P50:   h = 0.5   * 24 = 12     -> s[12] = 10
  // P90:   h = 0.9   * 24 = 21.6   -> s[21] + 0.6 * (s[22] - s[21]) = 10 + 0.6 * 30 = 28
  // P95:   h = 0.95  * 24 = 22.8   -> s[22] + 0.8 * (s[23] - s[22]) = 40 + 0 = 40
  // P99:   h = 0.99  * 24 = 23.76  -> 40;  P99.9: h = 23.976 -> 40
  // 1% and 0.1% lows: 1000 / 40 = 25 FPS. Slowest 1%: ceil(25 / 100) = 1
  // frame, 40 ms.
  const auto& percentiles = summary.at("frameTimeMs");
  EXPECT_NEAR(percentiles.at("p50").get<double>(), 10.0, 1e-9);
  EXPECT_NEAR(percentiles.at("p90").get<double>(), 28.0, 1e-9);
  EXPECT_NEAR(percentiles.at("p95").get<double>(), 40.0, 1e-9);
  EXPECT_NEAR(percentiles.at("p99").get<double>(), 40.0, 1e-9);
  EXPECT_NEAR(percentiles.at("p99_9").get<double>(), 40.0, 1e-9);
  EXPECT_NEAR(summary.at("onePercentLowFps").get<double>(), 25.0, 1e-9);
  EXPECT_NEAR(summary.at("pointOnePercentLowFps").get<double>(), 25.0, 1e-9);
  EXPECT_DOUBLE_EQ(summary.at("slowestOnePercentMeanMs").get<double>(), 40.0);
  // Counted from the first frame after warm-up (frame 5):
  // frame 9:  mean of frames 5..8 = 10;                       40 > 25    -> stutter
  // frame 19: mean of 5..18 = (13 * 10 + 40) / 14 = 12.14;    40 > 30.36 -> stutter
  // frame 29: mean of 5..28 = (22 * 10 + 2 * 40) / 24 = 12.5; 40 > 31.25 -> stutter
  EXPECT_EQ(summary.at("stutterCount"), 3);
  EXPECT_EQ(summary.at("stutterFactor"), 2.5);
  EXPECT_EQ(summary.at("stutterWindowFrames"), 30);
}

TEST(CaptureWriter, EmptyCaptureHasNullStatistics) {
  TempDir dir;
  writeSyntheticCapture(dir.file("empty.csv"), 0, 5);
  const auto rows = readCsv(dir.file("empty.csv"));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], kExpectedHeader);
  const auto summary = nlohmann::json::parse(readFile(dir.file("empty.summary.json")));
  EXPECT_EQ(summary.at("frames"), 0);
  EXPECT_EQ(summary.at("warmupFramesExcluded"), 0);
  EXPECT_TRUE(summary.at("averageFps").is_null());
  EXPECT_TRUE(summary.at("frameTimeMs").at("p99").is_null());
  EXPECT_TRUE(summary.at("onePercentLowFps").is_null());
}

TEST(CaptureWriter, EmptyEnvironmentFieldsAreNull) {
  TempDir dir;
  CaptureWriter writer;
  ASSERT_TRUE(writer.open({.csvPath = dir.file("cpu.csv")}));
  ASSERT_TRUE(writer.finish(CaptureEnvironment{.presentMode = "headless"}));
  const auto summary = nlohmann::json::parse(readFile(dir.file("cpu.summary.json")));
  EXPECT_TRUE(summary.at("environment").at("cudaVersion").is_null());
  EXPECT_EQ(summary.at("environment").at("presentMode"), "headless");
}

TEST(CaptureWriter, HeadlessSwapchainIsZeroAndUnknownsAreNa) {
  TempDir dir;
  CaptureWriter writer;
  ASSERT_TRUE(writer.open({.csvPath = dir.file("headless.csv")}));
  FrameRecord frame;  // nothing known beyond the defaults
  frame.msBetweenPresents = std::nan("");
  writer.addFrame(frame);
  ASSERT_TRUE(writer.finish({}));
  const auto rows = readCsv(dir.file("headless.csv"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][column("SwapChainAddress")], "0x0000000000000000");
  for (const char* name : {"Dropped", "MsBetweenPresents", "MsBetweenDisplayChange", "MsUntilRenderComplete",
                           "MsRenderGpu", "MsSimGpu", "MsSimWait", "TimelineValue"})
    EXPECT_EQ(rows[1][column(name)], "NA") << name;
  EXPECT_EQ(writer.stats().frameCount, 0u);  // a non-finite frame time is not a frame time
}

TEST(CaptureWriter, TextFieldsWithCommasAreQuoted) {
  TempDir dir;
  CaptureWriter writer;
  ASSERT_TRUE(writer.open({.csvPath = dir.file("q.csv"), .application = "my,app \"x\""}));
  writer.addFrame(FrameRecord{});
  ASSERT_TRUE(writer.finish({}));
  const std::string text = readFile(dir.file("q.csv"));
  EXPECT_NE(text.find("\n\"my,app \"\"x\"\"\","), std::string::npos) << text;
}

TEST(CaptureWriter, SummaryPathReplacesTheCsvExtension) {
  EXPECT_EQ(summaryPathFor("/tmp/run.csv"), "/tmp/run.summary.json");
  EXPECT_EQ(summaryPathFor("run"), "run.summary.json");
  EXPECT_EQ(summaryPathFor("run.data"), "run.data.summary.json");
  EXPECT_EQ(summaryPathFor(".csv"), ".csv.summary.json");
}

TEST(CaptureWriter, UnwritablePathFailsWithOneLineAndLeavesNoFile) {
  const std::string path = "/nonexistent-dir/x.csv";
  const Result<> check = checkCapturePath(path);
  ASSERT_FALSE(check);
  EXPECT_FALSE(check.error().message.empty());
  EXPECT_EQ(check.error().message.find('\n'), std::string::npos) << check.error().message;
  EXPECT_NE(check.error().message.find(path), std::string::npos) << check.error().message;

  CaptureWriter writer;
  const Result<> open = writer.open({.csvPath = path});
  ASSERT_FALSE(open);
  EXPECT_FALSE(open.error().message.empty());
  EXPECT_EQ(open.error().message.find('\n'), std::string::npos) << open.error().message;
  EXPECT_FALSE(writer.isOpen());
  writer.addFrame(FrameRecord{});  // ignored, no crash
  EXPECT_FALSE(writer.finish({}));
  EXPECT_FALSE(fs::exists("/nonexistent-dir"));
}

TEST(CaptureWriter, DirectoryAsPathFailsEarly) {
  TempDir dir;
  const Result<> check = checkCapturePath(dir.path().string());
  ASSERT_FALSE(check);
  EXPECT_NE(check.error().message.find("directory"), std::string::npos) << check.error().message;
  CaptureWriter writer;
  EXPECT_FALSE(writer.open({.csvPath = dir.path().string()}));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CaptureWriter, EarlyCheckLeavesNothingBehind) {
  TempDir dir;
  EXPECT_TRUE(checkCapturePath(dir.file("later.csv")));
  EXPECT_TRUE(checkWritable(dir.file("later.json")));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CaptureWriter, UnfinishedCaptureLeavesNoFile) {
  TempDir dir;
  {
    CaptureWriter writer;
    ASSERT_TRUE(writer.open({.csvPath = dir.file("run.csv")}));
    writer.addFrame(FrameRecord{});
    EXPECT_EQ(dir.entries().size(), 1u);  // the temporary file while running
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CaptureWriter, FailedRenameRemovesTheTemporaryFiles) {
  TempDir dir;
  CaptureWriter writer;
  ASSERT_TRUE(writer.open({.csvPath = dir.file("run.csv")}));
  writer.addFrame(FrameRecord{});
  // A non-empty directory where the CSV should go makes rename(2) fail even
  // for root, which ignores permission bits.
  fs::create_directories(dir.path() / "run.csv" / "occupied");
  const Result<> result = writer.finish({});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message.find('\n'), std::string::npos) << result.error().message;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"run.csv"});  // just the directory we made
}

TEST(CaptureWriter, FailedWriteRemovesTheTemporaryFile) {
  TempDir dir;
  CaptureWriter writer;
  ASSERT_TRUE(writer.open({.csvPath = dir.file("big.csv")}));
  // A file-size limit turns writes past 16 KiB into EFBIG, even for root: a
  // real write failure without a full disk. SIGXFSZ would kill the process.
  const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit previous{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &previous), 0);
  rlimit limited = previous;
  limited.rlim_cur = 16 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  double timeSeconds = 0.0;
  for (uint64_t k = 0; k < 2000; ++k) writer.addFrame(syntheticFrame(k, timeSeconds));
  const Result<> result = writer.finish({});
  ::setrlimit(RLIMIT_FSIZE, &previous);
  std::signal(SIGXFSZ, previousHandler);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message.find('\n'), std::string::npos) << result.error().message;
  EXPECT_TRUE(dir.entries().empty());
}

// ---- trace ----------------------------------------------------------------

struct Span {
  int64_t startNs, endNs;
};

int64_t toNs(const nlohmann::json& microseconds) {
  return std::llround(microseconds.get<double>() * 1000.0);
}

// Every pair of spans on one track is either disjoint or nested.
void expectNested(std::vector<Span> spans, const std::string& track) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.startNs != b.startNs ? a.startNs < b.startNs : a.endNs > b.endNs;
  });
  std::vector<int64_t> open;
  for (const Span& span : spans) {
    EXPECT_LE(span.startNs, span.endNs) << track;
    while (!open.empty() && open.back() <= span.startNs) open.pop_back();
    if (!open.empty()) {
      EXPECT_LE(span.endNs, open.back()) << track << " span at " << span.startNs << " straddles";
    }
    open.push_back(span.endNs);
  }
}

std::map<int, std::vector<Span>> spansByTrack(const nlohmann::json& trace) {
  std::map<int, std::vector<Span>> tracks;
  for (const auto& event : trace.at("traceEvents"))
    if (event.at("ph") == "X") {
      const int64_t start = toNs(event.at("ts"));
      tracks[event.at("tid").get<int>()].push_back({start, start + toNs(event.at("dur"))});
    }
  return tracks;
}

TEST(TraceWriter, ThirtyFramesOnSixNamedTracksThatNest) {
  TempDir dir;
  TraceWriter writer;
  ASSERT_TRUE(writer.open(dir.file("run.json")));
  // Frame k at 16.667 us * 1000 intervals (a 60 Hz frame), with the GPU
  // spans inside it and the sim's wait just before its step.
  const double frameUs = 16666.667;
  for (uint64_t k = 0; k < 30; ++k) {
    const double start = double(k) * frameUs;
    writer.addSpan(TraceTrack::hostFrame, k, start, frameUs);
    writer.addSpan(TraceTrack::renderGpu, k, start + 1000.0, 4000.3);
    writer.addSpan(TraceTrack::simWait, k, start + 5000.3, 200.0);
    writer.addSpan(TraceTrack::simGpu, k, start + 5200.3, 3000.0);
    writer.addSpan(TraceTrack::overlayBuild, k, start + 8300.0, 150.0);
    writer.addSpan(TraceTrack::overlayRecord, k, start + 800.0, 40.0);
    if (k == 15) writer.addInstant("sync mode: binary", start);
  }
  ASSERT_TRUE(writer.finish());
  EXPECT_EQ(writer.adjustedSpanCount(), 0u);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"run.json"});

  const auto trace = nlohmann::json::parse(readFile(dir.file("run.json")));
  EXPECT_EQ(trace.at("displayTimeUnit"), "ms");
  std::map<int, std::string> names;
  int instants = 0;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "thread_name")
      names[event.at("tid").get<int>()] = event.at("args").at("name").get<std::string>();
    if (event.at("ph") == "i") {
      ++instants;
      EXPECT_EQ(event.at("name"), "sync mode: binary");
      EXPECT_NEAR(event.at("ts").get<double>(), 15 * frameUs, 1e-3);
    }
    if (event.at("ph") == "X") {
      EXPECT_TRUE(event.at("args").contains("frame"));
      EXPECT_EQ(event.at("pid"), ::getpid());
    }
  }
  EXPECT_EQ(instants, 1);
  EXPECT_EQ(names, (std::map<int, std::string>{
                       {1, "Host frame"},
                       {2, "Render GPU"},
                       {3, "Sim GPU"},
                       {4, "Sim external wait"},
                       {5, "Host overlay build"},
                       {6, "Host overlay record"}}));
  const auto tracks = spansByTrack(trace);
  ASSERT_EQ(tracks.size(), 6u);
  for (const auto& [tid, spans] : tracks) {
    EXPECT_EQ(spans.size(), 30u) << names[tid];
    expectNested(spans, names[tid]);
  }
  // Back-to-back host frames meet exactly: end of frame k == start of k + 1.
  const auto& host = tracks.at(1);
  for (std::size_t k = 0; k + 1 < host.size(); ++k) EXPECT_EQ(host[k].endNs, host[k + 1].startNs);
}

TEST(TraceWriter, StraddlingAndOutOfOrderSpansAreAdjustedToNest) {
  TempDir dir;
  TraceWriter writer;
  ASSERT_TRUE(writer.open(dir.file("t.json")));
  writer.addSpan(TraceTrack::renderGpu, 0, 0.0, 10.0);          // [0, 10)
  writer.addSpan(TraceTrack::renderGpu, 0, 2.0, 3.0);           // [2, 5): nested, fine
  writer.addSpan(TraceTrack::renderGpu, 1, 8.0, 10.0);          // [8, 18) straddles -> cut to [8, 10)
  writer.addSpan(TraceTrack::renderGpu, 2, 6.0, 1.0);           // starts before 8 -> moved to [8, 9)
  writer.addSpan(TraceTrack::renderGpu, 3, 20.0, -5.0);         // negative duration -> [20, 20)
  writer.addSpan(TraceTrack::renderGpu, 4, std::nan(""), 1.0);  // dropped
  ASSERT_TRUE(writer.finish());
  EXPECT_EQ(writer.adjustedSpanCount(), 3u);  // the cut, the move, the dropped one
  const auto trace = nlohmann::json::parse(readFile(dir.file("t.json")));
  const auto tracks = spansByTrack(trace);
  ASSERT_EQ(tracks.at(2).size(), 5u);
  expectNested(tracks.at(2), "Render GPU");
  EXPECT_EQ(tracks.at(2)[2].endNs, 10000);
  EXPECT_EQ(tracks.at(2)[3].startNs, 8000);
  EXPECT_EQ(tracks.at(2)[3].endNs, 9000);
}

TEST(TraceWriter, InstantNamesAreEscaped) {
  TempDir dir;
  TraceWriter writer;
  ASSERT_TRUE(writer.open(dir.file("e.json")));
  writer.addInstant("quote \" and \\ backslash", 1.0);
  ASSERT_TRUE(writer.finish());
  const auto trace = nlohmann::json::parse(readFile(dir.file("e.json")));
  EXPECT_EQ(trace.at("traceEvents").back().at("name"), "quote \" and \\ backslash");
}

TEST(TraceWriter, UnwritablePathFailsAndUnfinishedTraceLeavesNoFile) {
  TraceWriter unwritable;
  const Result<> result = unwritable.open("/nonexistent-dir/x.json");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message.find('\n'), std::string::npos) << result.error().message;
  EXPECT_FALSE(unwritable.finish());

  TempDir dir;
  {
    TraceWriter writer;
    ASSERT_TRUE(writer.open(dir.file("t.json")));
    writer.addSpan(TraceTrack::hostFrame, 0, 0.0, 1.0);
  }
  EXPECT_TRUE(dir.entries().empty());
}

// The exact text of the CSV: column order, fixed decimals, NA, the
// swapchain's hexadecimal, RFC 4180 quoting (docs/captures.md).
TEST(CaptureWriter, RowsHaveTheirExactText) {
  TempDir dir;
  CaptureWriter writer;
  ASSERT_TRUE(writer.open({.csvPath = dir.file("rows.csv"), .processId = 4242}));
  FrameRecord first;
  first.frame = 7;
  first.swapchainHandle = 0xABCDEF12u;
  first.syncInterval = 1;
  first.dropped = false;
  first.timeInSeconds = 1.0 / 3.0;
  first.msBetweenPresents = 16.66666;
  first.msInPresentApi = 0.25;
  first.msUntilRenderComplete = 3.5;
  first.syncMode = "timeline";
  first.backend = "cuda";
  first.model = "ripple";
  first.grid = 512;
  first.msCpuFrame = 1.5;
  first.msRenderGpu = 2.0;
  first.msSimGpu = 1.25;
  first.msSimWait = 0.5;
  first.timelineValue = 16;
  first.msBetweenDisplayChange = 16.5;
  first.msUntilDisplayed = 20.125;
  first.msCpuBusy = 16.41666;
  first.msGpuBusy = 3.25;
  FrameRecord second;
  second.frame = 8;
  second.timeInSeconds = 0.5;
  second.msBetweenPresents = std::nan("");
  second.syncMode = "binary";
  second.backend = "a,b";
  second.model = "say \"hi\"";
  second.grid = 64;
  second.msCpuFrame = -0.00004;
  writer.addFrame(first);
  writer.addFrame(second);
  ASSERT_TRUE(writer.finish({}));
  EXPECT_EQ(readFile(dir.file("rows.csv")),
            "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,Dropped,TimeInSeconds,"
            "MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,MsUntilRenderComplete,Frame,SyncMode,"
            "Backend,Model,Grid,MsCpuFrame,MsRenderGpu,MsSimGpu,MsSimWait,TimelineValue,MsUntilDisplayed,"
            "MsCPUBusy,MsGPUBusy\n"
            "vkcuda-sim,4242,0x00000000ABCDEF12,Vulkan,1,0,0,0.333333,16.6667,16.5000,0.2500,3.5000,7,timeline,"
            "cuda,ripple,512,1.5000,2.0000,1.2500,0.5000,16,20.1250,16.4167,3.2500\n"
            "vkcuda-sim,4242,0x0000000000000000,Vulkan,0,0,NA,0.500000,NA,NA,0.0000,NA,8,binary,\"a,b\","
            "\"say \"\"hi\"\"\",64,-0.0000,NA,NA,NA,NA,NA,0.0000,NA\n");
}

// A row costs no allocation once the writer is running (CaptureWriter's
// contract): the frame loop calls addFrame every frame.
TEST(CaptureWriter, RowsAfterTheFirstAllocateNothing) {
  TempDir dir;
  CaptureWriter writer;
  ASSERT_TRUE(writer.open({.csvPath = dir.file("quiet.csv"), .expectedFrames = 100}));
  std::vector<FrameRecord> frames;
  double timeSeconds = 0.0;
  for (uint64_t k = 0; k < 100; ++k) frames.push_back(syntheticFrame(k, timeSeconds));
  writer.addFrame(frames[0]);
  const std::size_t allocations = countAllocations([&] {
    for (std::size_t k = 1; k < frames.size(); ++k) writer.addFrame(frames[k]);
  });
  EXPECT_EQ(allocations, 0u);
  ASSERT_TRUE(writer.finish({}));
  EXPECT_EQ(writer.rowCount(), 100u);
}

// The exact text of the trace's events (the Chrome trace format): times in
// microseconds with three decimals, negative ones too; names escaped.
TEST(TraceWriter, EventsHaveTheirExactText) {
  TempDir dir;
  TraceWriter writer;
  ASSERT_TRUE(writer.open(dir.file("t.json")));
  writer.addSpan(TraceTrack::renderGpu, 3, -12.3456, 1.0004);
  writer.addInstant("a\"b", 0.0005);
  writer.addTrackInstant(TraceTrack::simGpu, "sim submit", 3.25, R"({"frame":1})");
  ASSERT_TRUE(writer.finish());
  std::string expected = R"({"displayTimeUnit":"ms","traceEvents":[
{"name":"process_name","ph":"M","pid":PID,"args":{"name":"vkcuda-sim"}},
{"name":"thread_name","ph":"M","pid":PID,"tid":1,"args":{"name":"Host frame"}},
{"name":"thread_sort_index","ph":"M","pid":PID,"tid":1,"args":{"sort_index":0}},
{"name":"thread_name","ph":"M","pid":PID,"tid":2,"args":{"name":"Render GPU"}},
{"name":"thread_sort_index","ph":"M","pid":PID,"tid":2,"args":{"sort_index":1}},
{"name":"thread_name","ph":"M","pid":PID,"tid":3,"args":{"name":"Sim GPU"}},
{"name":"thread_sort_index","ph":"M","pid":PID,"tid":3,"args":{"sort_index":2}},
{"name":"thread_name","ph":"M","pid":PID,"tid":4,"args":{"name":"Sim external wait"}},
{"name":"thread_sort_index","ph":"M","pid":PID,"tid":4,"args":{"sort_index":3}},
{"name":"thread_name","ph":"M","pid":PID,"tid":5,"args":{"name":"Host overlay build"}},
{"name":"thread_sort_index","ph":"M","pid":PID,"tid":5,"args":{"sort_index":4}},
{"name":"thread_name","ph":"M","pid":PID,"tid":6,"args":{"name":"Host overlay record"}},
{"name":"thread_sort_index","ph":"M","pid":PID,"tid":6,"args":{"sort_index":5}},
{"name":"render","ph":"X","pid":PID,"tid":2,"ts":-12.346,"dur":1.000,"args":{"frame":3}},
{"name":"a\"b","ph":"i","s":"g","pid":PID,"tid":1,"ts":0.001},
{"name":"sim submit","ph":"i","s":"t","pid":PID,"tid":3,"ts":3.250,"args":{"frame":1}}
]}
)";
  const std::string pid = std::to_string(::getpid());
  for (std::size_t at = expected.find("PID"); at != std::string::npos; at = expected.find("PID", at))
    expected.replace(at, 3, pid);
  EXPECT_EQ(readFile(dir.file("t.json")), expected);
}

// A span costs no allocation once the trace is running: one is written for
// every track every frame.
TEST(TraceWriter, SpansAfterTheFirstAllocateNothing) {
  TempDir dir;
  TraceWriter writer;
  ASSERT_TRUE(writer.open(dir.file("quiet.json")));
  writer.addSpan(TraceTrack::hostFrame, 0, 0.0, 100.0);
  const std::size_t allocations = countAllocations([&] {
    for (uint64_t k = 1; k < 100; ++k) {
      const double start = double(k) * 100.0;
      writer.addSpan(TraceTrack::hostFrame, k, start, 100.0);
      writer.addSpan(TraceTrack::renderGpu, k, start + 10.0, 40.0);
    }
  });
  EXPECT_EQ(allocations, 0u);
  ASSERT_TRUE(writer.finish());
}

}  // namespace
}  // namespace vksim
