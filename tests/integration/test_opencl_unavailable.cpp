// --backend opencl where OpenCL cannot run: with no ICD loader at all (the
// VKSIM_OPENCL_LIBRARY override names one that does not resolve) and with
// the machine's own OpenCL (CI: Debian's PoCL, which has none of the interop
// extensions). Each ends with exit 3 and one line naming what is missing,
// and the other backends still run with the loader missing.
#include <gtest/gtest.h>

#include <string>

#include "app_runner.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim::testing {
namespace {

const std::string kNoLoader = "VKSIM_OPENCL_LIBRARY=libOpenCL-not-installed.so.1";

int lineCount(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

TEST(OpenClUnavailable, NoIcdLoaderIsExitThreeWithOneLineNamingIt) {
  const AppResult result = runApp({"--headless", "--backend", "opencl", "--frames", "3", "--grid", "16"}, {kNoLoader});
  ASSERT_FALSE(result.timedOut);
  EXPECT_EQ(result.exitCode, 3) << result.out << result.err;
  EXPECT_EQ(lineCount(result.err), 1) << result.err;
  EXPECT_NE(result.err.find("OpenCL ICD loader libOpenCL-not-installed.so.1 cannot be loaded"), std::string::npos)
      << result.err;
}

TEST(OpenClUnavailable, TheOtherBackendsAndTheDeviceListRunWithoutTheLoader) {
  const AppResult cpu = runApp({"--headless", "--backend", "cpu", "--frames", "3", "--grid", "16"}, {kNoLoader});
  EXPECT_EQ(cpu.exitCode, 0) << cpu.err;
  EXPECT_EQ(summaryField(cpu.out, "backend"), "cpu") << cpu.out;
  const AppResult automatic = runApp({"--headless", "--frames", "3", "--grid", "16"}, {kNoLoader});
  EXPECT_EQ(automatic.exitCode, 0) << automatic.err;
  EXPECT_NE(summaryField(automatic.out, "backend"), "opencl") << automatic.out;
  const AppResult list = runApp({"--list-devices"}, {kNoLoader});
  EXPECT_EQ(list.exitCode, 0) << list.err;
  EXPECT_NE(list.out.find("OpenCL devices:\n  (none: the OpenCL ICD loader"), std::string::npos) << list.out;
}

// What this machine's OpenCL lacks, named: PoCL has none of the extensions.
TEST(OpenClUnavailable, APlatformWithoutTheExtensionsIsExitThreeNamingThem) {
  const OpenClDeviceList opencl = listOpenClDevices();
  const AppResult result = runApp({"--headless", "--backend", "opencl", "--frames", "3", "--grid", "16"});
  ASSERT_FALSE(result.timedOut);
  EXPECT_EQ(result.exitCode, 3) << result.out << result.err;
  EXPECT_EQ(lineCount(result.err), 1) << result.err;
  if (opencl.devices.empty()) {
    // No platform at all here: the line says that instead.
    EXPECT_NE(result.err.find(opencl.unavailableReason), std::string::npos) << result.err;
  } else {
    ASSERT_FALSE(missingOpenClInterop(opencl.devices.front()).empty())
        << "this machine's OpenCL has the interop extensions: run tests/gpu/test_opencl_backend.cpp instead";
    EXPECT_NE(result.err.find("lacks cl_khr_external_memory"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("cl_khr_semaphore"), std::string::npos) << result.err;
  }
}

TEST(OpenClUnavailable, BinaryOnlyRulesAreExitThreeBeforeAnythingRuns) {
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--sync", "timeline"},
                                                std::vector<std::string>{"--switch-sync-every", "2"}}) {
    std::vector<std::string> args{"--headless", "--backend", "opencl", "--frames", "3"};
    args.insert(args.end(), extra.begin(), extra.end());
    const AppResult result = runApp(args);
    EXPECT_EQ(result.exitCode, 3) << extra[0] << result.err;
    EXPECT_EQ(lineCount(result.err), 1) << result.err;
    EXPECT_NE(result.err.find("binary semaphores only"), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "") << result.out;  // refused before any device was opened
  }
}

// The stall fault is refused for OpenCL before anything runs (app/cli.cpp
// says why), with one line and exit 3, like the binary-only rules.
TEST(OpenClUnavailable, SimStallsIsRefusedBeforeAnythingRuns) {
  const AppResult result =
      runApp({"--headless", "--backend", "opencl", "--frames", "3", "--inject-fault", "sim-stalls@2"});
  EXPECT_EQ(result.exitCode, 3) << result.err;
  EXPECT_EQ(lineCount(result.err), 1) << result.err;
  EXPECT_NE(result.err.find("sim-stalls: not offered with the OpenCL backend"), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "") << result.out;
}

}  // namespace
}  // namespace vksim::testing
