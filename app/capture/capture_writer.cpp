#include "app/capture/capture_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

#include "app/capture/csv_row.h"
#include "app/capture/presentmon_v2.h"

namespace vksim {
namespace {
namespace fs = std::filesystem;

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
  summary["format"] = options.format == CaptureFormat::mangohud ? std::string("mangohud")
                                                                : std::string("presentmon-") + toString(options.columns);
  // The statistics are in ms whatever the format; MangoHud's column holds
  // the same frame times in whole microseconds.
  summary["frameTimeColumn"] = options.format == CaptureFormat::mangohud ? "frametime" : "MsBetweenPresents";
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

const char* toString(CaptureFormat format) {
  return format == CaptureFormat::mangohud ? "mangohud" : "presentmon";
}

const char* toString(CaptureColumns columns) {
  return columns == CaptureColumns::v2 ? "v2" : "v1";
}

namespace {

// PATH.csv -> PATH + suffix; a path not ending in ".csv" gets the suffix appended.
std::string besideCsv(const std::string& csvPath, std::string_view suffix) {
  constexpr std::string_view kCsv = ".csv";
  const bool csv = csvPath.size() > kCsv.size() && csvPath.ends_with(kCsv);
  return csvPath.substr(0, csvPath.size() - (csv ? kCsv.size() : 0)) + std::string(suffix);
}

}  // namespace

std::string summaryPathFor(const std::string& csvPath) {
  return besideCsv(csvPath, ".summary.json");
}

std::string mangoHudSummaryPathFor(const std::string& csvPath) {
  return besideCsv(csvPath, "_summary.csv");
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
  mangoHudFrames_.clear();
  presentMonV2_ = {};
  if (options_.format == CaptureFormat::mangohud) {
    mangoHudFrames_.reserve(options_.expectedFrames);
    // Refused now, not after the run: finish() writes it beside the log.
    if (Result<> result = checkWritable(mangoHudSummaryPathFor(options_.csvPath)); !result) return result;
  }
  if (Result<> result = csv_.open(options_.csvPath, "capture"); !result) return result;
  if (options_.format == CaptureFormat::mangohud) return {};  // written whole by finish()
  RowBuilder row(row_);
  if (options_.columns == CaptureColumns::v2) {
    appendPresentMonV2Header(row);
  } else {
    for (std::string_view column : kCaptureColumns) row.word(column);
    row.end();
  }
  writeRow();
  return {};
}

void CaptureWriter::addFrame(const FrameRecord& frame) {
  if (!csv_.isOpen()) return;
  if (options_.format == CaptureFormat::mangohud) {
    // MangoHud's frame time is present to present, as MsBetweenPresents.
    mangoHudFrames_.push_back({int64_t(std::llround(frame.msBetweenPresents * 1.0e6)),
                               int64_t(std::llround(frame.timeInSeconds * 1.0e9))});
  } else if (options_.columns == CaptureColumns::v2) {
    RowBuilder row(row_);
    appendPresentMonV2Row(row, frame, options_.application, options_.processId, presentMonV2_);
    writeRow();
  } else {
    addPresentMonV1Row(frame);
  }
  frameTimesMs_.push_back(frame.msBetweenPresents);
  ++rowCount_;
}

void CaptureWriter::addPresentMonV1Row(const FrameRecord& frame) {
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
  appendAppColumns(row, frame);
  row.fixed(frame.msUntilDisplayed, 4);
  row.fixed(frame.msCpuBusy, 4);
  row.fixed(frame.msGpuBusy, 4);
  row.end();
  writeRow();
}

void CaptureWriter::writeRow() {
  csv_.stream().write(row_.data(), std::streamsize(row_.size()));
}

// The summary, and with MangoHud's layout MangoHud's own summary too, each
// written and closed (complete on disk) but not yet renamed into place.
Result<> CaptureWriter::writeSummaries(const CaptureEnvironment& environment, const FrameStats& stats,
                                       AtomicFile& summary, AtomicFile& mangoHudSummary) const {
  if (Result<> result = summary.open(summaryPathFor(options_.csvPath), "capture summary", 64 * 1024); !result)
    return result;
  summary.stream() << makeSummary(options_, environment, stats, rowCount_).dump(2) << '\n';
  if (Result<> result = summary.close(); !result) return result;
  if (options_.format != CaptureFormat::mangohud) return {};
  std::vector<float> fps;
  fps.reserve(mangoHudFrames_.size());
  for (const MangoHudFrame& frame : mangoHudFrames_)
    fps.push_back(mangoHudFps(mangoHudFrameTimeUs(frame.frameTimeNs)));
  const std::string mangoHudPath = mangoHudSummaryPathFor(options_.csvPath);
  if (Result<> result = mangoHudSummary.open(mangoHudPath, "MangoHud summary", 4096); !result) return result;
  writeMangoHudSummary(mangoHudSummary.stream(), summarizeMangoHudFps(fps));
  return mangoHudSummary.close();
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

  if (options_.format == CaptureFormat::mangohud)
    writeMangoHudLog(csv_.stream(), readMangoHudSystemInfo(environment.gpu, environment.driver), mangoHudFrames_);
  if (Result<> result = csv_.close(); !result) return result;
  AtomicFile summary, mangoHudSummary;
  if (Result<> result = writeSummaries(environment, stats, summary, mangoHudSummary); !result) {
    csv_.discard();
    return result;
  }
  // Every file is complete on disk before any is renamed, so a failure up to
  // here leaves none; a rename failure after the CSV's keeps the complete
  // CSV and says so (the destructors remove what was not renamed).
  if (Result<> result = csv_.commit(); !result) return result;
  const auto commitBeside = [](AtomicFile& file) {
    Result<> result = file.commit();
    if (!result) result.error().message += " (the capture CSV was written)";
    return result;
  };
  if (Result<> result = commitBeside(summary); !result) return result;
  if (options_.format == CaptureFormat::mangohud)
    if (Result<> result = commitBeside(mangoHudSummary); !result) return result;
  stats_ = stats;
  return {};
}

}  // namespace vksim
