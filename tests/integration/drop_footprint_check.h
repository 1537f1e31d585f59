// What a backend's vertex dump must show of the drop's footprint
// (sim/models.h, kDropReachSigmas): a ripple run of a few frames from the
// initial drop, centred, with no automatic drop yet, is exactly flat beyond
// the footprint plus the cells the wave can have crossed (one a step). A
// backend that still adds the drop to every cell leaves its Gaussian's tail
// there (0.06 * exp(-50) = 1.2e-23 at 0.5 world units, a normal float).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "sim/models.h"

namespace vksim::testing {

// The arguments that make such a run: `frames` frames of the ripple from its
// initial drop (default radius) on a grid of `grid`; frames < dropInterval
// (24 by default), so no automatic drop yet.
inline std::vector<std::string> footprintRunArgs(int grid, int frames) {
  return {"--sim", "ripple", "--grid", std::to_string(grid), "--frames", std::to_string(frames)};
}

// Checks `dump` (grid*grid vertices of 8 floats): every height outside the
// square of half-width reach + (frames + 2) spacings around the centre is
// exactly 0, and the centre moved. Returns how many heights were checked.
inline size_t expectFlatBeyondTheFootprint(const std::string& dump, int grid, int frames, const char* backend) {
  const ModelParams defaults;
  const double reach = double(kDropReachSigmas) * defaults.dropRadius;
  const double spacing = 2.0 / (grid - 1);
  const double limit = reach + (frames + 2) * spacing;
  std::vector<float> values(dump.size() / sizeof(float));
  std::memcpy(values.data(), dump.data(), values.size() * sizeof(float));
  EXPECT_EQ(values.size(), size_t(grid) * grid * 8) << backend;
  size_t checked = 0, nonzero = 0;
  for (size_t v = 0; v + 8 <= values.size(); v += 8) {
    const double x = values[v], y = values[v + 1], z = values[v + 2];
    if (std::max(std::fabs(x), std::fabs(z)) <= limit) continue;
    ++checked;
    if (y != 0.0) ++nonzero;
  }
  EXPECT_EQ(nonzero, 0u) << backend << ": " << nonzero << " of " << checked << " heights beyond "
                         << limit << " world units are not 0 (the drop reaches past its footprint)";
  const size_t centre = (size_t(grid / 2) * grid + grid / 2) * 8;
  EXPECT_NE(values.at(centre + 1), 0.0f) << backend << ": the centre did not move";
  return checked;
}

}  // namespace vksim::testing
