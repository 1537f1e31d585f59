// What the tools show of one frame, in the value schedule's words: the
// command-buffer labels that RenderDoc and Nsight Graphics list
// (renderer/debug_names.h) and the NVTX ranges that Nsight Systems and
// Nsight Compute show (sim/nvtx_ranges.h). docs/profiling.md shows both.
#pragma once
#include <volk.h>

#include <cstdint>
#include <string>

#include "app/interop/value_schedule.h"

namespace vksim {

// "frame 3": frame k of the schedule (scheduleFrame; it restarts at 0 after a
// grid rebuild, as the semaphore values do).
std::string frameName(uint64_t frame);
// "render 3: wait 6, signal 7"; binary: "render 3: wait simDone, signal
// renderDone"; "no wait" where nothing was signalled (the copy path).
std::string renderName(uint64_t frame, const RenderSync& render);
// The host's waits on the schedule: "host wait: sim signalled 6" (or
// "simDone"), "host wait: render signalled 7" (or "renderDone").
std::string simulationSignalWaitName(const RenderSync& render);
std::string renderSignalWaitName(const RenderSync& render);

// The label of the render that the schedule gives next ("render k: ...");
// empty, and nothing formatted, where VK_EXT_debug_utils is absent. The loop
// computes it before the frame (FrameContext::renderLabel), so that the
// frame's own functions only open and close the region. Where the host
// orders every handover (`hostOrdered`: the copy path) the render waits on
// and signals no semaphore, and the label says so instead of the schedule's
// values.
std::string renderLabel(const ScheduleState& schedule, bool hostOrdered);

}  // namespace vksim
