// Internal to sim/vulkan/ and sim/cuda_nvx/: what the two render-queue
// backends share. The host side of the models (step count, drops, time and
// coefficients from sim/models.h), the command buffer each step is recorded
// into, the barriers around it, its timestamps and the ripple model's three
// height fields, and the surface texture's writing in each step (the same
// compute shaders for both, except that the ripple steps write the first
// levels themselves: rippleStepTexelLevels). A backend supplies only the
// commands that compute the vertices.
#pragma once
#include <volk.h>

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "base/config.h"
#include "sim/models.h"
#include "sim/vulkan/render_queue_simulation.h"
#include "sim/vulkan/surface_texture_writer.h"

namespace vksim {

// A buffer with its own allocation (plain, small count: no allocator needed).
struct QueueBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;         // host-visible buffers only, mapped for their life
  VkDeviceAddress address = 0;    // with deviceAddress only
};

// Creates a buffer of `size` bytes with `usage` from a memory type with
// `properties`; with deviceAddress, SHADER_DEVICE_ADDRESS usage and memory
// allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT (the buffer device
// address rules), and `address` filled in. Error (exit 3) when no memory type
// fits or an allocation fails.
Result<QueueBuffer> createQueueBuffer(const RenderQueueContext& context, VkDeviceSize size, VkBufferUsageFlags usage,
                                      VkMemoryPropertyFlags properties, bool deviceAddress);
// After the device has finished every command that used it.
void destroyQueueBuffer(VkDevice device, QueueBuffer& buffer);

class QueueSimulationBase : public RenderQueueSimulation {
 public:
  ~QueueSimulationBase() override;

  StepResult writeInitialState() override;
  RecordedStep recordStep(const StepSync& sync, bool advance) override;
  void setParams(const ModelParams& params) override { params_ = changeParams(params_, params); }
  const ModelParams& params() const override { return params_; }
  void addDrop(const Drop& drop) override {
    if (params_.model == ModelKind::ripple) queued_.push_back(drop);
  }
  uint64_t stepCount() const override { return stepCount_; }
  bool finish(uint64_t timeoutNs) override;
  std::string deviceName() const override { return deviceName_; }
  bool takeStepTiming(StepTiming* timing) override;

 protected:
  // Makes the command pool, command buffer, query pool, (ripple) the
  // height fields and (context.textureImage) the texture's writer; `deviceAddress` for a backend that reaches the fields by
  // address. False with error() set on failure.
  QueueSimulationBase(const ModelParams& params, const RenderQueueContext& context, bool deviceAddress);
  bool ready() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void setError(std::string message) { error_ = std::move(message); }

  // The backend's commands. Each may assume that everything recorded before
  // it is complete and visible (the base puts a computeBarrier between calls).
  // Sinewave at `frame`, into the vertex buffer.
  virtual void recordSinewave(VkCommandBuffer commandBuffer, const SinewaveFrame& frame) = 0;
  // The drops, in order, added to fields `current` and `previous` (interior cells).
  virtual void recordDrops(VkCommandBuffer commandBuffer, const std::vector<DropShape>& drops, uint32_t current,
                           uint32_t previous) = 0;
  // The leapfrog step current/previous -> next AND the vertices of `next`.
  virtual void recordRippleStep(VkCommandBuffer commandBuffer, uint32_t current, uint32_t previous, uint32_t next,
                                const RippleCoefficients& coefficients) = 0;
  // The vertices of field `field`.
  virtual void recordRippleVertices(VkCommandBuffer commandBuffer, uint32_t field) = 0;
  // How many levels of the texture, from level 0, recordRippleStep writes
  // itself (0: none, the writer makes every level from the vertices).
  virtual uint32_t rippleStepTexelLevels() const { return 0; }
  // After such a step: levels firstLevel .. the last, each from the one
  // above, the image in GENERAL. By default the writer's downsample
  // dispatches (recordSurfaceTextureLevels).
  virtual void recordLevelsBelowStep(VkCommandBuffer commandBuffer, uint32_t firstLevel);
  // Level `level` of the texture as an R32_UINT storage view; null when the
  // texture is off.
  VkImageView textureLevelView(uint32_t level) const {
    return level < texture_.levelViews.size() ? texture_.levelViews[level] : VK_NULL_HANDLE;
  }
  VkImageView textureLevel0() const { return textureLevelView(0); }
  uint32_t textureLevelCount() const { return texture_.target.levels; }

  // Every shader or kernel write before it is visible to every shader or
  // kernel read and write after it (COMPUTE_SHADER -> COMPUTE_SHADER).
  static void computeBarrier(VkCommandBuffer commandBuffer);
  // The frame-in-flight slot of the step being recorded (its command
  // buffer's): a backend keeps what the host writes for a step (tables,
  // drop lists) per slot, since the other slot's step may still be queued.
  uint32_t recordingSlot() const { return uint32_t(sequence_ % kMaxFramesInFlight); }

  RenderQueueContext context_;
  ModelParams params_;
  QueueBuffer heights_;  // ripple: three fields of grid*grid floats, back to back
  VkDeviceSize fieldBytes_ = 0;

 private:
  void recordModelStep(VkCommandBuffer commandBuffer);
  // The texture of the vertices just recorded, when there is one.
  void recordTexture(VkCommandBuffer commandBuffer);

  std::string deviceName_;
  std::string error_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  // One command buffer per frame in flight (base/config.h): step k records
  // into slot k % kMaxFramesInFlight while step k-1 may still be queued.
  std::array<VkCommandBuffer, kMaxFramesInFlight> commandBuffers_{};
  // 2 timestamps a slot (the step's batch begins, ends), slot s at 2s.
  VkQueryPool queries_ = VK_NULL_HANDLE;
  std::vector<Drop> queued_;
  uint64_t stepCount_ = 0;
  uint64_t sequence_ = 0;                 // steps recorded since writeInitialState
  std::deque<uint64_t> timedSequences_;   // recorded steps whose timestamps are not taken yet, oldest first
  // Which field plays which role (RippleModel: previous <- current <- next).
  uint32_t current_ = 0, previous_ = 1, next_ = 2;
  SurfaceTextureWriter texture_;  // empty (no image) when the texture is off
};

}  // namespace vksim
