#include "app/paths/schedule_turns.h"

#include "app/interop/profiling_marks.h"
#include "app/interop/schedule_waits.h"
#include "renderer/vk_check.h"
#include "sim/nvtx_ranges.h"

namespace vksim {

RenderBatch submitScheduledRender(FrameContext& frame, RenderSync& render, VkPipelineStageFlags waitStage) {
  ScheduleState& schedule = frame.schedule;
  render.signals = !frame.faults.renderLeavesOutSignal;
  const RenderBatch batch = scheduleRenderBatch(frame, render, waitStage);
  // Poll: only now does the host wait for sim k-1, and hands the render's
  // wait over once it is reached (app/interop/wait_strategy.h).
  if (frame.waitStrategy == WaitStrategy::poll) waitUntilSimulationSignalled(frame.device, frame.grid, schedule, render);
  awaitSkippedSimSignal(frame.device, frame.grid, schedule);
  VK_CHECK(vkResetFences(frame.device.device, 1, &frame.slot.inFlight));
  {
    // NVTX: "render k: wait 2k, signal 2k+1", the submission alone.
    const ProfileRange submission([&] { return renderName(schedule.scheduleFrame, render); });
    submitToQueue(frame.device, frame.slot.commandBuffer, batch.waits(), batch.signals(), frame.slot.inFlight);
  }
  // Noted right after the submission succeeded: its wait consumed the sim
  // signal, and its signal is outstanding.
  noteRenderSubmitted(schedule, render);
  return batch;
}

void finishRenderTurn(FrameContext& frame, const RenderBatch& batch) {
  frame.observer.renderSubmitted(frame.schedule.scheduleFrame, batch.waits(), batch.signals());
  frame.afterRenderSubmitted();
}

void runSimulationTurn(FrameContext& frame, const RenderSync& render) {
  ScheduleState& schedule = frame.schedule;
  const uint64_t k = schedule.scheduleFrame;
  // As for the render, the step's wait is handed over only once render k's
  // signal has been reached (poll), or must be awaited because a test left
  // it out.
  StepSync step = simSyncForFrame(k, schedule.mode);  // waits 2k+1, signals 2k+2 (or the binary pair)
  step.fault = frame.faults.step;
  if (frame.waitStrategy == WaitStrategy::poll || !render.signals) {
    waitUntilRenderSignalled(frame.device, frame.grid, schedule, render, frame.slot.inFlight);
    frame.observer.renderSignalSeen();
  }
  const StepResult result = frame.grid.simulation->step(step, frame.advance, kWaitTimeoutNs);
  // What the step enqueued is noted before its status is judged: a step that
  // failed after its wait, or before its signal, leaves exactly that for the
  // drain (app/interop/value_schedule.h).
  noteSimulationTurn(schedule, step, result);
  noteSkippedSimSignal(schedule, step, result);
  frame.observer.simulationStepped(k, step, result);
  requireStepOk(schedule, step, result);
}

}  // namespace vksim
