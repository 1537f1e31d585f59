#include "app/capture/schedule_recording.h"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "base/host_clock.h"

namespace vksim {
namespace {

ScheduleSemaphore semaphoreName(const ScheduleSemaphoreHandles& handles, VkSemaphore semaphore) {
  if (semaphore == handles.shared.timeline) return ScheduleSemaphore::timeline;
  if (semaphore == handles.shared.renderDone) return ScheduleSemaphore::renderDone;
  if (semaphore == handles.shared.simDone) return ScheduleSemaphore::simDone;
  if (semaphore == handles.imageAvailable) return ScheduleSemaphore::imageAvailable;
  return ScheduleSemaphore::renderFinished;  // the swapchain image's own
}

// A binary semaphore's value means nothing: it is logged as 0.
uint64_t loggedValue(const ScheduleSemaphoreHandles& handles, VkSemaphore semaphore, uint64_t value) {
  return semaphore == handles.shared.timeline ? value : 0;
}

void addWaits(ScheduleEvent& event, const ScheduleSemaphoreHandles& handles,
              std::span<const SemaphoreWait> waits) {
  for (const SemaphoreWait& wait : waits)
    event.waits.push_back({semaphoreName(handles, wait.semaphore),
                           loggedValue(handles, wait.semaphore, wait.value), stageMaskName(wait.stage)});
}

ScheduleEvent newEvent(const ScheduleState& schedule, ScheduleSide side, uint64_t scheduleFrame,
                       SyncMode mode) {
  ScheduleEvent event;
  event.side = side;
  event.frame = schedule.totalFrames;
  event.scheduleFrame = scheduleFrame;
  event.mode = mode;
  event.hostNs = hostNowNs();
  return event;
}

void addEvent(ScheduleLog& log, ScheduleEvent event) {
  std::vector<ScheduleEvent>& events = log.events;
  if (events.size() >= kMaxScheduleEvents)
    events.erase(events.begin(), events.begin() + kMaxScheduleEvents / 2);
  events.push_back(std::move(event));
}

}  // namespace

bool scheduleRecording(const CaptureSession& capture, const ScheduleState& schedule) {
  return capture.trace.isOpen() || schedule.totalFrames == 0;
}

void recordInitialWrite(ScheduleLog& log, const ScheduleState& schedule, bool signalledSimDone) {
  ScheduleEvent event = newEvent(schedule, ScheduleSide::initial, 0, schedule.mode);
  if (signalledSimDone) event.signals.push_back({ScheduleSemaphore::simDone, 0});
  addEvent(log, std::move(event));
}

std::string stageMaskName(VkPipelineStageFlags stages) {
  static const struct {
    VkPipelineStageFlags bit;
    const char* name;
  } kNames[] = {{VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, "TOP_OF_PIPE"},
                {VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, "VERTEX_INPUT"},
                // With VK_KHR_maintenance8 the render's wait also covers the
                // texture's acquire, for the fragment shader.
                {VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, "FRAGMENT_SHADER"},
                {VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, "COLOR_ATTACHMENT_OUTPUT"},
                {VK_PIPELINE_STAGE_TRANSFER_BIT, "TRANSFER"},
                {VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, "BOTTOM_OF_PIPE"},
                {VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT, "ALL_GRAPHICS"},
                {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, "ALL_COMMANDS"}};
  std::string name;
  const auto append = [&name](std::string_view part) {
    if (!name.empty()) name += '|';
    name += part;
  };
  for (const auto& entry : kNames) {
    if (!(stages & entry.bit)) continue;
    append(entry.name);
    stages &= ~entry.bit;
  }
  if (stages != 0) append(fmt::format("{:#x}", stages));
  return name;
}

void recordRenderSubmission(ScheduleLog& log, const ScheduleState& schedule,
                            const ScheduleSemaphoreHandles& handles, const SubmittedRender& render) {
  ScheduleEvent event = newEvent(schedule, ScheduleSide::render, render.scheduleFrame, render.mode);
  addWaits(event, handles, render.waits);
  for (const SemaphoreSignal& signal : render.signals)
    event.signals.push_back(
        {semaphoreName(handles, signal.semaphore), loggedValue(handles, signal.semaphore, signal.value)});
  addEvent(log, std::move(event));
}

void recordSimStep(ScheduleLog& log, const ScheduleState& schedule, uint64_t scheduleFrame,
                   const StepSync& sync, bool waited, bool signalled) {
  ScheduleEvent event = newEvent(schedule, ScheduleSide::sim, scheduleFrame, sync.mode);
  const bool timeline = sync.mode == SyncMode::timeline;
  if (waited)
    event.waits.push_back(timeline ? ScheduleWait{ScheduleSemaphore::timeline, sync.waitValue, {}}
                                   : ScheduleWait{ScheduleSemaphore::renderDone, 0, {}});
  if (signalled)
    event.signals.push_back(timeline ? ScheduleSignal{ScheduleSemaphore::timeline, sync.signalValue}
                                     : ScheduleSignal{ScheduleSemaphore::simDone, 0});
  addEvent(log, std::move(event));
}

void recordDrainSubmission(ScheduleLog& log, const ScheduleState& schedule,
                           const ScheduleSemaphoreHandles& handles, std::span<const SemaphoreWait> waits) {
  ScheduleEvent event = newEvent(schedule, ScheduleSide::drain, schedule.scheduleFrame, schedule.mode);
  addWaits(event, handles, waits);
  addEvent(log, std::move(event));
}

}  // namespace vksim
