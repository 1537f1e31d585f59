// --memory-owner on the command line: the default, the values, and the
// combinations that contradict it (exit 2, one line, before anything runs).
#include <gtest/gtest.h>

#include "cli_parse.h"

namespace vksim {
namespace {

using testing::parseArguments;

TEST(CliMemoryOwner, DefaultsToVulkanAndTakesCuda) {
  const Result<Options> plain = parseArguments({"--headless"});
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->memoryOwner, MemoryOwner::vulkan);
  const Result<Options> cuda = parseArguments({"--memory-owner", "cuda", "--backend", "cuda"});
  ASSERT_TRUE(cuda.has_value()) << cuda.error().message;
  EXPECT_EQ(cuda->memoryOwner, MemoryOwner::cuda);
  // auto may still become cuda: the environment decides (exit 3 if not).
  EXPECT_TRUE(parseArguments({"--memory-owner", "cuda"}).has_value());
  EXPECT_STREQ(toString(MemoryOwner::cuda), "cuda");
  EXPECT_STREQ(toString(MemoryOwner::vulkan), "vulkan");
}

TEST(CliMemoryOwner, BenchTakesItWithTheZeroCopyTransferOnly) {
  const Result<Options> bench =
      parseArguments({"bench", "--memory-owner", "cuda", "--transfer", "zero-copy", "--grids", "512"});
  ASSERT_TRUE(bench.has_value()) << bench.error().message;
  EXPECT_EQ(bench->memoryOwner, MemoryOwner::cuda);
  // The bench's default transfers include the copy path.
  const Result<Options> both = parseArguments({"bench", "--memory-owner", "cuda"});
  ASSERT_FALSE(both.has_value());
  EXPECT_EQ(both.error().exitCode, kExitUsage);
}

struct Contradiction {
  std::vector<std::string> args;
  const char* mentions;
};

class CliMemoryOwnerRejects : public ::testing::TestWithParam<Contradiction> {};

TEST_P(CliMemoryOwnerRejects, WithExitCodeTwoAndOneLine) {
  const Result<Options> outcome = parseArguments(GetParam().args);
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().exitCode, kExitUsage);
  const std::string& message = outcome.error().message;
  EXPECT_NE(message.find(GetParam().mentions), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), message.size() - 1) << "one line: " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, CliMemoryOwnerRejects,
    ::testing::Values(Contradiction{{"--memory-owner", "gpu"}, "--memory-owner"},
                      Contradiction{{"--memory-owner", "cuda", "--backend", "cpu"}, "--backend cpu"},
                      Contradiction{{"--memory-owner", "cuda", "--transfer", "copy"}, "--transfer zero-copy"},
                      Contradiction{{"--memory-owner", "cuda", "--backend", "cuda", "--transfer", "copy"},
                                    "copy path"}));

}  // namespace
}  // namespace vksim
