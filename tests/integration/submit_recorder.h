// A test seam for the semaphore waits the program submits: while a
// SubmitRecorder lives, every vkQueueSubmit call (volk's global function
// pointer, which renderer/frame_sync.cpp calls) is copied into `waits`, one
// entry per wait semaphore with its pWaitDstStageMask entry, and passed on to
// the driver. The validation layer (1.3.239) does not check that a wait
// which orders an acquire from VK_QUEUE_FAMILY_EXTERNAL is at ALL_COMMANDS,
// so only a record of the submissions shows the stage. Create it after the
// device is loaded (volkLoadDevice rewrites the pointer) and let it go
// before the device does.
#pragma once
#include <volk.h>

#include <vector>

namespace vksim::testing {

struct RecordedWait {
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VkPipelineStageFlags stage = 0;
  uint64_t submission = 0;  // which vkQueueSubmit call, from 0
};

class SubmitRecorder {
 public:
  SubmitRecorder() : previous_(vkQueueSubmit) {
    active() = this;
    vkQueueSubmit = &record;
  }
  ~SubmitRecorder() {
    vkQueueSubmit = previous_;
    active() = nullptr;
  }
  SubmitRecorder(const SubmitRecorder&) = delete;
  SubmitRecorder& operator=(const SubmitRecorder&) = delete;

  std::vector<RecordedWait> waits;
  uint64_t submissions = 0;

  // The waits on `semaphore`, in submission order.
  std::vector<RecordedWait> waitsOn(VkSemaphore semaphore) const {
    std::vector<RecordedWait> found;
    for (const RecordedWait& wait : waits)
      if (wait.semaphore == semaphore) found.push_back(wait);
    return found;
  }

 private:
  static SubmitRecorder*& active() {
    static SubmitRecorder* recorder = nullptr;
    return recorder;
  }

  static VKAPI_ATTR VkResult VKAPI_CALL record(VkQueue queue, uint32_t count, const VkSubmitInfo* submits,
                                               VkFence fence) {
    SubmitRecorder* self = active();
    for (uint32_t s = 0; s < count; ++s)
      for (uint32_t w = 0; w < submits[s].waitSemaphoreCount; ++w)
        self->waits.push_back(
            {submits[s].pWaitSemaphores[w], submits[s].pWaitDstStageMask[w], self->submissions});
    ++self->submissions;
    return self->previous_(queue, count, submits, fence);
  }

  PFN_vkQueueSubmit previous_;
};

}  // namespace vksim::testing
