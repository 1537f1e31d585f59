// Every frame's timing record of an in-process run, for tests that check
// where things happened inside the frames: shared by the frames-in-flight
// and overlay-order tests.
#pragma once
#include <optional>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"

namespace vksim {

// After the last frame: drains the schedule, waits for the GPU results of
// every frame still pending, and returns all the records, oldest first.
inline std::vector<FrameTiming> drainAndTakeFrameTimings(App& app) {
  drainSchedule(app);
  settleFrameTimings(app.timing, app.device, app.gpuTimer, simulationOf(app.grid));
  std::vector<FrameTiming> timings;
  while (std::optional<FrameTiming> timing = takeFinishedFrame(app.timing, /*flush=*/true))
    timings.push_back(*timing);
  return timings;
}

}  // namespace vksim
