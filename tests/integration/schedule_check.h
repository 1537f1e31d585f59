// Checks the value schedule as a run submitted it (the "... submit" events of
// a --trace file, docs/captures.md) against the schedule's rule, written out
// here on its own rather than taken from app/interop/value_schedule.cpp, so that a
// bug in the schedule function fails too:
//
//   render k  timeline: signals timeline 2k+1        binary: signals renderDone
//   sim k     timeline: waits 2k+1, signals 2k+2     binary: waits renderDone, signals simDone
//   render k  waits exactly what sim k-1 signalled (render 0: what the
//             initial write signalled); sim k waits what render k signalled;
//             the drain waits what the last sim signalled.
//
// Each render wait's stage must cover the vertex input (ALL_COMMANDS where it
// orders an acquire from EXTERNAL without VK_KHR_maintenance8).
//
// Used by the integration tests (CPU and vulkan backends on lavapipe: every
// backend whose submissions CI can record) and the GPU tests (CUDA backend).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace vksim::testing {

struct ScheduleRun {
  uint64_t frames = 0;
  std::string startMode = "timeline";  // --sync
  uint32_t switchEvery = 0;            // --switch-sync-every (0: never)
  // The render acquires the vertex buffer from VK_QUEUE_FAMILY_EXTERNAL (the
  // CUDA zero-copy path): its wait on the simulation's signal must then be at
  // ALL_COMMANDS, since an ownership transfer happens in no pipeline stage.
  bool acquiresFromExternal = false;
  // The run reported transfer_stages=narrow (VK_KHR_maintenance8): the wait
  // that orders an acquire is then at the acquire's own stages, which cover
  // the vertex input, and ALL_COMMANDS is not required (rule M22).
  bool narrowTransferStages = false;
};

// The mode of frame `frame`: the start mode, flipped after every switchEvery frames.
std::string expectedMode(const ScheduleRun& run, uint64_t frame);

// One line per difference between the trace's schedule events and the rule
// (at most `limit`, then a count of the rest); empty when they agree. Also
// fails when a frame has no render or sim event, or has two.
std::vector<std::string> checkSchedule(const nlohmann::json& trace, const ScheduleRun& run, size_t limit = 12);

// For --frame-tags runs: one line per render k whose saw_tag is not k (or is
// missing); empty when every render read the state the step before it wrote.
std::vector<std::string> checkFrameTags(const nlohmann::json& trace, uint64_t frames, size_t limit = 12);

// Counts of frame boundaries where the mode went timeline -> binary and
// binary -> timeline, from the render events' modes.
struct SwitchCounts {
  uint64_t toBinary = 0, toTimeline = 0;
};
SwitchCounts countSwitches(const nlohmann::json& trace);

// All failures as one string for a test's message.
std::string joinLines(const std::vector<std::string>& lines);

}  // namespace vksim::testing
