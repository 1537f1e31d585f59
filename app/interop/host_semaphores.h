// HostSemaphoreOps (declared by sim/) implemented with Vulkan, for the CPU
// backend's turn in the value schedule.
#pragma once
#include "renderer/frame_sync.h"
#include "renderer/shared_resources.h"
#include "sim/host_sync.h"

namespace vksim {

// The binary operations submit to device.queue, which Vulkan requires to be
// externally synchronised: call them from the thread that submits frames, or
// serialise them with it.
class VulkanHostSemaphores final : public HostSemaphoreOps {
 public:
  // device and semaphores must outlive this object.
  VulkanHostSemaphores(const Device& device, const SyncSemaphores& semaphores);
  ~VulkanHostSemaphores() override;
  VulkanHostSemaphores(const VulkanHostSemaphores&) = delete;
  VulkanHostSemaphores& operator=(const VulkanHostSemaphores&) = delete;

  bool waitTimeline(uint64_t value, uint64_t timeoutNs) override;  // vkWaitSemaphores
  void signalTimeline(uint64_t value) override;                    // vkSignalSemaphore
  bool waitRenderDone(uint64_t timeoutNs) override;  // submit waiting renderDone + fence wait
  void signalSimDone() override;                     // submit signalling simDone

 private:
  const Device& device_;
  const SyncSemaphores& semaphores_;
  VkFence fence_ = VK_NULL_HANDLE;
  // A waitRenderDone submission whose fence wait timed out: the next call
  // waits for it again instead of submitting (and consuming) a second wait.
  bool renderDoneWaitPending_ = false;
};

}  // namespace vksim
