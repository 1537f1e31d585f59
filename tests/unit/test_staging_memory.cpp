// The copy path's staging memory type is the one measured fastest among the
// host-visible coherent types the buffer allows; the flags alone never
// decide. Fake memory types and fake speeds, so the choice is known.
#include <gtest/gtest.h>

#include "renderer/staging_memory.h"

namespace vksim {
namespace {

constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags kCoherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kCached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
constexpr VkMemoryPropertyFlags kRequired = kVisible | kCoherent;

// The shape of a discrete GPU's list: device-local, write-combined host,
// cached host, device-local mapped through a large BAR, and a non-coherent
// host type.
VkPhysicalDeviceMemoryProperties fakeTypes() {
  VkPhysicalDeviceMemoryProperties memory{};
  const VkMemoryPropertyFlags flags[] = {kLocal, kVisible | kCoherent, kVisible | kCoherent | kCached,
                                         kLocal | kVisible | kCoherent, kVisible | kCached};
  memory.memoryTypeCount = 5;
  for (uint32_t t = 0; t < 5; ++t) memory.memoryTypes[t] = {flags[t], t == 0 || t == 3 ? 0u : 1u};
  memory.memoryHeapCount = 2;
  return memory;
}

struct FakeSpeeds {
  std::vector<std::optional<double>> gbps;
  std::vector<uint32_t> asked;
  std::optional<double> operator()(uint32_t type) {
    asked.push_back(type);
    return gbps[type];
  }
};

TEST(StagingMemory, TheFastestQualifyingTypeWinsWhateverItsFlags) {
  FakeSpeeds speeds{{100.0, 6.0, 21.0, 12.0, 50.0}, {}};
  std::vector<MemoryTypeSpeed> measured;
  const uint32_t chosen = chooseFastestMemoryType(fakeTypes(), 0b11111, kRequired, std::ref(speeds), &measured);
  EXPECT_EQ(chosen, 2u);  // cached beats write-combined and BAR here; 0 and 4 lack coherent host access
  EXPECT_EQ(speeds.asked, (std::vector<uint32_t>{1, 2, 3}));
  ASSERT_EQ(measured.size(), 3u);
  EXPECT_EQ(measured[2].type, 3u);
  EXPECT_EQ(measured[2].flags, kLocal | kVisible | kCoherent);
  EXPECT_DOUBLE_EQ(*measured[0].gbps, 6.0);
}

TEST(StagingMemory, AnotherMachineRanksTheSameTypesDifferently) {
  FakeSpeeds speeds{{100.0, 6.0, 4.0, 25.0, 50.0}, {}};
  EXPECT_EQ(chooseFastestMemoryType(fakeTypes(), 0b11111, kRequired, std::ref(speeds)), 3u);
}

TEST(StagingMemory, OnlyTypesTheBufferAllowsAreMeasured) {
  FakeSpeeds speeds{{100.0, 6.0, 21.0, 12.0, 50.0}, {}};
  EXPECT_EQ(chooseFastestMemoryType(fakeTypes(), 0b01011, kRequired, std::ref(speeds)), 3u);
  EXPECT_EQ(speeds.asked, (std::vector<uint32_t>{1, 3}));
}

TEST(StagingMemory, EqualSpeedsKeepTheLowerIndexAndUnmeasuredTypesAreSkipped) {
  FakeSpeeds equal{{0.0, 9.0, 9.0, 9.0, 0.0}, {}};
  EXPECT_EQ(chooseFastestMemoryType(fakeTypes(), 0b11111, kRequired, std::ref(equal)), 1u);
  FakeSpeeds failedAllocation{{0.0, std::nullopt, 3.0, std::nullopt, 0.0}, {}};
  EXPECT_EQ(chooseFastestMemoryType(fakeTypes(), 0b11111, kRequired, std::ref(failedAllocation)), 2u);
  FakeSpeeds nothing{{0.0, std::nullopt, std::nullopt, std::nullopt, 0.0}, {}};
  EXPECT_EQ(chooseFastestMemoryType(fakeTypes(), 0b11111, kRequired, std::ref(nothing)), UINT32_MAX);
  FakeSpeeds unused{{1.0, 1.0, 1.0, 1.0, 1.0}, {}};
  EXPECT_EQ(chooseFastestMemoryType(fakeTypes(), 0b10001, kRequired, std::ref(unused)), UINT32_MAX);
  EXPECT_TRUE(unused.asked.empty());
}

TEST(StagingMemory, TheThreadCountIsTheMeasuredFastestAndOneWithoutAMeasurement) {
  std::vector<uint32_t> asked;
  const auto speeds = [&](std::vector<std::optional<double>> gbps) {
    return [&asked, gbps](uint32_t threads) {
      asked.push_back(threads);
      return gbps[threads == 1 ? 0 : threads == 2 ? 1 : threads == 4 ? 2 : 3];
    };
  };
  EXPECT_EQ(chooseFastestThreadCount({1, 2, 4, 8}, speeds({6.0, 11.0, 19.0, 18.0})), 4u);
  EXPECT_EQ(asked, (std::vector<uint32_t>{1, 2, 4, 8}));
  EXPECT_EQ(chooseFastestThreadCount({1, 2, 4, 8}, speeds({30.0, 12.0, 9.0, 5.0})), 1u);  // cached memory: one core suffices
  EXPECT_EQ(chooseFastestThreadCount({1, 2}, speeds({7.0, 7.0})), 1u);
  EXPECT_EQ(chooseFastestThreadCount({1, 2}, speeds({std::nullopt, std::nullopt})), 1u);
}

TEST(StagingMemory, EveryThreadCountCopiesEveryByte) {
  std::vector<unsigned char> source(3 * 4096 + 123);
  for (size_t k = 0; k < source.size(); ++k) source[k] = static_cast<unsigned char>(k * 7 + 3);
  for (uint32_t threads : {1u, 2u, 3u, 8u, 64u}) {
    StagingChoice choice;
    choice.hostThreads = threads;
    std::vector<unsigned char> destination(source.size(), 0);
    copyIntoStaging(choice, destination.data(), source.data(), source.size());
    EXPECT_EQ(destination, source) << threads << " threads";
  }
}

}  // namespace
}  // namespace vksim
