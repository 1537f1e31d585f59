// --memory-owner where there is no CUDA device (CI, lavapipe): the reverse
// direction cannot run, and says so in one line with exit 3 (an environment
// that lacks something) or, for options that contradict it, exit 2; nothing
// asked for is written. The default owner is named on the summary line. And
// the renderer's half of the reverse direction, importSharedVertexBuffer, on
// lavapipe: memory exported as an opaque fd without a dedicated allocation
// (as CUDA's cuMemCreate memory is) is imported into a vertex buffer that
// reads the same bytes, and the fd is Vulkan's after a successful import and
// still ours after a refused one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "app_runner.h"
#include "renderer/readback.h"
#include "renderer/shared_resources.h"
#include "renderer/vk_check.h"
#include "renderer/vulkan_context.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

using testing::AppResult;
using testing::fileExists;
using testing::makeTempDir;
using testing::runApp;
using testing::summaryField;

const std::vector<std::string> kValidation{"VKSIM_VALIDATION=1"};

struct Refusal {
  std::vector<std::string> args;
  int exitCode;
  const char* mentions;
};

class MemoryOwnerRefused : public ::testing::TestWithParam<Refusal> {};

TEST_P(MemoryOwnerRefused, ExitsWithItsCodeAndOneLineAndWritesNothing) {
  const std::string dir = makeTempDir("owner-refused");
  std::vector<std::string> args = GetParam().args;
  args.insert(args.end(), {"--headless", "--frames", "3", "--grid", "16", "--size", "64x64", "--dump-vertices",
                           dir + "/never.bin", "--screenshot", dir + "/never.png"});
  const AppResult result = runApp(args, kValidation);
  EXPECT_EQ(result.exitCode, GetParam().exitCode) << result.out << result.err;
  EXPECT_NE(result.err.find(GetParam().mentions), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "one line: " << result.err;
  EXPECT_FALSE(fileExists(dir + "/never.bin"));
  EXPECT_FALSE(fileExists(dir + "/never.png"));
}

INSTANTIATE_TEST_SUITE_P(
    WithoutCuda, MemoryOwnerRefused,
    ::testing::Values(Refusal{{"--memory-owner", "cuda"}, 3, "--memory-owner cuda needs the CUDA backend"},
                      Refusal{{"--memory-owner", "cuda", "--backend", "cuda"}, 3, "--memory-owner cuda"},
                      Refusal{{"--memory-owner", "cuda", "--backend", "cpu"}, 2, "--backend cpu"},
                      Refusal{{"--memory-owner", "cuda", "--transfer", "copy"}, 2, "copy path"},
                      Refusal{{"--memory-owner", "nobody"}, 2, "--memory-owner"}));

TEST(MemoryOwner, TheSummaryLineNamesTheOwner) {
  const AppResult vulkan = runApp({"--headless", "--frames", "3", "--grid", "16", "--size", "64x64"}, kValidation);
  testing::expectCleanRun(vulkan);
  EXPECT_EQ(summaryField(vulkan.out, "memory_owner"), "vulkan") << vulkan.out;
  const AppResult copy = runApp(
      {"--headless", "--frames", "3", "--grid", "16", "--size", "64x64", "--transfer", "copy"}, kValidation);
  testing::expectCleanRun(copy);
  EXPECT_EQ(summaryField(copy.out, "memory_owner"), "none") << copy.out;
}

bool fdIsOpen(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) != -1; }

// Opaque-fd memory as another API would hand it over: exportable, not
// dedicated, mapped so that the test can fill it.
struct ForeignMemory {
  VkBuffer buffer = VK_NULL_HANDLE;  // only to learn the requirements; never bound
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize allocationSize = 0;
};

class ImportSharedVertexBuffer : public ::testing::Test {
 protected:
  static constexpr VkDeviceSize kBytes = 16 * 16 * 32;

  void SetUp() override {
    InstanceOptions options;
    options.validation = true;
    options.synchronizationValidation = true;
    instance_ = createInstance(options);
    for (const PhysicalDeviceInfo& info : listPhysicalDevices(instance_))
      if (info.name.find("llvmpipe") != std::string::npos) lavapipe_ = info;
    ASSERT_TRUE(lavapipe_) << "lavapipe (mesa-vulkan-drivers) is a dependency of the integration tests";
    DeviceOptions deviceOptions;
    deviceOptions.exportMemory = true;
    device_ = createDevice(instance_, *lavapipe_, deviceOptions);
    foreign_ = allocateForeign();
  }

  void TearDown() override {
    if (device_.device) {
      VK_CHECK(vkDeviceWaitIdle(device_.device));
      destroySharedVertexBuffer(device_, imported_);
      if (foreign_.buffer) vkDestroyBuffer(device_.device, foreign_.buffer, nullptr);
      if (foreign_.memory) vkFreeMemory(device_.device, foreign_.memory, nullptr);
      destroyDevice(device_);
    }
    destroyInstance(instance_);
  }

  ForeignMemory allocateForeign() {
    ForeignMemory result;
    VkExternalMemoryBufferCreateInfo externalInfo{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    externalInfo.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bufferInfo.pNext = &externalInfo;
    bufferInfo.size = kBytes;
    bufferInfo.usage = kSharedVertexBufferUsage;
    bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(device_.device, &bufferInfo, nullptr, &result.buffer));
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(device_.device, result.buffer, &requirements);
    // A Vulkan-made payload is imported with its own size and memory type;
    // importSharedVertexBuffer picks the first device-local type, so that is
    // the one it is made from (on lavapipe it is also host-visible).
    const uint32_t type = findMemoryType(device_, requirements.memoryTypeBits,
                                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    EXPECT_EQ(type, findMemoryType(device_, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocateInfo.pNext = &exportInfo;
    allocateInfo.allocationSize = requirements.size;
    allocateInfo.memoryTypeIndex = type;
    VK_CHECK(vkAllocateMemory(device_.device, &allocateInfo, nullptr, &result.memory));
    result.allocationSize = requirements.size;
    return result;
  }

  int exportForeign() {
    VkMemoryGetFdInfoKHR getInfo{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    getInfo.memory = foreign_.memory;
    getInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    VK_CHECK(vkGetMemoryFdKHR(device_.device, &getInfo, &fd));
    return fd;
  }

  Instance instance_;
  std::optional<PhysicalDeviceInfo> lavapipe_;
  Device device_;
  ForeignMemory foreign_;
  SharedVertexBuffer imported_;
};

TEST_F(ImportSharedVertexBuffer, ReadsTheExportersBytesAndTakesTheFd) {
  const ValidationWatch watch;
  const std::vector<uint8_t> pattern = testPattern(kBytes, 13);
  void* mapped = nullptr;
  VK_CHECK(vkMapMemory(device_.device, foreign_.memory, 0, VK_WHOLE_SIZE, 0, &mapped));
  std::memcpy(mapped, pattern.data(), pattern.size());
  vkUnmapMemory(device_.device, foreign_.memory);

  const int before = testing::openFdCount();
  int fd = exportForeign();
  ASSERT_TRUE(fdIsOpen(fd));
  imported_ = importSharedVertexBuffer(device_, kBytes, fd, foreign_.allocationSize);
  EXPECT_EQ(fd, -1) << "a successful import takes the fd";
  EXPECT_TRUE(imported_.imported);
  EXPECT_FALSE(imported_.exportable);
  EXPECT_EQ(imported_.allocationSize, foreign_.allocationSize);
  EXPECT_EQ(readBuffer(device_, imported_.buffer, kBytes), pattern);
  // The fd is the implementation's now: whether it keeps the number open is
  // its business, but no second one may have been left behind.
  EXPECT_LE(testing::openFdCount(), before + 1);
  EXPECT_EQ(watch.newErrors(), 0u);
  EXPECT_EQ(watch.newWarnings(), 0u);
}

TEST_F(ImportSharedVertexBuffer, ARefusedImportLeavesTheFdOpenAndOurs) {
  const ValidationWatch watch;
  const int before = testing::openFdCount();
  int fd = exportForeign();
  const int exportedFd = fd;
  // Smaller than the buffer needs: refused before vkAllocateMemory.
  EXPECT_THROW(imported_ = importSharedVertexBuffer(device_, kBytes, fd, foreign_.allocationSize / 2),
               EnvironmentError);
  EXPECT_EQ(fd, exportedFd) << "a failed import leaves the fd with the caller";
  EXPECT_TRUE(fdIsOpen(fd));
  EXPECT_EQ(testing::openFdCount(), before + 1);
  close(fd);
  EXPECT_EQ(testing::openFdCount(), before);
  EXPECT_EQ(imported_.buffer, VK_NULL_HANDLE);
  EXPECT_EQ(watch.newErrors(), 0u);
  EXPECT_EQ(watch.newWarnings(), 0u);
}

}  // namespace
}  // namespace vksim
