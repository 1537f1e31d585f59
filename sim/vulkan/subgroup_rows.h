// Which shape the Vulkan backend's ripple step runs as: subgroup rows
// (ripple_step_rows.comp: each subgroup a strip of rows, neighbours shared by
// shuffles, no shared memory or barrier) wherever the device offers what
// they need, else the tile (ripple_step.comp: a workgroup's tile staged in
// shared memory between two barriers). Both compute the same vertices;
// docs/queue-backends.md says why rows are the default (the H200's step time).
#pragma once
#include <volk.h>

#include <cstdint>
#include <string>

namespace vksim {

// ripple_step_rows.comp's specialization constants: 0 the strip width, 1
// whether a workgroup whose subgroups are not whole computes its cells one
// by one (cellsAlone) or, under VKSIM_STRICT_SUBGROUP_ROWS=1, writes nothing.
struct SubgroupRowsConstants {
  uint32_t width = 0;
  VkBool32 cellsAlone = VK_TRUE;
};

// The rows step's constants on `physical`, or width 0 (the tile step) with
// *why saying why: VKSIM_VULKAN_TILE_STEP=1 (base/config.h), or what the
// device lacks. The strip width is VkPhysicalDeviceSubgroupProperties::
// subgroupSize when the compute stage has the basic, shuffle and relative-
// shuffle operations and the size is at least 2 (a one-lane subgroup has no
// neighbour to share with) and divides the workgroup (kRippleRowsInvocations).
SubgroupRowsConstants chooseSubgroupRows(VkPhysicalDevice physical, std::string* why);

}  // namespace vksim
