#include "renderer/vk_newer_definitions.h"
#include "renderer/external_transfer_stages.h"

namespace vksim {

// The synchronization chapter, "Queue Family Ownership Transfer": an acquire
// operation's srcStageMask, and a release operation's dstStageMask, are
// ignored unless dependencyFlags includes
// VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR; before
// that bit, "VK_PIPELINE_STAGE_ALL_COMMANDS_BIT is the only valid stage to
// wait on or wait for these operations, as the acquire and release
// operations do not occur in a defined stage". With the bit, "these stages
// now synchronize the acquire and release operations".
ExternalTransferStages externalAcquireStages(bool maintenance8, VkPipelineStageFlags consumerStages) {
  if (!maintenance8)
    return {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, consumerStages, 0};
  return {consumerStages, consumerStages, consumerStages,
          VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR};
}

ExternalTransferStages externalReleaseStages(bool maintenance8, VkPipelineStageFlags accessStages) {
  if (!maintenance8) return {0, accessStages, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0};
  // VK_KHR_maintenance8's proposal: "Keeping the destination stage equal to
  // the source stage will generally minimize over synchronization".
  return {0, accessStages, accessStages, VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR};
}

const char* transferStagesName(bool maintenance8) { return maintenance8 ? "narrow" : "all-commands"; }

}  // namespace vksim
