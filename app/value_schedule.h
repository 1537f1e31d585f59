// The value schedule (docs/value-schedule.md), as pure functions, so the frame
// loop reads as "ask the schedule, submit what it says" and tests can check
// every frame and every mode switch without a GPU.
//
//   render k : waits value >= 2k   (sim k-1 finished writing)   signals 2k+1
//   sim k    : waits value >= 2k+1 (render k finished reading)  signals 2k+2
//
// Binary mode uses renderDone (render signals, sim waits) and simDone (sim
// signals, render waits). A render waits on whatever the previous frame's sim
// signalled, so a mode switch at a frame boundary loses no frame and leaves no
// binary semaphore signalled: each binary signal has exactly one wait after it.
#pragma once
#include <cstdint>
#include <optional>

#include "sim/sim_types.h"

namespace vksim {

struct RenderSync {
  enum class Wait { none, timeline, simDone } wait = Wait::none;
  uint64_t waitValue = 0;  // timeline wait: counter >= this
  enum class Signal { timeline, renderDone } signal = Signal::timeline;
  uint64_t signalValue = 0;  // timeline signal value
};

// Render of frame `frame` in `mode`, after a sim step in `previousSimMode`
// (none for frame 0: the initial state was written before the loop).
RenderSync renderSyncForFrame(uint64_t frame, SyncMode mode, std::optional<SyncMode> previousSimMode);

// The simulation's turn in frame `frame`.
StepSync simSyncForFrame(uint64_t frame, SyncMode mode);

// What the last sim step signalled, for the drain after the last frame.
RenderSync::Wait lastSimSignal(SyncMode lastMode);

}  // namespace vksim
