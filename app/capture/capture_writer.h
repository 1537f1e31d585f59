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
#include "app/files.h"

namespace vksim {

// Where the summary of a capture goes: PATH.csv -> PATH.summary.json; a path
// not ending in ".csv" gets ".summary.json" appended.
std::string summaryPathFor(const std::string& csvPath);

// checkWritable for both the CSV and its summary.
Result<> checkCapturePath(const std::string& csvPath);

// The run's environment for the summary; the app fills it (from the renderer
// and the simulation) before finish(). Empty strings become JSON null.
struct CaptureEnvironment {
  std::string gpu;                 // VkPhysicalDeviceProperties::deviceName
  std::string driver;              // driver name and version, as the driver reports it
  std::string vulkanVersion;       // device API version, "1.3.246"
  std::string cudaVersion;         // CUDA driver/runtime, "12.4"; empty for the CPU backend
  std::string presentMode;         // "FIFO", "MAILBOX", "IMMEDIATE", or "headless"
  uint32_t width = 0, height = 0;  // render target, pixels
  std::string presentPoint;  // what TimeInSeconds marks: the present call, or (headless) the submission's end
  std::string gpuTimeBase;   // how GPU spans were placed on the host clock
  std::string displayTiming;  // how display times were taken, or why the display columns are NA
  std::string backend;       // "cuda" or "cpu"
  std::string transfer;      // "zero-copy" or "copy"
  std::string waitStrategy;  // "poll" or "enqueue" ("none" on the copy path)
  std::string memoryOwner;   // who allocated the shared vertex memory: "vulkan" or "cuda" ("none" on the copy path)
};

// One frame, as the frame loop measured it. Times in milliseconds unless the
// name says otherwise; an empty optional is written as NA. The string views
// must point at storage that outlives the addFrame() call (string literals or
// toString() results are fine); nothing is kept after the call.
struct FrameRecord {
  uint64_t frame = 0;              // Frame: index since the run started
  uint64_t swapchainHandle = 0;    // SwapChainAddress: VkSwapchainKHR as integer; 0 headless
  int32_t syncInterval = 0;        // SyncInterval: 1 for FIFO (vsync), 0 otherwise
  uint32_t presentFlags = 0;       // PresentFlags: always 0 for Vulkan
  std::optional<bool> dropped;     // Dropped: the frame was never shown, when known
  double timeInSeconds = 0.0;      // TimeInSeconds: this present (or frame end, headless) since capture start
  double msBetweenPresents = 0.0;  // MsBetweenPresents: since the previous present; the frame time
  std::optional<double> msBetweenDisplayChange;  // MsBetweenDisplayChange: unknown without display timing
  double msInPresentApi = 0.0;                   // MsInPresentAPI: inside vkQueuePresentKHR; 0 headless
  std::optional<double> msUntilRenderComplete;   // MsUntilRenderComplete: present call to GPU done
  std::string_view syncMode;                     // SyncMode: "timeline" or "binary"
  std::string_view backend;                      // Backend: "cuda" or "cpu"
  std::string_view model;                        // Model: "sinewave" or "ripple"
  uint32_t grid = 0;                             // Grid: vertices per side
  double msCpuFrame = 0.0;                       // MsCpuFrame: host time of the frame loop body
  std::optional<double> msRenderGpu;             // MsRenderGpu: render commands on the GPU (timestamps)
  std::optional<double> msSimGpu;                // MsSimGpu: simulation step on the GPU (or CPU backend)
  std::optional<double> msSimWait;               // MsSimWait: the simulation's wait on the external semaphore
  std::optional<uint64_t> timelineValue;         // TimelineValue: counter after the frame; NA in binary mode
  // PresentMon 2.x's names, after this app's columns so that earlier columns keep their positions.
  std::optional<double> msUntilDisplayed;  // MsUntilDisplayed: present call to the frame seen on the display
  double msCpuBusy = 0.0;                  // MsCPUBusy: previous present call's return to this present call
  std::optional<double> msGpuBusy;         // MsGPUBusy: the frame's GPU work (render + GPU simulation step)
};

// The CSV header, in column order (PresentMon's names first, then this app's,
// then the PresentMon 2.x names added later).
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
};

// Streams rows into PATH.csv.tmp-<pid> as frames arrive and keeps only the
// frame times (MsBetweenPresents) in memory; finish() computes the statistics,
// writes the summary and renames both files into place. Destroying an
// unfinished writer removes its temporary files.
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

  CaptureOptions options_;
  AtomicFile csv_;
  std::vector<double> frameTimesMs_;
  std::size_t rowCount_ = 0;
  FrameStats stats_;
  fmt::memory_buffer row_;  // the row being formatted; its capacity stays from row to row
};

}  // namespace vksim
