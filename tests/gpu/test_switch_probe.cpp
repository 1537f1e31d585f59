// The context-switch probe on the NVIDIA machine, through the bench as a user
// runs it: the probe ran, its clock ties survived its own checks (no cross
// gap shorter than the clocks' uncertainty allows, drift within it), and every
// row of the JSON carries the figures. No timing threshold: the values are
// the machine's to give.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "app_runner.h"
#include "gpu_environment.h"

namespace vksim {
namespace {

TEST(SwitchProbe, TheBenchMeasuresBothDirectionsAndTheClocksAgree) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::string json =
      (std::filesystem::temp_directory_path() / ("vksim-switch-" + std::to_string(::getpid()) + ".json")).string();
  const testing::AppResult run =
      testing::runApp({"bench", "--backend", "cuda", "--grids", "64", "--sync", "timeline", "--transfer",
                       "zero-copy", "--wait-strategy", "poll", "--frames", "20", "--warmup", "5", "--json", json});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  std::printf("%s", run.out.c_str());
  testing::expectValidationOnAndSilent(run);  // the probe's submissions included
  EXPECT_NE(run.out.find("switch probe: vulkan->cuda"), std::string::npos) << run.out;
  std::ifstream file(json);
  const nlohmann::json document = nlohmann::json::parse(file);
  std::filesystem::remove(json);
  const nlohmann::json& probe = document.at("switchProbe");
  ASSERT_FALSE(probe.contains("status")) << probe.dump();
  EXPECT_EQ(probe.at("impossibleGaps"), 0) << probe.dump();
  EXPECT_TRUE(probe.at("assumptionsHeld").get<bool>()) << probe.dump();
  EXPECT_GT(probe.at("vulkanToCuda").at("samples").get<int>(), 0);
  EXPECT_GT(probe.at("cudaToVulkan").at("samples").get<int>(), 0);
  for (const nlohmann::json& row : document.at("results")) {
    ASSERT_TRUE(row.at("switchUs").is_object()) << row.dump();
    EXPECT_DOUBLE_EQ(row.at("switchUs").at("pair").get<double>(), probe.at("pairUs").get<double>());
  }
}

}  // namespace
}  // namespace vksim
