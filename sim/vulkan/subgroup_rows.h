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

// What the environment asks for: "1" the variant; "strict" the variant
// without its fallback for partial subgroups (cellsAlone in
// ripple_step_rows.comp), so that dumps identical to the tile step's show
// that the strips wrote every cell: a workgroup of partial subgroups then
// writes nothing; anything else (or nothing) the tile.
enum class SubgroupRows { off, on, strict };
SubgroupRows subgroupRowsRequested();

// ripple_step_rows.comp's specialization constants: 0 the strip width, 1
// whether partial subgroups run cellsAlone.
struct SubgroupRowsConstants {
  uint32_t width = 0;
  VkBool32 cellsAlone = VK_TRUE;
};

// The subgroup size ripple_step_rows.comp runs with on `physical` (its
// strip width): VkPhysicalDeviceSubgroupProperties::subgroupSize when the
// compute stage has the basic, shuffle and relative-shuffle operations and
// the size is at least 2 (a one-lane subgroup has no neighbour to share
// with) and divides the workgroup (kRippleRowsInvocations). 0 otherwise, with *why saying what is missing.
uint32_t subgroupRowsWidth(VkPhysicalDevice physical, std::string* why);

}  // namespace vksim
