// The pieces every path's frame is built of, apart from the schedule itself:
// the render's command buffer (begun with the GPU timer, the mesh pass with
// the overlay, ended), and the render's submission lists.
#pragma once
#include <volk.h>

#include <array>
#include <cstdint>
#include <span>

#include "app/paths/frame_context.h"

namespace vksim {

// Restarts the slot's command buffer and starts the GPU timer: the timed
// region is the whole command buffer, in the timer slot of the frame's own
// slot, whose fence the loop waited for.
VkCommandBuffer beginFrameCommands(FrameContext& frame);

// The render pass: the mesh from the grid's vertex buffer, index buffer and
// texture, seen by the camera, then the overlay over it without depth.
void recordScenePass(FrameContext& frame, VkCommandBuffer commandBuffer);

// Stops the GPU timer and ends the command buffer.
void endFrameCommands(FrameContext& frame, VkCommandBuffer commandBuffer);

// Unsignals the slot's fence right before the submission that signals it
// again (the loop waited for it before the frame began).
void resetSlotFence(FrameContext& frame);

// The render's waits and signals, in the order submitted: the schedule's
// first, then the window's.
struct RenderBatch {
  std::array<SemaphoreWait, 2> waitList{};
  uint32_t waitCount = 0;
  std::array<SemaphoreSignal, 2> signalList{};
  uint32_t signalCount = 0;

  std::span<const SemaphoreWait> waits() const { return {waitList.data(), waitCount}; }
  std::span<const SemaphoreSignal> signals() const { return {signalList.data(), signalCount}; }
};

// The schedule's part of render k (what `render` says): the wait on the
// simulation's last signal at `waitStage`, and the render's own signal
// unless a test left it out; then the window's acquire wait and present
// signal, when there is a window.
RenderBatch scheduleRenderBatch(const FrameContext& frame, const RenderSync& render, VkPipelineStageFlags waitStage);

// The window's part alone (the copy path, whose host orders everything else).
RenderBatch windowRenderBatch(const FrameContext& frame);

}  // namespace vksim
