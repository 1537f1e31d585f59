// One frame of a capture as the frame loop measured it, and the file
// formats a capture can be written in (docs/captures.md). Plain C++: no
// Vulkan, no CUDA.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace vksim {

// The layout of `--capture PATH.csv`: PresentMon's CSV (the default), or the
// frame log that MangoHud writes (--capture-format).
enum class CaptureFormat { presentmon, mangohud };

// PresentMon's column names: the 1.x set this program has always written
// (the default), or PresentMon 2.x's default set (--capture-columns).
enum class CaptureColumns { v1, v2 };

// The options' words: "presentmon", "mangohud"; "v1", "v2".
const char* toString(CaptureFormat format);
const char* toString(CaptureColumns columns);

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
  std::string_view backend;                      // Backend: "cuda", "cpu", "vulkan", "cuda-nvx" or "opencl"
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
  // For PresentMon 2.x's column set (--capture-columns v2) and MangoHud's log.
  double cpuStartSeconds = 0.0;            // CPUStartTimeInMs / 1000: the previous present call's return
  std::optional<double> msGpuLatency;      // MsGPULatency: CPU start to the first GPU work of the frame
  std::optional<double> msGpuTime;         // MsGPUTime: first GPU work's start to last GPU work's end
  std::optional<bool> allowsTearing;       // AllowsTearing: false for FIFO and headless; unknown otherwise
};

}  // namespace vksim
