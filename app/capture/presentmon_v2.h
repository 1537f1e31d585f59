// `--capture-columns v2`: the capture CSV with PresentMon 2.x's default column
// set, in PresentMon's order, then this program's own columns. Each column is
// defined on this program's clocks in docs/captures.md; a value this program
// cannot measure is NA. Plain C++: no Vulkan, no CUDA.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "app/capture/csv_row.h"
#include "app/capture/frame_record.h"

namespace vksim {

// PresentMon's columns, as in the header of its golden default-mode CSV
// (GameTechDev/PresentMon, Tests/Gold/test_case_0.csv), with the two time
// columns in PresentMon's default unit (milliseconds since recording
// started: TimeInMs, CPUStartTimeInMs) where that file has QPC ticks
// (TimeInQPC, CPUStartQPC, written under --qpc_time).
// clang-format off
inline constexpr std::string_view kPresentMonV2Columns[] = {
    "Application",        "ProcessID",            "SwapChainAddress",       "PresentRuntime",
    "SyncInterval",       "PresentFlags",         "AllowsTearing",          "PresentMode",
    "FrameType",          "TimeInMs",             "MsBetweenSimulationStart", "MsBetweenPresents",
    "MsBetweenDisplayChange", "MsInPresentAPI",   "MsRenderPresentLatency", "MsUntilDisplayed",
    "MsPCLatency",        "CPUStartTimeInMs",     "MsBetweenAppStart",      "MsCPUBusy",
    "MsCPUWait",          "MsGPULatency",         "MsGPUTime",              "MsGPUBusy",
    "MsGPUWait",          "MsVideoBusy",          "MsAnimationError",       "AnimationTime",
    "MsFlipDelay",        "MsAllInputToPhotonLatency", "MsClickToPhotonLatency", "MsInstrumentedLatency"};

// This program's columns, after PresentMon's (the same as in the v1 set).
inline constexpr std::string_view kAppColumns[] = {
    "Frame", "SyncMode", "Backend", "Model", "Grid",
    "MsCpuFrame", "MsRenderGpu", "MsSimGpu", "MsSimWait", "TimelineValue"};
// clang-format on

// What a v2 row needs from the rows before it: the CPU start of the first
// row (AnimationTime counts from it) and of the previous row
// (MsBetweenAppStart, MsAnimationError). One per capture, starting empty.
struct PresentMonV2State {
  std::optional<double> firstCpuStartMs;
  std::optional<double> previousCpuStartMs;
};

// Appends this program's own columns of `frame` (kAppColumns' order): the
// same values in a v1 and a v2 row.
void appendAppColumns(RowBuilder& row, const FrameRecord& frame);

// Appends the header (kPresentMonV2Columns, then kAppColumns) as one row.
void appendPresentMonV2Header(RowBuilder& row);

// Appends `frame` as one row in the header's order, and advances `state`.
// `application` and `processId` fill the first two columns.
void appendPresentMonV2Row(RowBuilder& row, const FrameRecord& frame, std::string_view application,
                           uint32_t processId, PresentMonV2State& state);

}  // namespace vksim
