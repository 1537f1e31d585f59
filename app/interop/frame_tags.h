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
//     writes the vertices, then sets the event (app/frame_tags.cpp says why);
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

#include <memory>

#include "sim/simulation.h"

namespace vksim {

struct App;

// The CPU simulation for app.shared (its host-visible vertex memory and
// semaphores), stepping on a worker thread and tagging each state. Also
// creates app.shared.frameTagResult. Throws EnvironmentError when a Vulkan
// object cannot be created.
std::unique_ptr<Simulation> createFrameTagSimulation(App& app, const ModelParams& params);

// Stages the render's semaphore wait must also cover: the tag copy runs at
// TRANSFER, before any vertex input. 0 without --frame-tags.
VkPipelineStageFlags frameTagWaitStages(const App& app);

// Records, at the start of the render's command buffer: the copy of the
// first vertex into the result buffer, between a barrier that orders it
// after the previous frame's copy and one that makes it visible to the host.
// Nothing without --frame-tags.
void recordFrameTagCopy(App& app, VkCommandBuffer commandBuffer);

// Call right after submitting a render (it waits on the last step's
// signal): a timeline step's worker writes only after that (see
// app/frame_tags.cpp). Nothing without --frame-tags.
void noteWaitSubmitted(App& app);

// Call before the drain's submission: the last step writes and signals
// without waiting for another render, and this returns once it has (at most
// kWaitTimeoutNs), so that the drain's wait is already satisfied when it is
// submitted (see app/frame_tags.cpp for why). Nothing without --frame-tags.
void finishFrameTagStep(App& app);

// Call once the fence of the render that recorded the copy has signalled:
// reads the tag it saw into that render's schedule event. Nothing when no
// copy is outstanding.
void readFrameTag(App& app);

}  // namespace vksim
