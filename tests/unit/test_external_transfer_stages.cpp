// What VK_KHR_maintenance8 changes in the ownership transfers to and from
// VK_QUEUE_FAMILY_EXTERNAL (renderer/external_transfer_stages.h; rules
// M21 and M22 in docs/interop-reference.md): every mask and flag,
// exactly, both ways, with and without the extension.
#include <gtest/gtest.h>

#include <string>

#include "renderer/external_transfer_stages.h"

namespace vksim {
namespace {

constexpr VkPipelineStageFlags kAllCommands = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
constexpr VkPipelineStageFlags kVertexInput = VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;
constexpr VkPipelineStageFlags kFragment = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
// vk.xml: bitpos 5 of VkDependencyFlagBits, written out here on its own so
// that a wrong value in renderer/vk_newer_definitions.h fails.
constexpr VkDependencyFlags kUseAllStagesBit = 0x20;

// Without the extension: the wait and the acquire's source stage are
// ALL_COMMANDS (the transfer belongs to no stage), the destination is the
// consumer's, no flag; exactly what the frame recorded before maintenance8.
TEST(ExternalTransferStages, AcquireWithoutMaintenance8WaitsAtAllCommands) {
  for (const VkPipelineStageFlags consumer : {kVertexInput, kVertexInput | kFragment, kAllCommands}) {
    const ExternalTransferStages acquire = externalAcquireStages(false, consumer);
    EXPECT_EQ(acquire.semaphoreWaitStage, kAllCommands);
    EXPECT_EQ(acquire.srcStageMask, kAllCommands);
    EXPECT_EQ(acquire.dstStageMask, consumer);
    EXPECT_EQ(acquire.dependencyFlags, 0u);
  }
}

// With it: the flag, and the consumer's stage for the wait and both masks.
TEST(ExternalTransferStages, AcquireWithMaintenance8UsesTheConsumersStageEverywhere) {
  const ExternalTransferStages vertices = externalAcquireStages(true, kVertexInput);
  EXPECT_EQ(vertices.semaphoreWaitStage, kVertexInput);
  EXPECT_EQ(vertices.srcStageMask, kVertexInput);
  EXPECT_EQ(vertices.dstStageMask, kVertexInput);
  EXPECT_EQ(vertices.dependencyFlags, kUseAllStagesBit);
  const ExternalTransferStages texture = externalAcquireStages(true, kVertexInput | kFragment);
  EXPECT_EQ(texture.semaphoreWaitStage, kVertexInput | kFragment);
  EXPECT_EQ(texture.srcStageMask, kVertexInput | kFragment);
  EXPECT_EQ(texture.dstStageMask, kVertexInput | kFragment);
  EXPECT_EQ(texture.dependencyFlags, kUseAllStagesBit);
  // The drain: anything may follow it, so the narrow stage is every stage.
  const ExternalTransferStages drain = externalAcquireStages(true, kAllCommands);
  EXPECT_EQ(drain.semaphoreWaitStage, kAllCommands);
  EXPECT_EQ(drain.srcStageMask, kAllCommands);
  EXPECT_EQ(drain.dstStageMask, kAllCommands);
  EXPECT_EQ(drain.dependencyFlags, kUseAllStagesBit);
}

// A release's first scope is the caller's either way; without the extension
// its destination is ignored by the spec and recorded as BOTTOM_OF_PIPE, as
// before; with it, the destination equals the source, and the flag.
TEST(ExternalTransferStages, ReleaseKeepsItsFirstScopeAndGainsADestinationOnlyWithMaintenance8) {
  for (const VkPipelineStageFlags access : {kVertexInput, kFragment, kAllCommands}) {
    const ExternalTransferStages classic = externalReleaseStages(false, access);
    EXPECT_EQ(classic.semaphoreWaitStage, 0u);
    EXPECT_EQ(classic.srcStageMask, access);
    EXPECT_EQ(classic.dstStageMask, VkPipelineStageFlags(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT));
    EXPECT_EQ(classic.dependencyFlags, 0u);
    const ExternalTransferStages narrow = externalReleaseStages(true, access);
    EXPECT_EQ(narrow.semaphoreWaitStage, 0u);
    EXPECT_EQ(narrow.srcStageMask, access);
    EXPECT_EQ(narrow.dstStageMask, access);
    EXPECT_EQ(narrow.dependencyFlags, kUseAllStagesBit);
  }
}

TEST(ExternalTransferStages, SummaryNamesWhichFormRan) {
  EXPECT_EQ(std::string(transferStagesName(true)), "narrow");
  EXPECT_EQ(std::string(transferStagesName(false)), "all-commands");
}

}  // namespace
}  // namespace vksim
