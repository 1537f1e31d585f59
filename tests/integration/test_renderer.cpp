// The renderer room on lavapipe, in-process: instance and device with the
// validation layer on, device description, exported memory re-imported by
// Vulkan, an offscreen render read back, the host side of the value schedule,
// and (under Xvfb only) a swapchain with a resize. Every test ends with no
// new validation warning or error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "renderer/frame_sync.h"
#include "app/interop/host_semaphores.h"
#include "renderer/mesh_renderer.h"
#include "renderer/shared_texture.h"
#include "renderer/readback.h"
#include "renderer/render_targets.h"
#include "renderer/shared_resources.h"
#include "renderer/vk_check.h"
#include "renderer/vulkan_context.h"
#include "renderer/window.h"
#include "vulkan_test_support.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <stb_image_write.h>

namespace vksim {
namespace {

constexpr uint64_t kSecondNs = 1'000'000'000ull;

bool isLavapipe(const PhysicalDeviceInfo& info) {
  return info.driverName == "llvmpipe" || info.name.find("llvmpipe") != std::string::npos;
}

std::optional<PhysicalDeviceInfo> findLavapipe(const Instance& instance) {
  for (const PhysicalDeviceInfo& info : listPhysicalDevices(instance))
    if (isLavapipe(info)) return info;
  return std::nullopt;
}

// VKSIM_RENDERER_TEST_DEVICE=<part of a device name> runs the fixture's tests
// on that device instead of lavapipe (on the NVIDIA machine, say); the tests
// of lavapipe's own properties then skip.
std::optional<PhysicalDeviceInfo> findTestDevice(const Instance& instance) {
  const char* wanted = std::getenv("VKSIM_RENDERER_TEST_DEVICE");
  if (wanted == nullptr || wanted[0] == '\0') return findLavapipe(instance);
  for (const PhysicalDeviceInfo& info : listPhysicalDevices(instance))
    if (info.name.find(wanted) != std::string::npos) return info;
  return std::nullopt;
}

// Instance with validation, the test device's description (lavapipe unless
// VKSIM_RENDERER_TEST_DEVICE says otherwise), and (on request) a device.
class RendererTest : public ::testing::Test {
 protected:
  void SetUp() override {
    InstanceOptions options;
    options.validation = options.synchronizationValidation = true;
    instance_ = createInstance(options);
    std::optional<PhysicalDeviceInfo> device = findTestDevice(instance_);
    // lavapipe is a declared dependency (DEVELOPERS.md): without it these
    // tests cannot run, and a skip would let a broken CI pass unseen.
    ASSERT_TRUE(device) << "the test device (lavapipe, package mesa-vulkan-drivers, unless "
                           "VKSIM_RENDERER_TEST_DEVICE names another) is not installed";
    testDevice_ = *device;
  }

  // For tests of what lavapipe itself offers or lacks.
  bool onLavapipe() const { return isLavapipe(testDevice_); }

  void TearDown() override {
    if (device_.device != VK_NULL_HANDLE) {
      vkDeviceWaitIdle(device_.device);
      destroyDevice(device_);
    }
    EXPECT_TRUE(instance_.validation && instance_.synchronizationValidation)
        << "the counts below mean nothing without the layer and its synchronization validation";
    destroyInstance(instance_);
    EXPECT_EQ(watch_.newWarnings(), 0u) << "validation warnings (printed above)";
    EXPECT_EQ(watch_.newErrors(), 0u) << "validation errors (printed above)";
  }

  void createTestDevice(const DeviceOptions& options = {}) {
    device_ = createDevice(instance_, testDevice_, options);
  }

  ValidationWatch watch_;
  Instance instance_;
  PhysicalDeviceInfo testDevice_;
  Device device_;
};

// ---------------------------------------------------------------------------
// Instance, devices

TEST_F(RendererTest, InstanceAndDeviceCreateAndDestroyWithValidation) {
  EXPECT_TRUE(instance_.validation);
  EXPECT_NE(instance_.messenger, VK_NULL_HANDLE);
  EXPECT_GE(instance_.apiVersion, VK_API_VERSION_1_2);

  DeviceOptions options;
  options.exportMemory = true;
  options.swapchain = true;
  createTestDevice(options);
  EXPECT_NE(device_.device, VK_NULL_HANDLE);
  EXPECT_NE(device_.queue, VK_NULL_HANDLE);
  EXPECT_NE(device_.commandPool, VK_NULL_HANDLE);
  EXPECT_TRUE(device_.exportMemory);
  EXPECT_FALSE(device_.exportSemaphores);
  EXPECT_GT(device_.memoryProperties.memoryTypeCount, 0u);
  EXPECT_GT(device_.timestampPeriod, 0.0f);
  EXPECT_GT(device_.timestampValidBits, 0u);
  EXPECT_EQ(device_.info.deviceUuid, testDevice_.deviceUuid);

  destroyDevice(device_);
  EXPECT_EQ(device_.device, VK_NULL_HANDLE);
}

// The counters are what every other test relies on: one deliberate invalid
// call must be reported and counted (then the baseline moves past it).
TEST_F(RendererTest, ValidationMessengerCountsAnError) {
  createTestDevice();
  const ValidationWatch before;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = 0;  // VUID-VkBufferCreateInfo-size-00912: size must be greater than 0
  bufferInfo.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  std::fprintf(stderr, "(the next validation error is expected)\n");
  if (vkCreateBuffer(device_.device, &bufferInfo, nullptr, &buffer) == VK_SUCCESS)
    vkDestroyBuffer(device_.device, buffer, nullptr);
  EXPECT_GE(before.newErrors(), 1u);
  watch_ = ValidationWatch{};
}

// The canary that VKSIM_VALIDATION_CANARY=1 records: one valid-usage error
// and one hazard that only synchronization validation reports. Both counted
// means the layer and its synchronization validation are really on.
TEST_F(RendererTest, ValidationCanaryIsReportedByCoreAndSynchronizationValidation) {
  createTestDevice();
  const ValidationWatch before;
  ::testing::internal::CaptureStderr();
  recordValidationCanary(device_);
  const std::string messages = ::testing::internal::GetCapturedStderr();
  std::fputs(messages.c_str(), stderr);
  EXPECT_GE(before.newErrors(), 2u);
  EXPECT_NE(messages.find("VUID-vkCmdFillBuffer-dstOffset-00025"), std::string::npos) << messages;
  EXPECT_NE(messages.find("SYNC-HAZARD-WRITE-AFTER-WRITE"), std::string::npos) << messages;
  watch_ = ValidationWatch{};
}

TEST_F(RendererTest, ListPhysicalDevicesDescribesLavapipe) {
  if (!onLavapipe()) GTEST_SKIP() << "testing " << testDevice_.name;
  EXPECT_FALSE(testDevice_.name.empty());
  EXPECT_EQ(testDevice_.type, VK_PHYSICAL_DEVICE_TYPE_CPU);
  EXPECT_STREQ(deviceTypeName(testDevice_.type), "CPU");
  EXPECT_EQ(testDevice_.driverName, "llvmpipe");
  EXPECT_EQ(testDevice_.driverId, VK_DRIVER_ID_MESA_LLVMPIPE);  // the pairing check reads it
  EXPECT_EQ(testDevice_.deviceGroupSize, 1u);                   // from vkEnumeratePhysicalDeviceGroups
  EXPECT_NE(testDevice_.driverInfo.find("Mesa"), std::string::npos) << testDevice_.driverInfo;
  EXPECT_GE(testDevice_.apiVersion, VK_API_VERSION_1_2);
  EXPECT_EQ(formatVersion(testDevice_.apiVersion).rfind("1.", 0), 0u);
  EXPECT_FALSE(formatDriverVersion(testDevice_).empty());
  EXPECT_TRUE(std::any_of(testDevice_.deviceUuid.begin(), testDevice_.deviceUuid.end(), [](uint8_t byte) {
    return byte != 0;
  })) << "deviceUUID is all zero";
  EXPECT_TRUE(testDevice_.timelineSemaphores);
  EXPECT_TRUE(testDevice_.externalMemoryFd);
  EXPECT_TRUE(testDevice_.vertexBufferExportable);
  EXPECT_TRUE(testDevice_.hasGraphicsQueue);
  EXPECT_NE(testDevice_.handle, VK_NULL_HANDLE);
}

TEST(RendererVersions, DriverVersionFollowsTheVendorEncoding) {
  PhysicalDeviceInfo nvidia;
  nvidia.vendorId = 0x10DE;
  nvidia.driverVersion = (535u << 22) | (104u << 14) | (5u << 6);
  EXPECT_EQ(formatDriverVersion(nvidia), "535.104.05");
  PhysicalDeviceInfo mesa;
  mesa.vendorId = 0x10005;
  mesa.driverVersion = VK_MAKE_VERSION(22, 3, 6);
  EXPECT_EQ(formatDriverVersion(mesa), "22.3.6");
  EXPECT_EQ(formatVersion(VK_API_VERSION_1_2), "1.2.0");
}

TEST_F(RendererTest, MissingInstanceExtensionIsAnEnvironmentError) {
  InstanceOptions options;
  options.extraExtensions = {"VK_VKSIM_no_such_extension"};
  try {
    Instance instance = createInstance(options);
    destroyInstance(instance);
    FAIL() << "createInstance accepted an unknown extension";
  } catch (const EnvironmentError& error) {
    EXPECT_NE(std::string(error.what()).find("VK_VKSIM_no_such_extension"), std::string::npos)
        << error.what();
  }
}

// lavapipe cannot export semaphores (design notes): asking for it must name
// the missing extension rather than fail later.
TEST_F(RendererTest, DeviceWithoutSemaphoreExportIsAnEnvironmentError) {
  if (testDevice_.externalSemaphoreFd) GTEST_SKIP() << testDevice_.name << " exports semaphores";
  DeviceOptions options;
  options.exportSemaphores = true;
  try {
    createTestDevice(options);
    FAIL() << "createDevice accepted a missing VK_KHR_external_semaphore_fd";
  } catch (const EnvironmentError& error) {
    EXPECT_NE(std::string(error.what()).find(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME), std::string::npos)
        << error.what();
  }
}

// A list that grows between the count call and the fill (a layer installed, a
// device plugged in): the fill returns VK_INCOMPLETE, and the helper must ask
// again instead of returning the short list or failing.
TEST(RendererChecks, EnumerationAsksAgainWhenTheListGrows) {
  std::vector<int> source{1, 2};
  int fills = 0;
  const auto call = [&](uint32_t* count, int* data) {
    if (data == nullptr) {
      *count = uint32_t(source.size());
      return VK_SUCCESS;
    }
    ++fills;
    const uint32_t room = *count;
    if (fills == 1) source.push_back(3);  // grew after the count was taken
    *count = std::min<uint32_t>(room, uint32_t(source.size()));
    std::copy_n(source.begin(), *count, data);
    return room < source.size() ? VK_INCOMPLETE : VK_SUCCESS;
  };
  EXPECT_EQ(enumerate<int>("grow", call), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(fills, 2);

  const auto lost = [](uint32_t* count, int*) {
    *count = 0;
    return VK_ERROR_DEVICE_LOST;
  };
  EXPECT_EQ(tryEnumerate<int>(lost).error(), VK_ERROR_DEVICE_LOST);
  try {
    enumerate<int>("lost", lost);
    FAIL() << "enumerate accepted VK_ERROR_DEVICE_LOST";
  } catch (const RuntimeFailure& failure) {
    EXPECT_NE(std::string(failure.what()).find("test_renderer.cpp:"), std::string::npos) << failure.what();
    EXPECT_NE(std::string(failure.what()).find("lost failed: VK_ERROR_DEVICE_LOST"), std::string::npos)
        << failure.what();
  }
}

TEST(RendererChecks, ResultNamesAndFailures) {
  try {
    VK_CHECK(VK_ERROR_DEVICE_LOST);
    FAIL() << "VK_CHECK did not throw";
  } catch (const RuntimeFailure& failure) {
    EXPECT_NE(std::string(failure.what()).find("test_renderer.cpp:"), std::string::npos) << failure.what();
    EXPECT_NE(std::string(failure.what()).find("failed: VK_ERROR_DEVICE_LOST"), std::string::npos)
        << failure.what();
  }
}

// ---------------------------------------------------------------------------
// Exported memory, re-imported by Vulkan

// Makes a transfer's writes visible to host reads after the fence wait.
void barrierTransferToHost(VkCommandBuffer commandBuffer) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &barrier, 0, nullptr, 0, nullptr);
}

TEST_F(RendererTest, ExportedHostVisibleMemoryReimportedSeesTheSameBytesBothWays) {
  DeviceOptions options;
  options.exportMemory = true;
  createTestDevice(options);
  const VkDeviceSize size = 16 * 16 * sizeof(Vertex);
  SharedVertexBuffer exported = createSharedVertexBuffer(device_, size, VertexMemory::hostVisible, true);
  EXPECT_TRUE(exported.exportable);
  EXPECT_TRUE(exported.dedicated);
  EXPECT_EQ(exported.size, size);
  EXPECT_GE(exported.allocationSize, size);
  ASSERT_NE(exported.mapped, nullptr);

  const std::vector<uint8_t> pattern = testPattern(size, 7);
  std::memcpy(exported.mapped, pattern.data(), size);  // coherent: no flush

  const int fd = exportMemoryFd(device_, exported);
  ASSERT_GE(fd, 0);
  ImportedBuffer imported = importBuffer(device_, fd, exported);  // owns fd from here

  EXPECT_EQ(readBuffer(device_, imported.buffer, size), pattern)
      << "the import does not see the exporter's writes";

  // And back: a device write through the import is seen through the
  // exporter's mapping.
  runOneTimeCommands(device_, [&](VkCommandBuffer commandBuffer) {
    vkCmdFillBuffer(commandBuffer, imported.buffer, 0, 256, 0xA5C3E187u);
    barrierTransferToHost(commandBuffer);
  });
  const uint8_t* mapped = static_cast<const uint8_t*>(exported.mapped);
  const uint8_t expected[4] = {0x87, 0xE1, 0xC3, 0xA5};  // little-endian uint32
  for (size_t i = 0; i < 256; ++i) ASSERT_EQ(mapped[i], expected[i % 4]) << "byte " << i;
  EXPECT_EQ(std::memcmp(mapped + 256, pattern.data() + 256, size - 256), 0);

  destroyImportedBuffer(device_, imported);
  destroySharedVertexBuffer(device_, exported);
}

TEST_F(RendererTest, ExportedDeviceLocalMemoryReimportedSeesDeviceWrites) {
  DeviceOptions options;
  options.exportMemory = true;
  createTestDevice(options);
  const VkDeviceSize size = 32 * 32 * sizeof(Vertex);  // 32 KiB: within vkCmdUpdateBuffer's 64 KiB
  SharedVertexBuffer exported = createSharedVertexBuffer(device_, size, VertexMemory::deviceLocal, true);
  EXPECT_EQ(exported.mapped, nullptr);
  EXPECT_TRUE(device_.memoryProperties.memoryTypes[exported.memoryTypeIndex].propertyFlags &
              VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);

  const std::vector<uint8_t> pattern = testPattern(size, 11);
  runOneTimeCommands(device_, [&](VkCommandBuffer commandBuffer) {
    vkCmdUpdateBuffer(commandBuffer, exported.buffer, 0, size, pattern.data());
  });

  ImportedBuffer imported = importBuffer(device_, exportMemoryFd(device_, exported), exported);
  EXPECT_EQ(readBuffer(device_, imported.buffer, size), pattern);
  EXPECT_EQ(readBuffer(device_, exported.buffer, size), pattern);

  destroyImportedBuffer(device_, imported);
  destroySharedVertexBuffer(device_, exported);
}

// ---------------------------------------------------------------------------
// Offscreen render

// A gently waving grid over [-1, 1]^2 at y ~ 0, laid out as the simulation
// writes it (row-major, z rows of x), normals from the analytic slope.
void writeTestGrid(Vertex* vertices, uint32_t grid) {
  for (uint32_t row = 0; row < grid; ++row)
    for (uint32_t column = 0; column < grid; ++column) {
      const float x = -1.0f + 2.0f * float(column) / float(grid - 1);
      const float z = -1.0f + 2.0f * float(row) / float(grid - 1);
      const float y = 0.05f * std::sin(4.0f * x) * std::cos(3.0f * z);
      const float dydx = 0.2f * std::cos(4.0f * x) * std::cos(3.0f * z);
      const float dydz = -0.15f * std::sin(4.0f * x) * std::sin(3.0f * z);
      const float length = std::sqrt(dydx * dydx + 1.0f + dydz * dydz);
      vertices[row * grid + column] = {{x, y, z, 1.0f},
                                       {-dydx / length, 1.0f / length, -dydz / length, 0.0f}};
    }
}

// Looking straight down -y: clip x = 0.8 x, clip y = 0.8 z, depth 0.5 - 0.1 y.
// The grid fills the central 80% of the image, leaving the corners clear.
MeshPushConstants topDownConstants() {
  MeshPushConstants constants{};
  constants.viewProjection.columns[0] = {0.8f, 0.0f, 0.0f, 0.0f};
  constants.viewProjection.columns[1] = {0.0f, 0.0f, -0.1f, 0.0f};
  constants.viewProjection.columns[2] = {0.0f, 0.8f, 0.0f, 0.0f};
  constants.viewProjection.columns[3] = {0.0f, 0.0f, 0.5f, 1.0f};
  constants.lightDirection = {0.4f, 1.0f, 0.3f, 0.0f};
  constants.cameraPosition = {0.0f, 5.0f, 0.0f, 1.0f};
  return constants;
}

std::array<uint8_t, 4> backgroundBytes() {
  std::array<uint8_t, 4> bytes{};
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(std::lround(kBackgroundColor[i] * 255.0f));
  return bytes;
}

// With VKSIM_TEST_IMAGE_DIR set, read-back images are kept as PNGs there, to
// look at when an image check fails.
void keepImageIfAsked(const RgbaImage& image, const std::string& name) {
  const char* directory = std::getenv("VKSIM_TEST_IMAGE_DIR");
  if (directory == nullptr || directory[0] == '\0') return;
  const std::string path = std::string(directory) + "/" + name + ".png";
  EXPECT_NE(stbi_write_png(path.c_str(), static_cast<int>(image.width), static_cast<int>(image.height), 4,
                           image.pixels.data(), static_cast<int>(image.width * 4)),
            0)
      << path;
}

bool isBackground(const RgbaImage& image, uint32_t x, uint32_t y, const std::array<uint8_t, 4>& background) {
  const uint8_t* pixel = &image.pixels[(size_t{y} * image.width + x) * 4];
  return std::equal(background.begin(), background.end(), pixel);
}

TEST_F(RendererTest, OffscreenMeshRenderIsNotBlankAndCornersShowTheClearColour) {
  createTestDevice();
  constexpr uint32_t kGrid = 48;
  const VkExtent2D extent{256, 192};
  OffscreenTarget target = createOffscreenTarget(device_, extent);
  EXPECT_EQ(target.colorFormat, VK_FORMAT_R8G8B8A8_UNORM);
  EXPECT_NE(target.depthFormat, VK_FORMAT_UNDEFINED);
  MeshPipeline pipeline = createMeshPipeline(device_, target.renderPass);
  // The texture is off in these constants (surface.x = 0): the placeholder only binds.
  SharedTexture placeholder = createSharedTexture(device_, 1, 1, 1, TextureWriter::placeholder);
  GridIndexBuffer indices = createGridIndexBuffer(device_, kGrid);
  EXPECT_EQ(indices.indexCount, 6u * (kGrid - 1) * (kGrid - 1));
  SharedVertexBuffer vertices = createSharedVertexBuffer(
      device_, VkDeviceSize{kGrid} * kGrid * sizeof(Vertex), VertexMemory::hostVisible, false);
  ASSERT_NE(vertices.mapped, nullptr);
  writeTestGrid(static_cast<Vertex*>(vertices.mapped), kGrid);
  SyncSemaphores semaphores = createSyncSemaphores(device_, false);
  FrameResources frame = createFrameResources(device_);

  // Frame 0 of the value schedule: wait >= 0 (the initial state), signal 1.
  ASSERT_TRUE(waitForFence(device_, frame.inFlight, kSecondNs));  // created signalled
  VK_CHECK(vkResetFences(device_.device, 1, &frame.inFlight));
  VK_CHECK(vkResetCommandBuffer(frame.commandBuffer, 0));
  VkCommandBufferBeginInfo beginInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  beginInfo.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(frame.commandBuffer, &beginInfo));
  beginRenderPass(frame.commandBuffer, target.renderPass, target.framebuffer, extent);
  recordMeshDraw(frame.commandBuffer, pipeline, {vertices.buffer, placeholder.set, &indices, topDownConstants(), extent});
  vkCmdEndRenderPass(frame.commandBuffer);
  VK_CHECK(vkEndCommandBuffer(frame.commandBuffer));
  const SemaphoreWait wait{semaphores.timeline, 0, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT};
  const SemaphoreSignal signal{semaphores.timeline, 1};
  submitToQueue(device_, frame.commandBuffer, {&wait, 1}, {&signal, 1}, frame.inFlight);
  ASSERT_TRUE(waitForFence(device_, frame.inFlight, 10 * kSecondNs));
  // The submission's timeline signal, waited for on the host: lavapipe (Mesa
  // 22.3) can report the fence signalled a moment before the counter moves.
  VulkanHostSemaphores host(device_, semaphores);
  EXPECT_TRUE(host.waitTimeline(1, 10 * kSecondNs));
  EXPECT_EQ(readTimelineCounter(device_, semaphores), 1u);

  const RgbaImage image =
      readColorImage(device_, target.color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target.colorFormat, extent);
  ASSERT_EQ(image.width, extent.width);
  ASSERT_EQ(image.height, extent.height);
  ASSERT_EQ(image.pixels.size(), size_t{extent.width} * extent.height * 4);
  keepImageIfAsked(image, "renderer_offscreen");

  const std::array<uint8_t, 4> background = backgroundBytes();
  EXPECT_EQ(background, (std::array<uint8_t, 4>{15, 18, 23, 255}));
  for (uint32_t x : {0u, extent.width - 1})
    for (uint32_t y : {0u, extent.height - 1})
      EXPECT_TRUE(isBackground(image, x, y, background)) << x << "," << y;
  EXPECT_FALSE(isBackground(image, extent.width / 2, extent.height / 2, background));
  size_t covered = 0;
  for (uint32_t y = 0; y < extent.height; ++y)
    for (uint32_t x = 0; x < extent.width; ++x) covered += isBackground(image, x, y, background) ? 0 : 1;
  // The grid covers 80% x 80% of the image.
  const double fraction = double(covered) / (double(extent.width) * extent.height);
  EXPECT_GT(fraction, 0.55) << covered << " pixels differ from the clear colour";
  EXPECT_LT(fraction, 0.75) << covered << " pixels differ from the clear colour";

  // Reading back a second time leaves the image as it was.
  const RgbaImage again =
      readColorImage(device_, target.color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, target.colorFormat, extent);
  EXPECT_EQ(again.pixels, image.pixels);

  destroyFrameResources(device_, frame);
  destroySyncSemaphores(device_, semaphores);
  destroySharedVertexBuffer(device_, vertices);
  destroyGridIndexBuffer(device_, indices);
  destroySharedTexture(device_, placeholder);
  destroyMeshPipeline(device_, pipeline);
  destroyOffscreenTarget(device_, target);
}

// ---------------------------------------------------------------------------
// Host side of the value schedule

TEST_F(RendererTest, HostSemaphoresTimelineRoundTrip) {
  createTestDevice();
  SyncSemaphores semaphores = createSyncSemaphores(device_, false);
  {
    VulkanHostSemaphores host(device_, semaphores);
    EXPECT_EQ(readTimelineCounter(device_, semaphores), 0u);
    EXPECT_TRUE(host.waitTimeline(0, 0));

    host.signalTimeline(1);
    EXPECT_TRUE(host.waitTimeline(1, kSecondNs));
    EXPECT_EQ(readTimelineCounter(device_, semaphores), 1u);

    // Never signalled: the wait reports a timeout (false) and the counter
    // has not moved. How long it took is the driver's business; a wait that
    // never returned would be caught by ctest's timeout, not by a stopwatch.
    EXPECT_FALSE(host.waitTimeline(2, 20'000'000ull));
    EXPECT_EQ(readTimelineCounter(device_, semaphores), 1u);

    // The queue's turn, submitted before the host has signalled what it waits
    // for (timeline semaphores allow wait-before-signal): waits 2, signals 3.
    const SemaphoreWait wait{semaphores.timeline, 2, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
    const SemaphoreSignal signal{semaphores.timeline, 3};
    submitToQueue(device_, VK_NULL_HANDLE, {&wait, 1}, {&signal, 1}, VK_NULL_HANDLE);
    EXPECT_FALSE(host.waitTimeline(3, 10'000'000ull));
    host.signalTimeline(2);
    EXPECT_TRUE(host.waitTimeline(3, 5 * kSecondNs));
    EXPECT_EQ(readTimelineCounter(device_, semaphores), 3u);
  }
  VK_CHECK(vkDeviceWaitIdle(device_.device));
  destroySyncSemaphores(device_, semaphores);
}

TEST_F(RendererTest, HostSemaphoresBinaryTurnsLeaveNothingSignalled) {
  createTestDevice();
  SyncSemaphores semaphores = createSyncSemaphores(device_, false);
  VkFence fence = VK_NULL_HANDLE;
  VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VK_CHECK(vkCreateFence(device_.device, &fenceInfo, nullptr, &fence));
  {
    VulkanHostSemaphores host(device_, semaphores);
    for (int frame = 0; frame < 3; ++frame) {
      // Render k: waits simDone (except frame 0), signals renderDone.
      std::vector<SemaphoreWait> waits;
      if (frame > 0) waits.push_back({semaphores.simDone, 0, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT});
      const SemaphoreSignal renderDone{semaphores.renderDone, 0};
      submitToQueue(device_, VK_NULL_HANDLE, waits, {&renderDone, 1}, VK_NULL_HANDLE);
      // Sim k on the host: consume renderDone, then signal simDone.
      ASSERT_TRUE(host.waitRenderDone(5 * kSecondNs)) << "frame " << frame;
      host.signalSimDone();
    }
    // The last simDone is consumed by a final wait, as a mode switch would.
    const SemaphoreWait last{semaphores.simDone, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
    submitToQueue(device_, VK_NULL_HANDLE, {&last, 1}, {}, fence);
    EXPECT_TRUE(waitForFence(device_, fence, 5 * kSecondNs));
  }
  VK_CHECK(vkDeviceWaitIdle(device_.device));
  vkDestroyFence(device_.device, fence, nullptr);
  destroySyncSemaphores(device_, semaphores);
}

TEST_F(RendererTest, OneTimeCommandsAndFenceWaits) {
  createTestDevice();
  FrameResources frame = createFrameResources(device_);
  EXPECT_TRUE(waitForFence(device_, frame.inFlight, 0));  // created signalled
  VK_CHECK(vkResetFences(device_.device, 1, &frame.inFlight));
  EXPECT_FALSE(waitForFence(device_, frame.inFlight, 1'000'000ull));  // nothing will signal it
  int recorded = 0;
  runOneTimeCommands(device_, [&](VkCommandBuffer commandBuffer) {
    EXPECT_NE(commandBuffer, VK_NULL_HANDLE);
    ++recorded;
  });
  EXPECT_EQ(recorded, 1);
  destroyFrameResources(device_, frame);
}

// ---------------------------------------------------------------------------
// Window (GLFW): no display, and a swapchain under Xvfb

class ScopedUnsetEnvironment {
 public:
  explicit ScopedUnsetEnvironment(const char* name) : name_(name) {
    if (const char* value = std::getenv(name)) saved_ = value;
    unsetenv(name);
  }
  ~ScopedUnsetEnvironment() {
    if (saved_) setenv(name_, saved_->c_str(), 1);
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

TEST(RendererWindow, InitWindowingWithoutADisplayReturnsFalse) {
  ScopedUnsetEnvironment display("DISPLAY"), wayland("WAYLAND_DISPLAY");
  std::string reason;
  EXPECT_FALSE(initWindowing(&reason));
  EXPECT_NE(reason.find("DISPLAY"), std::string::npos) << reason;
}

// Renders `frames` frames into the swapchain; the last one is read back
// (while still acquired: a presented image belongs to the presentation engine)
// before it is presented. Returns that image.
RgbaImage renderSwapchainFrames(const Device& device, const SwapchainTarget& target,
                                const MeshPipeline& pipeline, const SharedVertexBuffer& vertices,
                                const GridIndexBuffer& indices, FrameResources& frame, int frames) {
  RgbaImage image;
  SharedTexture placeholder = createSharedTexture(device, 1, 1, 1, TextureWriter::placeholder);
  for (int i = 0; i < frames; ++i) {
    EXPECT_TRUE(waitForFence(device, frame.inFlight, 5 * kSecondNs));
    uint32_t imageIndex = 0;
    const SwapchainStatus acquired =
        acquireSwapchainImage(device, target, frame.imageAvailable, 5 * kSecondNs, &imageIndex);
    EXPECT_TRUE(acquired == SwapchainStatus::ok || acquired == SwapchainStatus::suboptimal);
    if (acquired != SwapchainStatus::ok && acquired != SwapchainStatus::suboptimal) return image;
    VK_CHECK(vkResetFences(device.device, 1, &frame.inFlight));
    VK_CHECK(vkResetCommandBuffer(frame.commandBuffer, 0));
    VkCommandBufferBeginInfo beginInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    beginInfo.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(frame.commandBuffer, &beginInfo));
    beginRenderPass(frame.commandBuffer, target.renderPass, target.framebuffers[imageIndex], target.extent);
    recordMeshDraw(frame.commandBuffer, pipeline,
                   {vertices.buffer, placeholder.set, &indices, topDownConstants(), target.extent});
    vkCmdEndRenderPass(frame.commandBuffer);
    VK_CHECK(vkEndCommandBuffer(frame.commandBuffer));
    const SemaphoreWait wait{frame.imageAvailable, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT};
    const SemaphoreSignal signal{target.renderFinished[imageIndex], 0};
    submitToQueue(device, frame.commandBuffer, {&wait, 1}, {&signal, 1}, frame.inFlight);
    if (i + 1 == frames) {
      EXPECT_TRUE(waitForFence(device, frame.inFlight, 5 * kSecondNs));
      image = readColorImage(device, target.images[imageIndex], VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                             target.colorFormat, target.extent);
    }
    const SwapchainStatus presented = presentSwapchainImage(device, target, imageIndex);
    EXPECT_NE(presented, SwapchainStatus::timeout);
  }
  EXPECT_TRUE(waitForFence(device, frame.inFlight, 5 * kSecondNs));  // the last frame no longer reads it
  destroySharedTexture(device, placeholder);
  return image;
}

TEST(RendererWindow, SwapchainRendersPresentsAndResizesUnderXvfb) {
  // scripts/test starts Xvfb and names it in VKSIM_TEST_DISPLAY.
  const char* testDisplay = std::getenv("VKSIM_TEST_DISPLAY");
  if (testDisplay && *testDisplay) setenv("DISPLAY", testDisplay, 1);
  const char* display = std::getenv("DISPLAY");
  ASSERT_TRUE(display && *display) << "run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY";
  ValidationWatch watch;
  std::string reason;
  ASSERT_TRUE(initWindowing(&reason)) << reason;

  InstanceOptions instanceOptions;
  instanceOptions.validation = instanceOptions.synchronizationValidation = true;
  instanceOptions.extraExtensions = windowInstanceExtensions();
  EXPECT_FALSE(instanceOptions.extraExtensions.empty());
  Instance instance = createInstance(instanceOptions);
  EXPECT_TRUE(instance.validation && instance.synchronizationValidation);
  std::optional<PhysicalDeviceInfo> lavapipe = findLavapipe(instance);
  if (!lavapipe) {
    destroyInstance(instance);
    terminateWindowing();
    FAIL() << "lavapipe (package mesa-vulkan-drivers, a declared dependency) is not installed";
  }
  Window window = createWindow({320, 240}, "vkcuda-sim renderer test");
  VkSurfaceKHR surface = createWindowSurface(instance, window);
  DeviceOptions deviceOptions;
  deviceOptions.swapchain = true;
  deviceOptions.surface = surface;
  Device device = createDevice(instance, *lavapipe, deviceOptions);

  SwapchainTarget target = createSwapchainTarget(device, surface, windowFramebufferSize(window), true);
  EXPECT_EQ(target.presentMode, VK_PRESENT_MODE_FIFO_KHR);
  EXPECT_EQ(target.extent.width, 320u);
  EXPECT_EQ(target.extent.height, 240u);
  EXPECT_EQ(target.renderFinished.size(), target.images.size());
  EXPECT_GE(target.minImageCount, 2u);
  const VkRenderPass firstRenderPass = target.renderPass;

  constexpr uint32_t kGrid = 32;
  MeshPipeline pipeline = createMeshPipeline(device, target.renderPass);
  GridIndexBuffer indices = createGridIndexBuffer(device, kGrid);
  SharedVertexBuffer vertices = createSharedVertexBuffer(device, VkDeviceSize{kGrid} * kGrid * sizeof(Vertex),
                                                         VertexMemory::hostVisible, false);
  writeTestGrid(static_cast<Vertex*>(vertices.mapped), kGrid);
  FrameResources frame = createFrameResources(device);

  RgbaImage image = renderSwapchainFrames(device, target, pipeline, vertices, indices, frame, 3);
  ASSERT_EQ(image.pixels.size(), size_t{320} * 240 * 4);
  keepImageIfAsked(image, "renderer_swapchain");
  // Corners show the clear colour (as stored: sRGB-encoded on an SRGB
  // swapchain, so not compared with kBackgroundColor's bytes); the centre is mesh.
  const uint8_t* first = &image.pixels[0];
  const uint8_t* last = &image.pixels[image.pixels.size() - 4];
  const uint8_t* centre = &image.pixels[(size_t{120} * 320 + 160) * 4];
  EXPECT_TRUE(std::equal(first, first + 4, last));
  EXPECT_FALSE(std::equal(first, first + 4, centre));
  EXPECT_EQ(first[3], 255);

  // Resize: GLFW's callback is recorded and surfaces through pollWindowEvents.
  glfwSetWindowSize(window.handle, 400, 300);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!window.framebufferResized && std::chrono::steady_clock::now() < deadline) pollWindowEvents(window);
  EXPECT_TRUE(window.framebufferResized);
  window.framebufferResized = false;
  const VkExtent2D resized = windowFramebufferSize(window);
  EXPECT_EQ(resized.width, 400u);
  EXPECT_EQ(resized.height, 300u);
  VK_CHECK(vkDeviceWaitIdle(device.device));
  recreateSwapchainTarget(device, target, resized, false);  // and vsync off
  EXPECT_EQ(target.extent.width, 400u);
  EXPECT_EQ(target.extent.height, 300u);
  EXPECT_FALSE(target.vsync);
  EXPECT_EQ(target.renderPass, firstRenderPass);  // same format: same render pass
  EXPECT_EQ(target.renderFinished.size(), target.images.size());
  image = renderSwapchainFrames(device, target, pipeline, vertices, indices, frame, 2);
  EXPECT_EQ(image.width, 400u);
  keepImageIfAsked(image, "renderer_swapchain_resized");

  VK_CHECK(vkDeviceWaitIdle(device.device));
  destroyFrameResources(device, frame);
  destroySharedVertexBuffer(device, vertices);
  destroyGridIndexBuffer(device, indices);
  destroyMeshPipeline(device, pipeline);
  destroySwapchainTarget(device, target);
  destroyDevice(device);
  vkDestroySurfaceKHR(instance.instance, surface, nullptr);
  destroyWindow(window);
  destroyInstance(instance);
  terminateWindowing();
  EXPECT_EQ(watch.newWarnings(), 0u);
  EXPECT_EQ(watch.newErrors(), 0u);
}

}  // namespace
}  // namespace vksim
