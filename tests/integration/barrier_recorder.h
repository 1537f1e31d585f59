// A test seam for the barriers the program records: while a BarrierRecorder
// lives, every vkCmdPipelineBarrier call (volk's global function pointer,
// which every room calls through) is copied into `barriers` and, when
// `forward` is set, passed on to the driver. The validation layer does not
// check queue family ownership transfers to or from VK_QUEUE_FAMILY_EXTERNAL,
// so only a record of the barriers shows that they name EXTERNAL. Create the
// recorder after the device is loaded (volkLoadDevice rewrites the pointer)
// and let it go before the device does.
#pragma once
#include <volk.h>

#include <vector>

namespace vksim::testing {

struct RecordedBarrier {
  VkPipelineStageFlags srcStage = 0, dstStage = 0;
  VkDependencyFlags dependencyFlags = 0;
  std::vector<VkBufferMemoryBarrier> buffers;
  std::vector<VkImageMemoryBarrier> images;
};

class BarrierRecorder {
 public:
  // forward = false records without calling the driver: for barriers
  // recorded into no real command buffer, with handles that stand for none.
  explicit BarrierRecorder(bool forward = true) : forward_(forward), previous_(vkCmdPipelineBarrier) {
    active() = this;
    vkCmdPipelineBarrier = &record;
  }
  ~BarrierRecorder() {
    vkCmdPipelineBarrier = previous_;
    active() = nullptr;
  }
  BarrierRecorder(const BarrierRecorder&) = delete;
  BarrierRecorder& operator=(const BarrierRecorder&) = delete;

  std::vector<RecordedBarrier> barriers;

  // The buffer barriers on `buffer` that move it from `srcFamily` to `dstFamily`.
  std::vector<RecordedBarrier> transfersOf(VkBuffer buffer, uint32_t srcFamily, uint32_t dstFamily) const {
    std::vector<RecordedBarrier> found;
    for (const RecordedBarrier& barrier : barriers)
      for (const VkBufferMemoryBarrier& b : barrier.buffers)
        if (b.buffer == buffer && b.srcQueueFamilyIndex == srcFamily && b.dstQueueFamilyIndex == dstFamily)
          found.push_back({barrier.srcStage, barrier.dstStage, barrier.dependencyFlags, {b}, {}});
    return found;
  }

  // The same for the image barriers on `image`.
  std::vector<RecordedBarrier> transfersOf(VkImage image, uint32_t srcFamily, uint32_t dstFamily) const {
    std::vector<RecordedBarrier> found;
    for (const RecordedBarrier& barrier : barriers)
      for (const VkImageMemoryBarrier& b : barrier.images)
        if (b.image == image && b.srcQueueFamilyIndex == srcFamily && b.dstQueueFamilyIndex == dstFamily)
          found.push_back({barrier.srcStage, barrier.dstStage, barrier.dependencyFlags, {}, {b}});
    return found;
  }

 private:
  static BarrierRecorder*& active() {
    static BarrierRecorder* recorder = nullptr;
    return recorder;
  }

  static VKAPI_ATTR void VKAPI_CALL record(VkCommandBuffer commandBuffer, VkPipelineStageFlags srcStage,
                                           VkPipelineStageFlags dstStage, VkDependencyFlags flags,
                                           uint32_t memoryCount, const VkMemoryBarrier* memory,
                                           uint32_t bufferCount, const VkBufferMemoryBarrier* buffers,
                                           uint32_t imageCount, const VkImageMemoryBarrier* images) {
    BarrierRecorder* self = active();
    self->barriers.push_back({srcStage, dstStage, flags,
                              std::vector<VkBufferMemoryBarrier>(buffers, buffers + bufferCount),
                              std::vector<VkImageMemoryBarrier>(images, images + imageCount)});
    if (self->forward_)
      self->previous_(commandBuffer, srcStage, dstStage, flags, memoryCount, memory, bufferCount, buffers, imageCount,
                      images);
  }

  bool forward_;
  PFN_vkCmdPipelineBarrier previous_;
};

}  // namespace vksim::testing
