#include "app/value_schedule.h"

namespace vksim {

RenderSync renderSyncForFrame(uint64_t frame, SyncMode mode, std::optional<SyncMode> previousSimMode) {
  RenderSync sync;
  if (previousSimMode) {
    // Wait on what the previous sim step actually signalled, which is its mode,
    // not necessarily ours: that is what makes a switch lose no frame.
    if (*previousSimMode == SyncMode::timeline) {
      sync.wait = RenderSync::Wait::timeline;
      sync.waitValue = 2 * frame;
    } else {
      sync.wait = RenderSync::Wait::simDone;
    }
  }
  if (mode == SyncMode::timeline) {
    sync.signal = RenderSync::Signal::timeline;
    // After binary frames the counter lags behind; 2k+1 is still larger than
    // every value signalled so far, as a timeline signal must be.
    sync.signalValue = 2 * frame + 1;
  } else {
    sync.signal = RenderSync::Signal::renderDone;
  }
  return sync;
}

StepSync simSyncForFrame(uint64_t frame, SyncMode mode) {
  StepSync sync;
  sync.mode = mode;
  if (mode == SyncMode::timeline) {
    sync.waitValue = 2 * frame + 1;
    sync.signalValue = 2 * frame + 2;
  }
  return sync;
}

RenderSync::Wait lastSimSignal(SyncMode lastMode) {
  return lastMode == SyncMode::timeline ? RenderSync::Wait::timeline : RenderSync::Wait::simDone;
}

}  // namespace vksim
