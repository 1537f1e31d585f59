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

// ---- The host's bounded waits on the schedule's signals: the poll
// strategy's two waits (app/interop/wait_strategy.h), each side's wait handed
// over only once the value it waits for is reached, and the wait for a
// signal that a test left out. Each throws RuntimeFailure (throwWaitTimeout)
// when its bound (kWaitTimeoutNs) runs out.

// Before render k's submission: what sim k-1 signalled. Timeline: the host
// reads the counter (vkGetSemaphoreCounterValue sees a CUDA signal within
// microseconds, where a blocking vkWaitSemaphores sleeps far longer:
// docs/design.md and docs/results/2026-12-01-handoff-probe.md). Binary: the counter does not move, so the
// simulation's event recorded after its simDone signal is asked instead
// (Simulation::isStepComplete).
void waitUntilSimulationSignalled(const Device& device, const GridResources& grid, const ScheduleState& schedule,
                                  const RenderSync& sync);

// Before sim k's step: render k's signal. Timeline: the counter reaches
// 2k+1. Binary: `renderFence`, which signals once the whole batch (its
// renderDone signal included) has completed; never, when the render's
// signal was left out (sync.signals false).
void waitUntilRenderSignalled(const Device& device, const GridResources& grid, const ScheduleState& schedule,
                              const RenderSync& render, VkFence renderFence);

// After sim k's turn: a step that timed out is a wait that ran out
// (throwWaitTimeout), one that failed a RuntimeFailure naming the frame.
void requireStepOk(const ScheduleState& schedule, const StepSync& sync, const StepResult& result);

// After sim k's turn: a step that ran but left its signal out (a test's
// sim-skips-signal). The next render must not run unordered after its
// writes.
void noteSkippedSimSignal(ScheduleState& schedule, const StepSync& sync, const StepResult& step);

// Before render k+1's submission: a wait is handed to the queue only for a
// signal that was enqueued, so when the previous step left its signal out the
// host waits for it instead, bounded like every wait; nothing will end it but
// the bound (a binary simDone that was never signalled cannot be waited for
// by the queue: VUID-vkQueueSubmit-pWaitSemaphores-03238).
void awaitSkippedSimSignal(const Device& device, const GridResources& grid, ScheduleState& schedule);

}  // namespace vksim
