// The test facility's faults (--inject-fault, docs/testing.md), as hooks
// that the frame and the paths call by name: each says what it breaks, and
// nothing else in a frame tests for a fault. With no fault planned every hook
// is a no-op (or answers "no fault").
#pragma once
#include "app/interop/grid_resources.h"
#include <string>

#include "app/interop/device_loss.h"
#include "app/interop/value_schedule.h"
#include "renderer/vulkan_context.h"
#include "sim/fault_plan.h"

namespace vksim {

// device-lost: from its frame on, the render fence's wait reports
// VK_ERROR_DEVICE_LOST (a RuntimeFailure naming the injected fault), and so
// do teardown's waits, after really waiting (DeviceLoss::injectInTeardown, app/interop/device_loss.h),
// so that nothing is destroyed while in use.
void injectDeviceLoss(const FaultPlan& faults, const ScheduleState& schedule, DeviceLoss& loss);

// render-skips-signal: whether render k's submission leaves the schedule's
// signal out (the swapchain's stays).
bool renderLeavesOutSignal(const FaultPlan& faults, const ScheduleState& schedule);

// sim-skips-signal / sim-stalls: sim k's sync with what the step is asked to
// do wrong; the backends act on it (sim/fault_plan.h).
StepSync withStepFault(StepSync sync, const FaultPlan& faults, const ScheduleState& schedule);

// After sim k's turn: a step that ran but left its signal out. The next
// render must not run unordered after its writes.
void noteSkippedSimSignal(ScheduleState& schedule, const StepSync& sync, const StepResult& step);

// Before render k+1's submission: a wait is handed to the queue only for a
// signal that was enqueued, so when the previous step left its signal out the
// host waits for it instead, bounded like every wait; nothing will end it but
// the bound (a binary simDone that was never signalled cannot be waited for
// by the queue: VUID-vkQueueSubmit-pWaitSemaphores-03238).
void awaitSkippedSimSignal(const Device& device, const GridResources& grid, ScheduleState& schedule);

// import-fails / export-fails: whether either is planned. Then the CPU
// backend's vertex memory is exported too (the device needs exportMemory),
// and the handoff fails where the CUDA backend's import would run.
bool handoffFaultInjected(const FaultPlan& faults);

// export-fails: the export after the vertex memory's (`next`, "timeline
// semaphore" or "semaphores") fails: EnvironmentError, as a driver's refusal.
void injectExportFailure(const FaultPlan& faults, const std::string& next);

// import-fails: the import that `what` names ("CUDA backend: could not
// import ...") fails before it runs: EnvironmentError.
void injectImportFailure(const FaultPlan& faults, const std::string& what);

}  // namespace vksim
