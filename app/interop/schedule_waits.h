// The host's bounded waits on the schedule's signals: the poll strategy's two
// waits (app/interop/wait_strategy.h), each side's wait handed over only once
// the value it waits for is reached, and the wait for a signal that a test
// left out. Each throws RuntimeFailure (throwWaitTimeout) when its bound
// (kWaitTimeoutNs) runs out.
#pragma once
#include "app/interop/grid_resources.h"
#include "app/interop/value_schedule.h"
#include "renderer/vulkan_context.h"

namespace vksim {

// Before render k's submission: what sim k-1 signalled. Timeline: the host
// reads the counter (vkGetSemaphoreCounterValue sees a CUDA signal within
// microseconds, where a blocking vkWaitSemaphores sleeps far longer:
// docs/benchmarks.md). Binary: the counter does not move, so the
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
