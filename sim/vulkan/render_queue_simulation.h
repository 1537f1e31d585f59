// The seam for simulations that run in the render's own Vulkan queue: the
// Vulkan compute backend (sim/vulkan/) and the CUDA kernels launched through
// VK_NVX_binary_import (sim/cuda_nvx/). Each records one step into a command
// buffer of its own; the frame loop submits it as the second batch
// (VkSubmitInfo) of the render's vkQueueSubmit, with the value schedule's
// waits and signals (app/interop/queue_submission.h). No context switch
// happens between the two batches: both run in the Vulkan device's context.
//
// This header may use Vulkan types (it is the backends' own); sim/'s public
// headers stay free of them.
#pragma once
#include <volk.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "sim/simulation.h"

namespace vksim {

// What a render-queue simulation gets from app/ (which owns every object
// named here and keeps it alive longer than the simulation).
struct RenderQueueContext {
  VkDevice device = VK_NULL_HANDLE;
  std::string deviceName;  // for reports
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memoryProperties{};
  uint32_t queueFamily = 0;  // the render queue's family: the command pool's
  // The shared vertex buffer (grid*grid Vertex), created with STORAGE_BUFFER
  // usage (both backends: the compute shaders read or write it), and for the
  // cuda-nvx backend SHADER_DEVICE_ADDRESS usage on memory allocated with
  // VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT.
  VkBuffer vertexBuffer = VK_NULL_HANDLE;
  VkDeviceSize vertexBytes = 0;
  // The surface texture that every step writes with the vertices
  // (sim/vulkan/surface_texture_writer.h says what the image must be), or
  // VK_NULL_HANDLE when the texture is off: the step writes the vertices only.
  VkImage textureImage = VK_NULL_HANDLE;
  uint32_t textureLevels = 0;  // every level of a grid x grid image: floor(log2(grid)) + 1
  // Whether the timestamps of the queue family are valid (timestampValidBits > 0).
  bool timestamps = false;
  // Submits `commandBuffer` alone on the render queue, signalling simDone
  // (binary): the initial write, which render 0 waits on. Throws on failure.
  std::function<void(VkCommandBuffer commandBuffer)> submitInitialWrite;
  // Blocks until everything submitted to the render queue so far has
  // completed, at most timeoutNs; false on timeout.
  std::function<bool(uint64_t timeoutNs)> waitForQueue;
  // A device timestamp (ticks, masked) on the host clock (steady_clock
  // nanoseconds); nothing when the device's clock cannot be calibrated.
  std::function<std::optional<int64_t>(uint64_t ticks)> ticksToHostNs;
};

// One recorded step, for the frame loop's second batch.
struct RecordedStep {
  VkCommandBuffer commandBuffer = VK_NULL_HANDLE;  // ended, ready to submit; owned by the simulation
  // The step signals the schedule's semaphore. False under
  // --inject-fault sim-skips-signal: the frame loop leaves the signal out.
  bool signals = true;
};

// A simulation whose step runs inside the render's queue submission: it
// cannot submit its step itself, so it has no step(); the frame loop records
// the step with recordStep and submits it with the render.
class RenderQueueSimulation : public SimulationBackend {
 public:
  // Records step k (advance = false: a paused step, which writes nothing:
  // the command buffer holds only its barriers and timestamps) into one of
  // the simulation's kMaxFramesInFlight command buffers (base/config.h) and
  // returns it. The frame loop has waited for the fence
  // of step k - kMaxFramesInFlight's submission, that command buffer's last;
  // step k-1's may still be queued. The command buffer begins with the barriers that order its
  // writes after the render's vertex reads and ends with the barrier that
  // makes its vertex writes visible to the next render's vertex input; with a
  // texture (RenderQueueContext::textureImage), an advancing step writes
  // every level of it with the vertices and leaves it visible to the next
  // render's fragment shader. The semaphores are the frame loop's.
  virtual RecordedStep recordStep(const StepSync& sync, bool advance) = 0;

  // "vulkan compute shaders in the render queue" or the like: for reports.
  virtual std::string pathDescription() const = 0;
  // One line that app/ prints on stdout once the simulation is made (the
  // shape the Vulkan backend's ripple step takes), or empty: sim/ prints
  // nothing itself but failures.
  virtual std::string startLine() const { return ""; }
};

// The Vulkan compute backend (--backend vulkan): GLSL compute shaders
// (sim/vulkan/*.comp) writing the shared vertex buffer through a storage
// buffer descriptor. The model state (height fields) lives in its own
// device-local buffer. Error (exit 3) when a buffer or pipeline cannot be
// made; params.grid must be within [kMinGrid, kMaxGrid].
Result<std::unique_ptr<RenderQueueSimulation>> createVulkanComputeSimulation(const ModelParams& params,
                                                                             const RenderQueueContext& context);

// The CUDA kernels of sim/cuda/cuda_kernels.cuh launched with
// vkCmdCuLaunchKernelNVX (--backend cuda-nvx): needs a device created with
// VK_NVX_binary_import, VK_NVX_image_view_handle (the kernels write the
// texture through its views' handles) and the bufferDeviceAddress feature.
// Loads the embedded fatbin (vkCreateCuModuleNVX) and its kernels
// (vkCreateCuFunctionNVX); Error (exit 3) when the driver refuses them.
Result<std::unique_ptr<RenderQueueSimulation>> createCudaNvxSimulation(const ModelParams& params,
                                                                       const RenderQueueContext& context);

}  // namespace vksim
