// `--frame-tags`: a test configuration in which the GPU-side semaphore waits
// alone order the simulation's writes before the render's reads, so that a
// missing or wrong wait changes what is observed (docs/value-schedule.md,
// "Frame tags").
//
// In a normal CPU-backend run the step runs on the frame loop's thread and
// ends before the next render is submitted: the host's program order already
// keeps the render after the writes, and no semaphore wait decides anything.
// With frame tags:
//   - the CPU simulation steps on a worker thread of its own: step() hands the
//     step over and returns, as the CUDA backend's step() returns once its
//     signal is enqueued. The worker waits through the host semaphore
//     operations, submits its signal in a batch held back by an event,
//     writes the vertices, then sets the event (app/testing/frame_tags.cpp says why);
//   - each state the simulation writes carries a tag in the first vertex's
//     normal.w (unused by the shaders, 0 otherwise): 0 for the initial state,
//     then the step count, so state k (the one render k must read) has tag k;
//   - each render copies the first vertex, as the GPU sees it after the
//     render's waits, into a small host-visible buffer; once the render's
//     fence has signalled the host reads the tag back into the trace's
//     "render submit" event (saw_tag).
// A render that does not wait for the right signal runs while the worker is
// still writing and reads the tag of an older state.
//
// Headless, CPU backend, zero-copy only (the command line enforces it). The
// Vulkan queue is externally synchronised: submitToQueue serialises the
// worker's submissions with the frame loop's.
#pragma once
#include <volk.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "renderer/gpu_buffer.h"
#include "renderer/vulkan_context.h"
#include "sim/host_sync.h"
#include "sim/simulation.h"

namespace vksim {

// The frame tags of one grid (app/interop/grid_resources.h holds it).
// Empty (enabled false, no buffer) without --frame-tags.
struct FrameTags {
  bool enabled = false;
  // Where each render copies the first vertex it read (host-visible).
  GpuBuffer result;
  // The frame whose copy the host has not read yet.
  std::optional<uint64_t> pendingRender;
};

// What one render saw: the tag of the state it read, for that render's
// "render submit" event in the trace.
struct SeenFrameTag {
  uint64_t frame = 0;  // the render's frame (ScheduleState::totalFrames)
  uint64_t tag = 0;
};

// The CPU simulation writing `mappedVertices` (host-visible, the shared
// vertex buffer's mapping) through `hostOps`, stepping on a worker thread and
// tagging each state; `tags` becomes enabled and gets its result buffer.
// `hostOps` must outlive the simulation. kWaitTimeoutNs bounds the worker's
// own waits (a step that must end before parameters change, the last step).
// Throws EnvironmentError when a Vulkan object cannot be created.
std::unique_ptr<Simulation> createFrameTagSimulation(const Device& device, FrameTags& tags,
                                                     void* mappedVertices, HostSemaphoreOps& hostOps,
                                                     const ModelParams& params, bool enqueueStrategy);

// Destroys the result buffer; `tags` is empty afterwards. After the device
// is idle (the last render's copy may write it until then).
void destroyFrameTags(const Device& device, FrameTags& tags);

// Stages the render's semaphore wait must also cover: the tag copy runs at
// TRANSFER, before any vertex input. 0 without --frame-tags.
VkPipelineStageFlags frameTagWaitStages(const FrameTags& tags);

// Records, at the start of the render's command buffer of frame `frame`:
// the copy of the first vertex of `vertices` into the result buffer, between
// a barrier that orders it after the previous frame's copy and one that
// makes it visible to the host. Nothing without --frame-tags.
void recordFrameTagCopy(FrameTags& tags, VkBuffer vertices, uint64_t frame, VkCommandBuffer commandBuffer);

// Call right after submitting a render (it waits on the last step's
// signal): a timeline step's worker writes only after that (see
// app/testing/frame_tags.cpp). `simulation` is the one that
// createFrameTagSimulation made. Nothing without --frame-tags.
void noteWaitSubmitted(const FrameTags& tags, Simulation& simulation);

// Call before the drain's submission: the last step writes and signals
// without waiting for another render, and this returns once it has (at most
// the worker's timeout), so that the drain's wait is already satisfied when
// it is submitted (see app/testing/frame_tags.cpp for why). Throws
// RuntimeFailure on a timeout. Nothing without --frame-tags.
void finishFrameTagStep(const FrameTags& tags, Simulation& simulation);

// Call once the fence of the render that recorded the copy has signalled:
// the tag that render saw. Nothing when no copy is outstanding.
std::optional<SeenFrameTag> readFrameTag(FrameTags& tags);

// readFrameTag, handing the tag (if any) to `seen` (which may be empty).
void reportFrameTag(FrameTags& tags, const std::function<void(const SeenFrameTag& seen)>& seen);

}  // namespace vksim
