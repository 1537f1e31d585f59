// `--capture PATH.csv`: one PresentMon-style CSV row per frame, and at the end
// PATH.summary.json with the environment and the statistics of
// capture_stats.h. docs/captures.md describes every column and key.
// Plain C++: no Vulkan, no CUDA. Not thread-safe: one thread (the frame loop)
// owns a writer.
#pragma once
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/capture/capture_stats.h"
#include "app/capture/frame_record.h"
#include "app/capture/mangohud_log.h"
#include "app/capture/presentmon_v2.h"
#include "app/files.h"

namespace vksim {

// Where the summary of a capture goes: PATH.csv -> PATH.summary.json; a path
// not ending in ".csv" gets ".summary.json" appended.
std::string summaryPathFor(const std::string& csvPath);

// Where --capture-format mangohud also writes MangoHud's own summary, named
// as MangoHud names it: PATH.csv -> PATH_summary.csv (a path not ending in
// ".csv" gets "_summary.csv" appended).
std::string mangoHudSummaryPathFor(const std::string& csvPath);

// checkWritable for both the CSV and its summary.
Result<> checkCapturePath(const std::string& csvPath);

// The run's environment for the summary; the app fills it (from the renderer
// and the simulation) before finish(). Empty strings become JSON null.
struct CaptureEnvironment {
  std::string gpu;                 // VkPhysicalDeviceProperties::deviceName
  std::string driver;              // driver name and version, as the driver reports it
  std::string vulkanVersion;       // device API version, "1.3.246"
  std::string cudaVersion;         // CUDA driver/runtime, "12.4"; empty for every backend but cuda (app/app.cpp)
  std::string presentMode;         // "FIFO", "MAILBOX", "IMMEDIATE", or "headless"
  uint32_t width = 0, height = 0;  // render target, pixels
  std::string presentPoint;  // what TimeInSeconds marks: the present call, or (headless) the submission's end
  std::string gpuTimeBase;   // how GPU spans were placed on the host clock
  std::string displayTiming;  // how display times were taken, or why the display columns are NA
  std::string backend;       // backendName(): "cuda", "cpu", "vulkan", "cuda-nvx" or "opencl"
  std::string transfer;      // "zero-copy" or "copy"
  std::string waitStrategy;  // "poll" or "enqueue" ("none" on the copy path)
  std::string memoryOwner;   // who allocated the shared vertex memory: "vulkan" or "cuda" ("none" on the copy path)
};

// The CSV header of the v1 column set, in column order (PresentMon's names
// first, then this app's, then the PresentMon 2.x names added later). The v2
// set is in presentmon_v2.h, MangoHud's in mangohud_log.h.
// clang-format off
inline constexpr std::string_view kCaptureColumns[] = {
    "Application",   "ProcessID",     "SwapChainAddress",       "Runtime",        "SyncInterval",
    "PresentFlags",  "Dropped",       "TimeInSeconds",          "MsBetweenPresents", "MsBetweenDisplayChange",
    "MsInPresentAPI", "MsUntilRenderComplete", "Frame",         "SyncMode",       "Backend",
    "Model",         "Grid",          "MsCpuFrame",             "MsRenderGpu",    "MsSimGpu",
    "MsSimWait",     "TimelineValue", "MsUntilDisplayed",       "MsCPUBusy",      "MsGPUBusy"};
// clang-format on

struct CaptureOptions {
  std::string csvPath;                     // the summary goes to summaryPathFor(csvPath)
  std::size_t warmupFrames = 0;            // first rows left out of the statistics (still in the CSV)
  std::string application = "vkcuda-sim";  // Application column
  uint32_t processId = 0;                  // ProcessID column; 0 means this process
  std::size_t expectedFrames = 0;          // reserves memory for this many frame times up front
  CaptureFormat format = CaptureFormat::presentmon;  // --capture-format
  CaptureColumns columns = CaptureColumns::v1;       // --capture-columns (PresentMon's format only)
};

// Streams rows into PATH.csv.tmp-<pid> as frames arrive and keeps only the
// frame times (MsBetweenPresents) in memory; finish() computes the statistics,
// writes the summary and renames both files into place. Destroying an
// unfinished writer removes its temporary files. In MangoHud's format the
// log's first line needs the run's environment (the GPU and driver), so its
// rows stay in memory (16 bytes a frame, beside the 8 of every format's
// frame times) and finish() writes the whole file.
class CaptureWriter {
 public:
  // Creates the temporary CSV and writes the header. On failure nothing is
  // left on disk and the writer stays closed.
  Result<> open(const CaptureOptions& options);
  bool isOpen() const { return csv_.isOpen(); }

  // Appends one row. No allocation once the expected frame count is reserved
  // (the row is formatted into a buffer that the writer keeps and reuses).
  // Ignored when not open.
  void addFrame(const FrameRecord& frame);

  // Writes the summary, then renames the CSV and the summary into place.
  // Non-finite frame times are left out of the statistics. On failure removes
  // whatever is still temporary and returns one line.
  Result<> finish(const CaptureEnvironment& environment);

  // Drops the capture: removes the temporary CSV.
  void discard() { csv_.discard(); }

  // The statistics computed by the last successful finish().
  const FrameStats& stats() const { return stats_; }
  std::size_t rowCount() const { return rowCount_; }

 private:
  void writeRow();  // row_ to the CSV
  Result<> writeSummaries(const CaptureEnvironment& environment, const FrameStats& stats, AtomicFile& summary,
                          AtomicFile& mangoHudSummary) const;
  void addPresentMonV1Row(const FrameRecord& frame);

  CaptureOptions options_;
  AtomicFile csv_;
  std::vector<double> frameTimesMs_;
  std::vector<MangoHudFrame> mangoHudFrames_;  // MangoHud's format: the rows until finish()
  PresentMonV2State presentMonV2_;             // --capture-columns v2: what a row needs from the ones before
  std::size_t rowCount_ = 0;
  FrameStats stats_;
  fmt::memory_buffer row_;  // the row being formatted; its capacity stays from row to row
};

}  // namespace vksim
