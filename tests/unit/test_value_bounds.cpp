// The accepted side of every validated value: each bound that docs/scenes.md
// and the command line's help give is itself accepted (an exclusive one is
// refused and the smallest value past it accepted), and the next value out
// is refused. The refused side alone (tests/unit/test_bad_input.cpp, the
// scene tests' out-of-range table) cannot tell a bound from one a step
// inside it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "app/scene.h"
#include "cli_parse.h"

namespace vksim {
namespace {

struct SceneBound {
  std::string field;  // as in docs/scenes.md; "camera.x" goes inside "camera"
  std::string low, high;
  bool lowIncluded = true;
  std::string belowLow, aboveHigh;  // the next values out
  std::string insideLow;            // for an excluded low: a value just inside it
};

// docs/scenes.md's table, written out here.
const std::vector<SceneBound> kSceneBounds{
    {"grid", "2", "8192", true, "1", "8193"},
    {"timeStep", "0", "1", false, "-1e-9", "1.000001", "1e-9"},
    {"amplitude", "-1", "1", true, "-1.000001", "1.000001"},
    {"waveNumberX", "-1000", "1000", true, "-1000.001", "1000.001"},
    {"waveNumberZ", "-1000", "1000", true, "-1000.001", "1000.001"},
    {"courant", "0", "0.70710678", false, "-1e-9", "0.7072", "1e-9"},
    {"damping", "0", "100", true, "-1e-9", "100.001"},
    {"dropInterval", "0", "1000000", true, "-1", "1000001"},
    {"dropRadius", "0", "1", false, "-1e-9", "1.000001", "1e-9"},
    {"dropAmplitude", "-1", "1", true, "-1.000001", "1.000001"},
    {"seed", "0", "18446744073709551615", true, "-1", "18446744073709551616"},
    {"camera.yaw", "-1000", "1000", true, "-1000.001", "1000.001"},
    {"camera.pitch", "-1.5", "1.5", true, "-1.500001", "1.500001"},
    {"camera.distance", "0.5", "20", true, "0.499999", "20.00001"},
    {"camera.fovY", "0.1", "3", true, "0.099999", "3.000001"},
};

Result<Scene> parseWithField(const std::string& field, const std::string& value) {
  const std::string entry = field.starts_with("camera.")
                                ? R"("camera": {")" + field.substr(7) + R"(": )" + value + "}"
                                : "\"" + field + "\": " + value;
  return parseScene(R"({"name": "x", "model": "ripple", )" + entry + "}", "scenes/x.json");
}

TEST(ValueBounds, EverySceneBoundIsAcceptedAndTheNextValueOutRefused) {
  for (const SceneBound& b : kSceneBounds) {
    SCOPED_TRACE(b.field);
    for (const std::string& accepted : {b.lowIncluded ? b.low : b.insideLow, b.high}) {
      const Result<Scene> scene = parseWithField(b.field, accepted);
      EXPECT_TRUE(scene.has_value()) << b.field << " = " << accepted << " refused: " << scene.error().message;
    }
    std::vector<std::string> refused{b.belowLow, b.aboveHigh};
    if (!b.lowIncluded) refused.push_back(b.low);
    for (const std::string& value : refused)
      EXPECT_FALSE(parseWithField(b.field, value).has_value()) << b.field << " = " << value << " accepted";
  }
  // The target's three coordinates, each at both ends.
  for (const char* target : {"[-100, -100, -100]", "[100, 100, 100]"})
    EXPECT_TRUE(parseWithField("camera.target", target).has_value()) << target;
  EXPECT_FALSE(parseWithField("camera.target", "[0, 0, 100.001]").has_value());
}

// The values a scene reads at its bounds are the ones it keeps.
TEST(ValueBounds, ASceneKeepsItsEdgeValues) {
  const Result<Scene> scene = parseScene(
      R"({"name": "x", "model": "ripple", "grid": 8192, "damping": 0, "dropInterval": 1000000,
          "camera": {"distance": 20, "pitch": -1.5, "fovY": 3}})",
      "scenes/x.json");
  ASSERT_TRUE(scene.has_value()) << scene.error().message;
  EXPECT_EQ(scene->params.grid, 8192u);
  EXPECT_EQ(scene->params.damping, 0.0f);
  EXPECT_EQ(scene->params.dropInterval, 1000000u);
  EXPECT_EQ(scene->camera.distance, 20.0f);
  EXPECT_EQ(scene->camera.pitch, -1.5f);
  EXPECT_EQ(scene->camera.fovY, 3.0f);
}

// The command line's values that are not plain numbers: the image size's
// corners and the interval of each side (numbers are held to their bounds by
// BadInput.EveryRangeAcceptsItsBounds).
TEST(ValueBounds, EverySizeEdgeIsAccepted) {
  for (const char* size : {"16x16", "8192x8192", "16x8192", "8192x16", "16X16"}) {
    const Result<Options> outcome = testing::parseArguments({"--headless", "--size", size});
    EXPECT_TRUE(outcome.has_value()) << size << ": " << outcome.error().message;
    const Result<Options> bench = testing::parseArguments({"bench", "--size", size});
    EXPECT_TRUE(bench.has_value()) << "bench --size " << size << ": " << bench.error().message;
  }
  const Result<Options> largest = testing::parseArguments({"--headless", "--size", "8192x16"});
  ASSERT_TRUE(largest.has_value());
  EXPECT_EQ(largest->width, 8192u);
  EXPECT_EQ(largest->height, 16u);
}

}  // namespace
}  // namespace vksim
