// Which OpenCL the app sees, as it says so: the ICD loader file that the
// soname resolved to, the ICD variables as its environment has them, and each
// platform, in --list-devices and in --backend opencl's exit-3 line
// (docs/gpu-runs.md, "Which OpenCL a process sees"). On CI's PoCL, or with
// no ICD loader at all.
#include <gtest/gtest.h>

#include <string>

#include "app_runner.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim::testing {
namespace {

TEST(OpenClLoaderReport, ListDevicesNamesTheLoaderFileTheVariablesAndEachPlatform) {
  const OpenClDeviceList here = listOpenClDevices();
  const AppResult list = runApp({"--list-devices"}, {"OCL_ICD_FILENAMES=libnot-an-icd.so.1"});
  ASSERT_EQ(list.exitCode, 0) << list.err;
  EXPECT_NE(list.out.find("OCL_ICD_FILENAMES=libnot-an-icd.so.1"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("OCL_ICD_VENDORS"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("OPENCL_VENDOR_PATH"), std::string::npos) << list.out;
  if (here.loader.path.empty()) GTEST_SKIP() << "no ICD loader here: " << here.unavailableReason;
  // The file the dynamic linker opened, as a path, not the soname asked for.
  EXPECT_NE(list.out.find("OpenCL ICD loader: /"), std::string::npos) << list.out;
  for (const OpenClPlatformInfo& platform : here.platforms)
    EXPECT_NE(list.out.find("  platform " + std::to_string(platform.index) + " '" + platform.name + "'"),
              std::string::npos)
        << list.out;
}

TEST(OpenClLoaderReport, TheExitThreeLineNamesTheLoaderFile) {
  const OpenClDeviceList here = listOpenClDevices();
  if (here.loader.path.empty()) GTEST_SKIP() << "no ICD loader here: " << here.unavailableReason;
  const AppResult result = runApp({"--headless", "--backend", "opencl", "--frames", "3", "--grid", "16"},
                                  {"OCL_ICD_FILENAMES=libnot-an-icd.so.1"});
  ASSERT_FALSE(result.timedOut);
  ASSERT_EQ(result.exitCode, 3) << result.out << result.err;
  EXPECT_NE(result.err.find("(ICD loader " + here.loader.path), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("OCL_ICD_FILENAMES=libnot-an-icd.so.1"), std::string::npos) << result.err;
  for (const OpenClPlatformInfo& platform : here.platforms)
    EXPECT_NE(result.err.find("platform " + std::to_string(platform.index) + " '" + platform.name + "' ["),
              std::string::npos)
        << result.err;
}

// A loader that splits OCL_ICD_FILENAMES in place on its first call (as
// Khronos' loader does) must not change the variable for the rest of the
// process, nor for the processes it starts: the app prints the variable as it
// stands after the loader ran.
TEST(OpenClLoaderReport, TheIcdVariablesOutliveALoaderThatSplitsThemInPlace) {
  const AppResult list = runApp({"--list-devices"}, {std::string("VKSIM_OPENCL_LIBRARY=") + VKSIM_FAKE_OPENCL_LOADER,
                                                     "OCL_ICD_FILENAMES=libone.so.1:libtwo.so.1"});
  ASSERT_EQ(list.exitCode, 0) << list.err;
  EXPECT_NE(list.out.find(std::string("OpenCL ICD loader: ") + VKSIM_FAKE_OPENCL_LOADER), std::string::npos)
      << "the stand-in was not the loader used:\n" << list.out;
  EXPECT_NE(list.out.find("OCL_ICD_FILENAMES=libone.so.1:libtwo.so.1"), std::string::npos) << list.out;
}

}  // namespace
}  // namespace vksim::testing
