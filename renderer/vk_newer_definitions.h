// Definitions from the Vulkan registry that Debian 12's headers (1.3.239)
// lack: only what this program uses, each copied from the registry's
// vk.xml by name and value, so that the program can ask a newer driver for
// it. Nothing else may declare Vulkan names by hand.
#pragma once
#include <volk.h>

// VK_NV_external_compute_queue (registry extension 557): asked about only, to
// report whether CUDA in Graphics could run beside this device
// (--list-devices, docs/benchmarks.md).
#ifndef VK_NV_EXTERNAL_COMPUTE_QUEUE_EXTENSION_NAME
#define VK_NV_EXTERNAL_COMPUTE_QUEUE_EXTENSION_NAME "VK_NV_external_compute_queue"
#endif

// VK_KHR_maintenance8 (registry extension 575, spec version 1, device
// extension, depends on Vulkan 1.1): the one feature of it that this program
// uses is "src/dst sync scopes for queue family ownership transfers"
// (docs/interop-reference.md, rule M22). Each value below is vk.xml's:
// the extension's <require> block for the names and enum offsets and bit
// position, the <type name="VkPhysicalDeviceMaintenance8FeaturesKHR"> block
// for the structure (Vulkan-Docs, xml/vk.xml). Headers new enough to have the
// extension define them all themselves, and VK_KHR_maintenance8 with them:
// this block then steps aside.
#ifndef VK_KHR_maintenance8
// <enum value="&quot;VK_KHR_maintenance8&quot;" name="VK_KHR_MAINTENANCE_8_EXTENSION_NAME"/>
#define VK_KHR_MAINTENANCE_8_EXTENSION_NAME "VK_KHR_maintenance8"
// <enum offset="0" extends="VkStructureType" name="VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_8_FEATURES_KHR"/>:
// 1000000000 + (575 - 1) * 1000 + 0 (the registry's rule for extension enums).
inline constexpr VkStructureType VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_8_FEATURES_KHR =
    static_cast<VkStructureType>(1000574000);
// <enum bitpos="5" extends="VkDependencyFlagBits"
//       name="VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR"/>:
// with it in vkCmdPipelineBarrier's dependencyFlags, a queue family ownership
// transfer's acquire is in the barrier's first synchronization scope and its
// release in the second, so both stage masks mean what they say (the
// synchronization chapter, "Queue Family Ownership Transfer"; valid only with
// the maintenance8 feature enabled, VUID-vkCmdPipelineBarrier-maintenance8-10206).
inline constexpr VkDependencyFlagBits VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR =
    static_cast<VkDependencyFlagBits>(0x00000020);
// <type category="struct" name="VkPhysicalDeviceMaintenance8FeaturesKHR"
//       structextends="VkPhysicalDeviceFeatures2,VkDeviceCreateInfo">
typedef struct VkPhysicalDeviceMaintenance8FeaturesKHR {
  VkStructureType sType;  // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_8_FEATURES_KHR
  void* pNext;
  VkBool32 maintenance8;
} VkPhysicalDeviceMaintenance8FeaturesKHR;
#endif
