// `--capture-format mangohud`: the capture as the frame log that MangoHud
// 0.6.8 (Debian 12's mangohud package) writes, so that it can be put beside a
// MangoHud log of another program in CapFrameX or MangoHud's log viewers:
// two lines of system information, MangoHud's column row, one row per frame
// in MangoHud's units, and 0 (MangoHud's own value for what it did not read)
// in the columns this program does not measure. docs/captures.md describes
// each column. Plain C++: no Vulkan, no CUDA.
#pragma once
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace vksim {

// MangoHud's first line, in its order.
inline constexpr std::string_view kMangoHudSystemColumns[] = {"os",     "cpu",    "gpu",         "ram",
                                                              "kernel", "driver", "cpuscheduler"};

// MangoHud 0.6.8's column row, in its order.
// clang-format off
inline constexpr std::string_view kMangoHudColumns[] = {
    "fps", "frametime", "cpu_load", "gpu_load", "cpu_temp", "gpu_temp", "gpu_core_clock",
    "gpu_mem_clock", "gpu_vram_used", "gpu_power", "ram_used", "elapsed"};
// clang-format on

// The values of MangoHud's first line, each read where MangoHud 0.6.8 reads
// it (os-release, /proc/cpuinfo, /proc/meminfo, uname, cpufreq), except gpu
// and driver, which are the capture's (its environment's Vulkan device name
// and driver) where MangoHud asks pci.ids and glxinfo. Each goes through
// mangoHudField (MangoHud's line is not quoted). A value that cannot be read
// is empty, as in MangoHud's log.
struct MangoHudSystemInfo {
  std::string os, cpu, gpu, ram, kernel, driver, cpuScheduler;
};
MangoHudSystemInfo readMangoHudSystemInfo(std::string_view gpu, std::string_view driver);

// One row: the frame time (present to present, MangoHud's frametime) and
// when the frame was presented, both in nanoseconds; the latter counts from
// the capture's start (MangoHud's elapsed counts from its log's start).
struct MangoHudFrame {
  int64_t frameTimeNs = 0;
  int64_t elapsedNs = 0;
};

// Writes the whole log to `out`: the two system lines, the column row, and
// one row per frame. Write errors stay in the stream's state.
void writeMangoHudLog(std::ostream& out, const MangoHudSystemInfo& system, std::span<const MangoHudFrame> frames);

// The frametime column: whole microseconds, truncated, as MangoHud 0.6.8
// keeps them (a negative time, which a clock never gives, as 0).
uint64_t mangoHudFrameTimeUs(int64_t frameTimeNs);

// MangoHud 0.6.8's fps for a frame time in whole microseconds, in its own
// float arithmetic (1000 / (us / 1000)): the log's fps column, and what its
// summary is computed from.
float mangoHudFps(uint64_t frameTimeUs);

// The frame-rate figures of the `_summary.csv` MangoHud 0.6.8 writes beside
// its log, over every row's fps (docs/captures.md gives each definition):
// the mean of the lowest 0.1 % and 1 % (at least one row each), the fps at
// 97 % of the way up the sorted rows, and the mean fps. Sums in float over
// the rows in ascending order, as MangoHud sums them. All 0 without rows.
struct MangoHudSummary {
  float minFps01 = 0.0f, minFps1 = 0.0f, percentile97 = 0.0f, averageFps = 0.0f;
};
MangoHudSummary summarizeMangoHudFps(std::span<const float> fps);

// The `_summary.csv` file: MangoHud 0.6.8's header row, then the values with
// one decimal, the GPU and CPU load (not measured here) as 0.0, and no line
// end after them, as MangoHud leaves it.
void writeMangoHudSummary(std::ostream& out, const MangoHudSummary& summary);

// A value that fits one unquoted CSV field: quotes dropped (MangoHud drops
// them from the OS name), with dropParenthesised "(...)" parts dropped too
// (MangoHud does that to the CPU and driver names), commas turned into
// spaces, runs of spaces collapsed, and the ends trimmed.
std::string mangoHudField(std::string_view text, bool dropParenthesised);

}  // namespace vksim
