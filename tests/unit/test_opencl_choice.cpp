// The OpenCL backend's choices without OpenCL: pairing by UUID on synthetic
// device lists, the binary-only command-line rules, and the device list's
// answer when the ICD loader cannot be opened.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "app/interop/device_pairing.h"
#include "base/config.h"
#include "cli_parse.h"

namespace vksim {
namespace {

PhysicalDeviceInfo nvidiaVulkan(uint32_t index, uint8_t uuidByte) {
  PhysicalDeviceInfo d;
  d.index = index;
  d.name = "NVIDIA H200";
  d.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  d.deviceUuid.fill(uuidByte);
  d.timelineSemaphores = d.hasGraphicsQueue = true;
  d.externalMemoryFd = d.vertexBufferExportable = true;
  d.externalSemaphoreFd = d.timelineExportable = d.binaryExportable = true;
  d.deviceGroupSize = 1;
  d.driverId = VK_DRIVER_ID_NVIDIA_PROPRIETARY;
  return d;
}

OpenClDeviceInfo openClDevice(const char* name, uint8_t uuidByte, bool interop) {
  OpenClDeviceInfo d;
  d.name = name;
  d.platformName = interop ? "NVIDIA CUDA" : "Portable Computing Language";
  d.hasUuid = interop;
  d.uuid.fill(uuidByte);
  d.interopExtensions.assign(std::size(kOpenClInteropExtensions), interop);
  d.importsOpaqueFdMemory = d.importsOpaqueFdSemaphores = d.binarySemaphores = interop;
  return d;
}

OpenClDeviceList listOf(std::vector<OpenClDeviceInfo> devices) {
  OpenClDeviceList list;
  list.devices = std::move(devices);
  return list;
}

std::string thrownMessage(const std::vector<PhysicalDeviceInfo>& vulkan, const OpenClDeviceList& opencl,
                          const std::string& device = "") {
  try {
    chooseOpenClDevices(vulkan, opencl, device);
  } catch (const EnvironmentError& error) {
    return error.what();
  }
  return "(nothing thrown)";
}

TEST(OpenClChoice, PairsTheDeviceWithTheVulkanUuid) {
  const OpenClDeviceList opencl = listOf({openClDevice("pocl cpu", 0x22, false), openClDevice("NVIDIA H200", 0xAB, true)});
  const DeviceChoice choice = chooseOpenClDevices({nvidiaVulkan(0, 0x11), nvidiaVulkan(1, 0xAB)}, opencl, "");
  EXPECT_EQ(choice.backend, Backend::opencl);
  EXPECT_EQ(choice.vulkan.index, 1u);
  ASSERT_TRUE(choice.opencl.has_value());
  EXPECT_EQ(choice.opencl->name, "NVIDIA H200");
  EXPECT_STREQ(backendName(choice), "opencl");
  EXPECT_TRUE(sharesWithAnotherApi(choice.backend));
}

TEST(OpenClChoice, NamesTheMissingExtensionsWhenNoDeviceHasThem) {
  const std::string message = thrownMessage({nvidiaVulkan(0, 0xAB)}, listOf({openClDevice("pocl cpu", 0xAB, false)}));
  EXPECT_NE(message.find("--backend opencl"), std::string::npos) << message;
  for (const char* extension : kOpenClInteropExtensions)
    EXPECT_NE(message.find(extension), std::string::npos) << extension << ": " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(OpenClChoice, NamesTheOneMissingExtensionOfAPairedDevice) {
  OpenClDeviceInfo almost = openClDevice("NVIDIA H200", 0xAB, true);
  almost.interopExtensions[4] = false;  // cl_khr_semaphore
  const std::string message = thrownMessage({nvidiaVulkan(0, 0xAB)}, listOf({almost}));
  EXPECT_NE(message.find("same UUID but cannot share"), std::string::npos) << message;
  EXPECT_NE(message.find("cl_khr_semaphore"), std::string::npos) << message;
  EXPECT_EQ(message.find("cl_khr_external_memory"), std::string::npos) << message;
}

TEST(OpenClChoice, RefusesAVulkanDeviceWithoutAnOpenClTwin) {
  const OpenClDeviceList opencl = listOf({openClDevice("NVIDIA H200", 0xAB, true)});
  const std::string message = thrownMessage({nvidiaVulkan(0, 0xAB), nvidiaVulkan(1, 0x33)}, opencl, "1");
  EXPECT_NE(message.find("no OpenCL device has the UUID of Vulkan device 1"), std::string::npos) << message;
}

TEST(OpenClChoice, PassesOnTheReasonThatThereIsNoOpenCl) {
  OpenClDeviceList none;
  none.unavailableReason = "the OpenCL ICD loader libOpenCL.so.1 cannot be loaded (not found)";
  EXPECT_EQ(thrownMessage({nvidiaVulkan(0, 0xAB)}, none),
            "--backend opencl: the OpenCL ICD loader libOpenCL.so.1 cannot be loaded (not found)");
}

TEST(OpenClChoice, ListDevicesShowsUuidsExtensionsAndThePair) {
  const std::string text =
      describeOpenClDevices({nvidiaVulkan(0, 0xAB)}, listOf({openClDevice("NVIDIA H200", 0xAB, true)}));
  EXPECT_NE(text.find("UUID abababab-abab-abab-abab-abababababab"), std::string::npos) << text;
  EXPECT_NE(text.find("cl_khr_external_semaphore_opaque_fd yes"), std::string::npos) << text;
  EXPECT_NE(text.find("OpenCL backend available"), std::string::npos) << text;
}

using testing::parseArguments;

TEST(OpenClCommandLine, RunsBinaryUnlessTimelineIsAskedForWhichIsExitThree) {
  const Result<Options> plain = parseArguments({"--backend", "opencl"});
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->backend, BackendChoice::opencl);
  EXPECT_EQ(plain->sync, SyncMode::binary);
  const Result<Options> binary = parseArguments({"--backend", "opencl", "--sync", "binary"});
  ASSERT_TRUE(binary.has_value());
  EXPECT_EQ(binary->sync, SyncMode::binary);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--backend", "opencl", "--sync", "timeline"},
        std::vector<std::string>{"--sync", "timeline", "--backend", "OpenCL"},
        std::vector<std::string>{"--backend", "opencl", "--switch-sync-every", "5"},
        std::vector<std::string>{"--backend", "opencl", "--transfer", "copy"},
        std::vector<std::string>{"bench", "--backend", "opencl", "--sync", "timeline"},
        std::vector<std::string>{"bench", "--backend", "opencl", "--sync", "both"}}) {
    const Result<Options> refused = parseArguments(args);
    ASSERT_FALSE(refused.has_value()) << args[1];
    EXPECT_EQ(refused.error().exitCode, kExitEnvironment) << refused.error().message;
    const std::string& message = refused.error().message;
    EXPECT_EQ(message.find('\n'), message.size() - 1) << message;  // one line
    EXPECT_NE(message.find("binary semaphores only") == std::string::npos ? message.find("zero-copy")
                                                                          : message.find("cl_khr_semaphore"),
              std::string::npos)
        << message;
  }
}

TEST(OpenClCommandLine, TheBenchRunsTheBinaryZeroCopyConfigurationsOnly) {
  const Result<Options> bench = parseArguments({"bench", "--backend", "opencl"});
  ASSERT_TRUE(bench.has_value());
  ASSERT_TRUE(bench->bench.has_value());
  EXPECT_EQ(bench->bench->syncModes, std::vector<SyncMode>{SyncMode::binary});
  EXPECT_EQ(bench->bench->transfers, std::vector<TransferMode>{TransferMode::zeroCopy});
}

TEST(OpenClCommandLine, AutoNeverMeansOpenCl) {
  const Result<Options> automatic = parseArguments({});
  ASSERT_TRUE(automatic.has_value());
  EXPECT_EQ(automatic->backend, BackendChoice::automatic);
  EXPECT_EQ(automatic->sync, SyncMode::timeline);
}

}  // namespace
}  // namespace vksim
