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
