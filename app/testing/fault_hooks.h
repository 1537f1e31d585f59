// The test facility's faults (--inject-fault, docs/testing.md), as hooks
// that the loop and the paths call by name: each says what it breaks, and
// nothing else tests for a fault. The loop decides a frame's faults before
// it runs (FrameFaults, app/paths/frame_context.h). With no fault planned
// every hook is a no-op (or answers "no fault").
#pragma once
#include <string>

#include "app/interop/grid_resources.h"

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

// sim-skips-signal / sim-stalls: what sim k's step is asked to do wrong; the
// backends act on it (sim/fault_plan.h).
StepFault stepFaultFor(const FaultPlan& faults, const ScheduleState& schedule);

// import-fails / export-fails: whether either is planned. Then the CPU
// backend's vertex memory is exported too (the device needs exportMemory),
// and the handoff fails where the CUDA backend's import would run.
bool handoffFaultInjected(const FaultPlan& faults);

// export-fails and import-fails act on the fds' route itself
// (exportSharedHandles, injectImportFailure: app/interop/grid_resources.h).

}  // namespace vksim
