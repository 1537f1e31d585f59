// The stage masks and dependency flags of a queue family ownership transfer
// to or from VK_QUEUE_FAMILY_EXTERNAL, and of the semaphore wait that orders
// an acquire: the one place that decides them, with or without
// VK_KHR_maintenance8 (docs/interop-reference.md, rules M21 and
// M22). Pure functions: no device, no Vulkan call, unit-tested on any
// machine.
#pragma once
#include <volk.h>

namespace vksim {

// What to record for one transfer barrier (vkCmdPipelineBarrier's
// srcStageMask, dstStageMask and dependencyFlags) and, for an acquire, the
// pWaitDstStageMask entry of the semaphore wait on the other API's signal
// that orders it (0 for a release: the signal later in the same batch
// orders it, whatever its stages).
struct ExternalTransferStages {
  VkPipelineStageFlags semaphoreWaitStage = 0;
  VkPipelineStageFlags srcStageMask = 0;
  VkPipelineStageFlags dstStageMask = 0;
  VkDependencyFlags dependencyFlags = 0;
};

// An acquire from VK_QUEUE_FAMILY_EXTERNAL for Vulkan accesses at
// `consumerStages` (VERTEX_INPUT for the vertex buffer, FRAGMENT_SHADER for
// the texture, ALL_COMMANDS for the drain, after which anything may come):
// - without maintenance8, the acquire happens in no defined stage, so the
//   wait is at ALL_COMMANDS and the barrier's srcStageMask is ALL_COMMANDS to
//   chain with it; dstStageMask is consumerStages; flags 0;
// - with maintenance8 (its feature enabled on the device), the barrier
//   carries VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR,
//   its first scope then applies to the acquire, and the wait, srcStageMask
//   and dstStageMask are all consumerStages.
ExternalTransferStages externalAcquireStages(bool maintenance8, VkPipelineStageFlags consumerStages);

// A release to VK_QUEUE_FAMILY_EXTERNAL after Vulkan accesses at
// `accessStages` (its first scope, which applies either way):
// - without maintenance8, dstStageMask is ignored for a release: it is
//   BOTTOM_OF_PIPE (nothing after it in the batch waits on it); flags 0;
// - with maintenance8, the flag, and dstStageMask = accessStages (the
//   extension's advice: the destination stage equal to the source stage).
ExternalTransferStages externalReleaseStages(bool maintenance8, VkPipelineStageFlags accessStages);

// "narrow" or "all-commands": the summary line's transfer_stages value.
const char* transferStagesName(bool maintenance8);

}  // namespace vksim
