#include "app/capture/capture_writer.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

namespace vksim {
namespace {
namespace fs = std::filesystem;

// Appends CSV fields to a row buffer. The buffer is the writer's and keeps
// its capacity from row to row (fmt::memory_buffer: 500 bytes inline, grown
// only by an unusually long text field and kept grown), so that a row costs no
// allocation once the first rows are written.
class RowBuilder {
 public:
  explicit RowBuilder(fmt::memory_buffer& row) : row_(row) { row_.clear(); }

  // Ends the row; the next field starts a new one.
  void end() {
    row_.push_back('\n');
    first_ = true;
  }

  void text(std::string_view value) {
    startField();
    // RFC 4180 quoting, only when needed: the usual values are bare words.
    if (value.find_first_of(",\"\r\n") == std::string_view::npos) {
      append(value);
      return;
    }
    row_.push_back('"');
    for (char c : value) {
      if (c == '"') row_.push_back('"');
      row_.push_back(c);
    }
    row_.push_back('"');
  }

  void unsignedInteger(uint64_t value) { format("{}", value); }
  void signedInteger(int64_t value) { format("{}", value); }
  void notAvailable() { word("NA"); }

  // Fixed notation (PresentMon's style); NA for a value that is not finite,
  // so that no "nan" or "inf" reaches a parser.
  void fixed(double value, int decimals) {
    if (std::isfinite(value))
      format("{:.{}f}", value, decimals);
    else
      notAvailable();
  }
  void fixed(const std::optional<double>& value, int decimals) {
    if (value)
      fixed(*value, decimals);
    else
      notAvailable();
  }

  void hex16(uint64_t value) { format("0x{:016X}", value); }

  // A field whose text needs neither quoting nor formatting.
  void word(std::string_view value) {
    startField();
    append(value);
  }

 private:
  void startField() {
    if (!first_) row_.push_back(',');
    first_ = false;
  }

  void append(std::string_view value) { row_.append(value.data(), value.data() + value.size()); }

  template <typename... Args>
  void format(fmt::format_string<Args...> pattern, Args&&... args) {
    startField();
    fmt::format_to(std::back_inserter(row_), pattern, std::forward<Args>(args)...);
  }

  fmt::memory_buffer& row_;
  bool first_ = true;
};

// JSON has no NaN or infinity, and an empty string means "not reported".
nlohmann::ordered_json textOrNull(const std::string& value) {
  return value.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(value);
}

nlohmann::ordered_json numberOrNull(double value, bool known) {
  return known && std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
}

nlohmann::ordered_json makeSummary(const CaptureOptions& options, const CaptureEnvironment& environment,
                                   const FrameStats& stats, std::size_t rows) {
  // With no frames after warm-up the statistics are undefined, not zero.
  const bool known = stats.frameCount > 0;
  nlohmann::ordered_json summary;
  summary["schema"] = "vkcuda-sim.capture-summary/1";
  summary["capture"] = fs::path(options.csvPath).filename().string();
  summary["environment"] = {
      {"gpu", textOrNull(environment.gpu)},
      {"driver", textOrNull(environment.driver)},
      {"vulkanVersion", textOrNull(environment.vulkanVersion)},
      {"cudaVersion", textOrNull(environment.cudaVersion)},
      {"presentMode", textOrNull(environment.presentMode)},
      {"resolution", {{"width", environment.width}, {"height", environment.height}}},
      {"presentPoint", textOrNull(environment.presentPoint)},
      {"gpuTimeBase", textOrNull(environment.gpuTimeBase)},
      {"displayTiming", textOrNull(environment.displayTiming)},
      {"backend", textOrNull(environment.backend)},
      {"transfer", textOrNull(environment.transfer)},
      {"waitStrategy", textOrNull(environment.waitStrategy)},
      {"memoryOwner", textOrNull(environment.memoryOwner)},
  };
  summary["frameTimeColumn"] = "MsBetweenPresents";
  summary["rows"] = rows;
  summary["warmupFramesExcluded"] = stats.warmupFramesExcluded;
  summary["frames"] = stats.frameCount;
  summary["durationSeconds"] = stats.totalMs / 1000.0;
  summary["averageFps"] = numberOrNull(stats.averageFps, known);
  summary["frameTimeMs"] = {
      {"p50", numberOrNull(stats.p50Ms, known)},    {"p90", numberOrNull(stats.p90Ms, known)},
      {"p95", numberOrNull(stats.p95Ms, known)},    {"p99", numberOrNull(stats.p99Ms, known)},
      {"p99_9", numberOrNull(stats.p999Ms, known)},
  };
  summary["onePercentLowFps"] = numberOrNull(stats.onePercentLowFps, known);
  summary["pointOnePercentLowFps"] = numberOrNull(stats.pointOnePercentLowFps, known);
  summary["slowestOnePercentMeanMs"] = numberOrNull(stats.slowestOnePercentMeanMs, known);
  summary["stutterCount"] = stats.stutterCount;
  summary["stutterFactor"] = kStutterFactor;
  summary["stutterWindowFrames"] = kStutterWindowFrames;
  return summary;
}
}  // namespace

std::string summaryPathFor(const std::string& csvPath) {
  constexpr std::string_view kCsv = ".csv";
  if (csvPath.size() > kCsv.size() && csvPath.ends_with(kCsv))
    return csvPath.substr(0, csvPath.size() - kCsv.size()) + ".summary.json";
  return csvPath + ".summary.json";
}

Result<> checkCapturePath(const std::string& csvPath) {
  if (Result<> result = checkWritable(csvPath); !result) return result;
  return checkWritable(summaryPathFor(csvPath));
}

Result<> CaptureWriter::open(const CaptureOptions& options) {
  options_ = options;
  if (options_.processId == 0) options_.processId = uint32_t(::getpid());
  rowCount_ = 0;
  stats_ = {};
  frameTimesMs_.clear();
  frameTimesMs_.reserve(options_.expectedFrames);
  if (Result<> result = csv_.open(options_.csvPath, "capture"); !result) return result;
  RowBuilder row(row_);
  for (std::string_view column : kCaptureColumns) row.word(column);
  row.end();
  writeRow();
  return {};
}

void CaptureWriter::addFrame(const FrameRecord& frame) {
  if (!csv_.isOpen()) return;
  // Column order must match kCaptureColumns.
  RowBuilder row(row_);
  row.text(options_.application);
  row.unsignedInteger(options_.processId);
  row.hex16(frame.swapchainHandle);
  row.word("Vulkan");
  row.signedInteger(frame.syncInterval);
  row.unsignedInteger(frame.presentFlags);
  if (frame.dropped)
    row.unsignedInteger(*frame.dropped ? 1 : 0);
  else
    row.notAvailable();
  row.fixed(frame.timeInSeconds, 6);
  row.fixed(frame.msBetweenPresents, 4);
  row.fixed(frame.msBetweenDisplayChange, 4);
  row.fixed(frame.msInPresentApi, 4);
  row.fixed(frame.msUntilRenderComplete, 4);
  row.unsignedInteger(frame.frame);
  row.text(frame.syncMode);
  row.text(frame.backend);
  row.text(frame.model);
  row.unsignedInteger(frame.grid);
  row.fixed(frame.msCpuFrame, 4);
  row.fixed(frame.msRenderGpu, 4);
  row.fixed(frame.msSimGpu, 4);
  row.fixed(frame.msSimWait, 4);
  if (frame.timelineValue)
    row.unsignedInteger(*frame.timelineValue);
  else
    row.notAvailable();
  row.fixed(frame.msUntilDisplayed, 4);
  row.fixed(frame.msCpuBusy, 4);
  row.fixed(frame.msGpuBusy, 4);
  row.end();
  writeRow();
  frameTimesMs_.push_back(frame.msBetweenPresents);
  ++rowCount_;
}

void CaptureWriter::writeRow() {
  csv_.stream().write(row_.data(), std::streamsize(row_.size()));
}

Result<> CaptureWriter::finish(const CaptureEnvironment& environment) {
  if (!csv_.isOpen()) return fail("cannot write capture " + options_.csvPath + ": not open", kExitRuntime);

  // Warm-up counts rows, so the statistics start at the same frame whatever
  // the first frames measured; only then are unmeasurable times dropped.
  const std::size_t warmup = std::min(options_.warmupFrames, frameTimesMs_.size());
  std::vector<double> measured;
  measured.reserve(frameTimesMs_.size() - warmup);
  for (std::size_t i = warmup; i < frameTimesMs_.size(); ++i)
    if (std::isfinite(frameTimesMs_[i])) measured.push_back(frameTimesMs_[i]);
  FrameStats stats = computeFrameStats(measured);
  stats.warmupFramesExcluded = warmup;

  if (Result<> result = csv_.close(); !result) return result;
  const std::string summaryPath = summaryPathFor(options_.csvPath);
  AtomicFile summary;
  if (Result<> result = summary.open(summaryPath, "capture summary", 64 * 1024); !result) {
    csv_.discard();
    return result;
  }
  summary.stream() << makeSummary(options_, environment, stats, rowCount_).dump(2) << '\n';
  if (Result<> result = summary.close(); !result) {
    csv_.discard();
    return result;
  }
  // Both files are complete on disk before either is renamed, so a failure up
  // to here leaves neither; a rename failure of the summary after the CSV's
  // keeps the complete CSV and says so.
  if (Result<> result = csv_.commit(); !result) return result;  // summary's destructor removes its temp
  if (Result<> result = summary.commit(); !result) {
    result.error().message += " (the capture CSV was written)";
    return result;
  }
  stats_ = stats;
  return {};
}

}  // namespace vksim
