// LAB VARIANT, internal to sim/vulkan/: whether the Vulkan backend's ripple
// step runs as subgroup rows (ripple_step_rows.comp) instead of the tile
// (ripple_step.comp), to measure on the GPU whether the tile's shared memory
// and barriers are what keeps it slower than the CUDA kernel. Off unless
// VKSIM_LAB_VULKAN_SUBGROUP_ROWS=1; never the default.
#pragma once
#include <volk.h>

#include <cstdint>
#include <string>

namespace vksim {

inline constexpr const char* kSubgroupRowsVariable = "VKSIM_LAB_VULKAN_SUBGROUP_ROWS";

// Whether the environment asks for the variant (the variable is "1").
bool subgroupRowsRequested();

// The subgroup size ripple_step_rows.comp runs with on `physical` (its
// strip width): VkPhysicalDeviceSubgroupProperties::subgroupSize when the
// compute stage has the basic, shuffle and relative-shuffle operations and
// the size is at least 2 (a one-lane subgroup has no neighbour to share
// with) and divides the workgroup (kRippleRowsInvocations). 0 otherwise, with *why saying what is missing.
uint32_t subgroupRowsWidth(VkPhysicalDevice physical, std::string* why);

}  // namespace vksim
