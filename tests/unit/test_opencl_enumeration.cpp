// The OpenCL device list and the pairing on a fake OpenCL: listOpenClDevices
// takes its entry points from an OpenClApi table (sim/opencl/opencl_devices.h),
// filled here with functions that play platforms in any order, platforms whose
// clGetDeviceIDs fails and devices whose queries fail. What the NVIDIA machine
// showed (docs/gpu-runs.md, "Which OpenCL a process sees"): a CPU platform
// listed before the GPU's, and a platform that may not list its devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "app/interop/device_pairing.h"
#include "sim/opencl/opencl_devices.h"

namespace vksim {
namespace {

struct FakeDevice {
  std::string name;
  bool interop = false;  // every extension of kOpenClInteropExtensions, opaque fds, binary semaphores
  uint8_t uuidByte = 0;
  cl_int extensionsStatus = CL_SUCCESS;  // what CL_DEVICE_EXTENSIONS answers
  bool uuidAlone = false;                // cl_khr_device_uuid without the other extensions
};

struct FakePlatform {
  std::string name;
  cl_int deviceIdsStatus = CL_SUCCESS;  // what clGetDeviceIDs answers
  std::vector<FakeDevice> devices;
  cl_int fillStatus = CL_SUCCESS;  // what its second call (the one that fills the array) answers
};

// The machine the entry points below describe; each test sets it.
std::vector<FakePlatform> fakePlatforms;

// Handles: platform p is (p + 1) << 8, its device d is that | (d + 1).
cl_platform_id platformHandle(size_t p) {
  return reinterpret_cast<cl_platform_id>(uintptr_t((p + 1) << 8));
}
cl_device_id deviceHandle(size_t p, size_t d) {
  return reinterpret_cast<cl_device_id>(uintptr_t((p + 1) << 8 | (d + 1)));
}
size_t platformOf(const void* handle) {
  return (reinterpret_cast<uintptr_t>(handle) >> 8) - 1;
}
const FakeDevice& deviceOf(cl_device_id handle) {
  return fakePlatforms[platformOf(handle)].devices[(reinterpret_cast<uintptr_t>(handle) & 0xff) - 1];
}

// The two-call answer of an info query: the size, and the bytes if there is room.
cl_int answer(const void* data, size_t size, size_t capacity, void* value, size_t* sizeRet) {
  if (sizeRet) *sizeRet = size;
  if (value && capacity < size) return CL_INVALID_VALUE;
  if (value) std::memcpy(value, data, size);
  return CL_SUCCESS;
}

cl_int fakeGetPlatformIDs(cl_uint entries, cl_platform_id* platforms, cl_uint* count) {
  if (count) *count = cl_uint(fakePlatforms.size());
  for (size_t p = 0; platforms && p < std::min<size_t>(entries, fakePlatforms.size()); ++p)
    platforms[p] = platformHandle(p);
  return fakePlatforms.empty() ? CL_PLATFORM_NOT_FOUND_KHR : CL_SUCCESS;
}

cl_int fakeGetPlatformInfo(cl_platform_id platform, cl_platform_info what, size_t capacity, void* value,
                           size_t* sizeRet) {
  const std::string& name = fakePlatforms[platformOf(platform)].name;
  if (what == CL_PLATFORM_NAME) return answer(name.c_str(), name.size() + 1, capacity, value, sizeRet);
  if (what == CL_PLATFORM_VERSION) return answer("OpenCL 3.0 fake", 16, capacity, value, sizeRet);
  return CL_INVALID_VALUE;
}

cl_int fakeGetDeviceIDs(cl_platform_id platform, cl_device_type, cl_uint entries, cl_device_id* devices,
                        cl_uint* count) {
  const size_t p = platformOf(platform);
  const FakePlatform& fake = fakePlatforms[p];
  if (fake.deviceIdsStatus != CL_SUCCESS) return fake.deviceIdsStatus;
  if (fake.devices.empty()) return CL_DEVICE_NOT_FOUND;
  if (count) *count = cl_uint(fake.devices.size());
  if (devices && fake.fillStatus != CL_SUCCESS) return fake.fillStatus;
  for (size_t d = 0; devices && d < std::min<size_t>(entries, fake.devices.size()); ++d)
    devices[d] = deviceHandle(p, d);
  return CL_SUCCESS;
}

cl_int fakeGetDeviceInfo(cl_device_id handle, cl_device_info what, size_t capacity, void* value,
                         size_t* sizeRet) {
  const FakeDevice& device = deviceOf(handle);
  std::string extensions = "cl_khr_icd";
  for (const char* name : kOpenClInteropExtensions)
    extensions += device.interop ? std::string(" ") + name : "";
  if (device.uuidAlone) extensions += " cl_khr_device_uuid";
  const cl_external_memory_handle_type_khr memoryType = CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR;
  const cl_external_semaphore_handle_type_khr semaphoreHandle = CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR;
  const cl_semaphore_type_khr semaphoreType = CL_SEMAPHORE_TYPE_BINARY_KHR;
  uint8_t uuid[CL_UUID_SIZE_KHR];
  std::fill(std::begin(uuid), std::end(uuid), device.uuidByte);
  switch (what) {
    case CL_DEVICE_NAME:
      return answer(device.name.c_str(), device.name.size() + 1, capacity, value, sizeRet);
    case CL_DEVICE_EXTENSIONS:
      if (device.extensionsStatus != CL_SUCCESS) return device.extensionsStatus;
      return answer(extensions.c_str(), extensions.size() + 1, capacity, value, sizeRet);
    case CL_DEVICE_UUID_KHR:
      return answer(uuid, sizeof uuid, capacity, value, sizeRet);
    case CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR:
      return answer(&memoryType, sizeof memoryType, capacity, value, sizeRet);
    case CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR:
      return answer(&semaphoreHandle, sizeof semaphoreHandle, capacity, value, sizeRet);
    case CL_DEVICE_SEMAPHORE_TYPES_KHR:
      return answer(&semaphoreType, sizeof semaphoreType, capacity, value, sizeRet);
    default:
      return CL_INVALID_VALUE;
  }
}

OpenClApi fakeApi() {
  OpenClApi api;
  api.clGetPlatformIDs = fakeGetPlatformIDs;
  api.clGetPlatformInfo = fakeGetPlatformInfo;
  api.clGetDeviceIDs = fakeGetDeviceIDs;
  api.clGetDeviceInfo = fakeGetDeviceInfo;
  api.library = "libOpenCL.so.1";
  api.path = "/fake/lib/libOpenCL.so.1";
  api.description = "Fake ICD Loader 1.0";
  return api;
}

const FakePlatform kPocl{"Portable Computing Language", CL_SUCCESS, {{"cpu-skylake-avx512", false, 0x22}}};
const FakePlatform kNvidia{"NVIDIA CUDA", CL_SUCCESS, {{"NVIDIA H200", true, 0xAB}}};

PhysicalDeviceInfo nvidiaVulkan() {
  PhysicalDeviceInfo d;
  d.name = "NVIDIA H200";
  d.type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  d.deviceUuid.fill(0xAB);
  d.timelineSemaphores = d.hasGraphicsQueue = true;
  d.externalMemoryFd = d.vertexBufferExportable = true;
  d.externalSemaphoreFd = d.timelineExportable = d.binaryExportable = true;
  d.deviceGroupSize = 1;
  d.driverId = VK_DRIVER_ID_NVIDIA_PROPRIETARY;
  return d;
}

// The device chosen for nvidiaVulkan(), or nothing and why.
std::optional<OpenClDeviceInfo> chosen(const OpenClDeviceList& opencl, std::string* why) {
  try {
    return chooseOpenClDevices({nvidiaVulkan()}, opencl, "").opencl;
  } catch (const EnvironmentError& error) {
    *why = error.what();
  }
  return std::nullopt;
}

std::string thrownMessage(const OpenClDeviceList& opencl) {
  try {
    chooseOpenClDevices({nvidiaVulkan()}, opencl, "");
  } catch (const EnvironmentError& error) {
    return error.what();
  }
  return "(nothing thrown)";
}

// (a) The platform that lacks the extensions comes first or second; the
// one whose device has the Vulkan device's UUID is chosen either way. The
// first platform's device also has that UUID but not the extensions (a
// driver that offers cl_khr_device_uuid alone): a pair that cannot share
// does not end the search.
TEST(OpenClEnumeration, PairsAcrossPlatformsWhateverTheirOrder) {
  FakePlatform sameUuidNoInterop = kPocl;
  sameUuidNoInterop.devices[0].uuidByte = 0xAB;
  sameUuidNoInterop.devices[0].uuidAlone = true;
  for (const FakePlatform& lacking : {kPocl, sameUuidNoInterop})
    for (const bool nvidiaFirst : {false, true}) {
      fakePlatforms = nvidiaFirst ? std::vector<FakePlatform>{kNvidia, lacking}
                                  : std::vector<FakePlatform>{lacking, kNvidia};
      std::string why;
      const std::optional<OpenClDeviceInfo> device = chosen(listOpenClDevices(fakeApi()), &why);
      ASSERT_TRUE(device.has_value()) << why;
      EXPECT_EQ(device->platformName, "NVIDIA CUDA") << nvidiaFirst;
      EXPECT_EQ(device->platformIndex, nvidiaFirst ? 0 : 1);
      EXPECT_EQ(device->deviceIndex, 0);
    }
}

// (b) A platform whose clGetDeviceIDs fails, before or after the good one:
// the good one still pairs, and the failure is in the list and in
// --list-devices.
TEST(OpenClEnumeration, APlatformThatCannotListItsDevicesIsReportedNotTheEnd) {
  for (const cl_int status : {CL_DEVICE_NOT_FOUND, CL_OUT_OF_HOST_MEMORY})
    for (const bool failingFirst : {true, false}) {
      const FakePlatform failing{"Broken Platform", status, {{"never seen", true, 0xAB}}};
      fakePlatforms = failingFirst ? std::vector<FakePlatform>{failing, kNvidia}
                                   : std::vector<FakePlatform>{kNvidia, failing};
      const OpenClDeviceList list = listOpenClDevices(fakeApi());
      std::string why;
      const std::optional<OpenClDeviceInfo> device = chosen(list, &why);
      ASSERT_TRUE(device.has_value()) << why;
      EXPECT_EQ(device->platformIndex, failingFirst ? 1 : 0);
      const std::string expected = "clGetDeviceIDs failed (" + openClErrorName(status) + ")";
      ASSERT_EQ(list.platforms.size(), 2u);
      const OpenClPlatformInfo& broken = list.platforms[failingFirst ? 0 : 1];
      EXPECT_EQ(broken.name, "Broken Platform");
      EXPECT_EQ(broken.problems, std::vector<std::string>{expected});
      const std::string text = describeOpenClDevices({nvidiaVulkan()}, list);
      EXPECT_NE(text.find("'Broken Platform' (OpenCL 3.0 fake); " + expected), std::string::npos) << text;
      EXPECT_NE(text.find("OpenCL backend available"), std::string::npos) << text;
    }
}

// A device whose extension string cannot be read is left out with the
// reason; the platform's next device is still listed, under its own index.
TEST(OpenClEnumeration, ADeviceWhoseQueriesFailIsLeftOutWithTheReason) {
  FakePlatform nvidia = kNvidia;
  nvidia.devices.insert(nvidia.devices.begin(), FakeDevice{"NVIDIA H100", true, 0x11, CL_INVALID_DEVICE});
  fakePlatforms = {kPocl, nvidia};
  const OpenClDeviceList list = listOpenClDevices(fakeApi());
  ASSERT_EQ(list.platforms.size(), 2u);
  EXPECT_EQ(list.platforms[1].problems,
            std::vector<std::string>{
                "device 0: 'NVIDIA H100': CL_DEVICE_EXTENSIONS unreadable (CL_INVALID_DEVICE)"});
  const DeviceChoice choice = chooseOpenClDevices({nvidiaVulkan()}, list, "");
  ASSERT_TRUE(choice.opencl.has_value());
  EXPECT_EQ(choice.opencl->platformIndex, 1);
  EXPECT_EQ(choice.opencl->deviceIndex, 1);
}

// (c) Nothing pairs: one line that names every platform, whatever their
// order, with what each device lacks or why the platform failed, and the
// loader file.
TEST(OpenClEnumeration, NothingPairsNamesEveryPlatformInOneLine) {
  const FakePlatform failing{"NVIDIA CUDA", CL_OUT_OF_HOST_MEMORY, {{"NVIDIA H200", true, 0xAB}}};
  const FakePlatform otherGpu{"Other GPU", CL_SUCCESS, {{"other gpu", true, 0x33}}};
  std::vector<FakePlatform> platforms{kPocl, failing, otherGpu};
  std::sort(platforms.begin(), platforms.end(), [](auto& a, auto& b) { return a.name < b.name; });
  do {
    fakePlatforms = platforms;
    const std::string message = thrownMessage(listOpenClDevices(fakeApi()));
    EXPECT_EQ(message.rfind("--backend opencl: no OpenCL device has the UUID of a Vulkan device", 0), 0u)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (size_t p = 0; p < platforms.size(); ++p)
      EXPECT_NE(message.find("platform " + std::to_string(p) + " '" + platforms[p].name + "' ["),
                std::string::npos)
          << message;
    EXPECT_NE(message.find("'cpu-skylake-avx512' lacks cl_khr_external_memory, "), std::string::npos)
        << message;
    EXPECT_NE(message.find("'NVIDIA CUDA' [clGetDeviceIDs failed (CL_OUT_OF_HOST_MEMORY)]"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("'other gpu' has UUID 33333333-"), std::string::npos) << message;
    EXPECT_NE(message.find("(ICD loader /fake/lib/libOpenCL.so.1, Fake ICD Loader 1.0)"), std::string::npos)
        << message;
  } while (std::next_permutation(platforms.begin(), platforms.end(),
                                 [](auto& a, auto& b) { return a.name < b.name; }));
}

// clGetDeviceIDs that counts the devices and then fails to fill the array:
// the platform is reported and none of its (unfilled) handles is asked about.
TEST(OpenClEnumeration, AFailedSecondDeviceQueryLeavesNoHandleBehind) {
  FakePlatform failing = kNvidia;
  failing.name = "Fails To Fill";
  failing.fillStatus = CL_OUT_OF_RESOURCES;
  fakePlatforms = {failing, kNvidia};
  const OpenClDeviceList list = listOpenClDevices(fakeApi());
  ASSERT_EQ(list.platforms.size(), 2u);
  EXPECT_EQ(list.platforms[0].problems,
            std::vector<std::string>{"clGetDeviceIDs failed (CL_OUT_OF_RESOURCES)"});
  ASSERT_EQ(list.devices.size(), 1u);
  EXPECT_EQ(list.devices[0].platformIndex, 1);
}

// Every platform failing is not "no OpenCL": the line still names each.
TEST(OpenClEnumeration, EveryPlatformFailingIsNamedToo) {
  fakePlatforms = {{"A", CL_OUT_OF_RESOURCES, {}}, {"B", CL_DEVICE_NOT_FOUND, {}}};
  const OpenClDeviceList list = listOpenClDevices(fakeApi());
  EXPECT_TRUE(list.devices.empty());
  EXPECT_FALSE(list.unavailableReason.empty());
  const std::string message = thrownMessage(list);
  EXPECT_NE(message.find("platform 0 'A' [clGetDeviceIDs failed (CL_OUT_OF_RESOURCES)]; platform 1 'B' "
                         "[clGetDeviceIDs failed (CL_DEVICE_NOT_FOUND)]"),
            std::string::npos)
      << message;
}

TEST(OpenClEnumeration, NoPlatformIsTheLoadersAnswerWithItsFile) {
  fakePlatforms.clear();
  const OpenClDeviceList list = listOpenClDevices(fakeApi());
  EXPECT_TRUE(list.platforms.empty());
  EXPECT_EQ(
      thrownMessage(list),
      "--backend opencl: the OpenCL ICD loader libOpenCL.so.1 finds no platform (CL_PLATFORM_NOT_FOUND_KHR) "
      "(ICD loader /fake/lib/libOpenCL.so.1, Fake ICD Loader 1.0)");
}

// --list-devices names the loader file, the ICD variables as the process
// has them, and each platform before its devices.
TEST(OpenClEnumeration, ListDevicesNamesTheLoaderAndItsVariables) {
  fakePlatforms = {kPocl, kNvidia};
  OpenClDeviceList list = listOpenClDevices(fakeApi());
  list.loader.variables = {{"OCL_ICD_VENDORS", true, "/x/.gpu/icd"}, {"OCL_ICD_FILENAMES", false, ""}};
  const std::string text = describeOpenClDevices({nvidiaVulkan()}, list);
  EXPECT_EQ(text.rfind("OpenCL ICD loader: /fake/lib/libOpenCL.so.1 (Fake ICD Loader 1.0)\n"
                       "  OCL_ICD_VENDORS=/x/.gpu/icd, OCL_ICD_FILENAMES unset\n"
                       "OpenCL devices:\n"
                       "  platform 0 'Portable Computing Language' (OpenCL 3.0 fake)\n"
                       "  [0.0] cpu-skylake-avx512\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("  platform 1 'NVIDIA CUDA' (OpenCL 3.0 fake)\n  [1.0] NVIDIA H200\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace vksim
