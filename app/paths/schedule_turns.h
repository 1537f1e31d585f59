// The two turns of a frame on every path whose simulation submits its own
// step beside Vulkan and meets it through the semaphores (zero copy: CUDA,
// CUDA-owned memory, OpenCL; the CPU host): each path's frame records its
// own render, then calls these in order. The seams through which the parts
// that are not the lesson reach a frame (the test facility's faults, the
// capture room's observer, the loop's present) are called here, at fixed
// points, and nowhere in a path's frame.
#pragma once
#include <volk.h>

#include "app/paths/frame_commands.h"
#include "app/paths/frame_context.h"

namespace vksim {

// Render k's submission, its command buffer recorded in the slot: the
// render waits (at `waitStage`) for what `render` says (2k, or simDone) and
// signals 2k+1 (or renderDone) unless a test leaves the signal out
// (render.signals says which). Poll: the host first waits until that signal
// is reached and hands the wait over then (app/interop/wait_strategy.h).
// Noted in the schedule once submitted. Throws RuntimeFailure when a wait
// runs out.
RenderBatch submitScheduledRender(FrameContext& frame, RenderSync& render, VkPipelineStageFlags waitStage);

// The render is submitted: the capture room's observer hears of it, then the
// loop's part (screenshot, present) runs.
void finishRenderTurn(FrameContext& frame, const RenderBatch& batch);

// Sim k: waits 2k+1 (or renderDone), writes state k+1, signals 2k+2 (or
// simDone), as grid.simulation does it; noted in the schedule, heard by the
// observer. Throws RuntimeFailure when a wait runs out or the step fails.
void runSimulationTurn(FrameContext& frame, const RenderSync& render);

}  // namespace vksim
