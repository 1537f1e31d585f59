#include "app/capture/schedule_recording.h"

#include <cstdio>
#include <string>

#include "app/app.h"
#include "app/interop/wait_strategy.h"

namespace vksim {
namespace {

ScheduleSemaphore semaphoreName(const App& app, VkSemaphore semaphore) {
  const SyncSemaphores& shared = app.shared.semaphores;
  if (semaphore == shared.timeline) return ScheduleSemaphore::timeline;
  if (semaphore == shared.renderDone) return ScheduleSemaphore::renderDone;
  if (semaphore == shared.simDone) return ScheduleSemaphore::simDone;
  if (semaphore == app.frame.imageAvailable) return ScheduleSemaphore::imageAvailable;
  return ScheduleSemaphore::renderFinished;  // the swapchain image's own
}

bool isTimeline(const App& app, VkSemaphore semaphore) {
  return semaphore == app.shared.semaphores.timeline;
}

ScheduleEvent newEvent(const App& app, ScheduleSide side, uint64_t scheduleFrame, SyncMode mode) {
  ScheduleEvent event;
  event.side = side;
  event.frame = app.schedule.totalFrames;
  event.scheduleFrame = scheduleFrame;
  event.mode = mode;
  event.hostNs = hostNowNs();
  return event;
}

void addEvent(App& app, ScheduleEvent event) {
  std::vector<ScheduleEvent>& events = app.scheduleLog.events;
  if (events.size() >= kMaxScheduleEvents) events.erase(events.begin(), events.begin() + kMaxScheduleEvents / 2);
  events.push_back(std::move(event));
}

}  // namespace

bool scheduleRecording(const App& app) {
  return app.capture.trace.isOpen() || app.schedule.totalFrames == 0;
}

void recordInitialWrite(App& app, bool signalledSimDone) {
  if (!scheduleRecording(app)) return;
  ScheduleEvent event = newEvent(app, ScheduleSide::initial, 0, app.schedule.mode);
  if (signalledSimDone) event.signals.push_back({ScheduleSemaphore::simDone, 0});
  addEvent(app, std::move(event));
}

std::string stageMaskName(VkPipelineStageFlags stages) {
  static const struct {
    VkPipelineStageFlags bit;
    const char* name;
  } kNames[] = {{VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, "TOP_OF_PIPE"},
                {VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, "VERTEX_INPUT"},
                {VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, "COLOR_ATTACHMENT_OUTPUT"},
                {VK_PIPELINE_STAGE_TRANSFER_BIT, "TRANSFER"},
                {VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, "BOTTOM_OF_PIPE"},
                {VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT, "ALL_GRAPHICS"},
                {VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, "ALL_COMMANDS"}};
  std::string name;
  for (const auto& entry : kNames) {
    if (!(stages & entry.bit)) continue;
    name += (name.empty() ? "" : "|") + std::string(entry.name);
    stages &= ~entry.bit;
  }
  if (stages != 0) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", unsigned(stages));
    name += (name.empty() ? "" : "|") + std::string(hex);
  }
  return name;
}

void recordRenderSubmission(App& app, uint64_t scheduleFrame, SyncMode mode,
                            std::span<const SemaphoreWait> waits, std::span<const SemaphoreSignal> signals) {
  if (!scheduleRecording(app)) return;
  ScheduleEvent event = newEvent(app, ScheduleSide::render, scheduleFrame, mode);
  for (const SemaphoreWait& wait : waits)
    event.waits.push_back({semaphoreName(app, wait.semaphore), isTimeline(app, wait.semaphore) ? wait.value : 0,
                           stageMaskName(wait.stage)});
  for (const SemaphoreSignal& signal : signals)
    event.signals.push_back(
        {semaphoreName(app, signal.semaphore), isTimeline(app, signal.semaphore) ? signal.value : 0});
  addEvent(app, std::move(event));
}

void recordSimStep(App& app, uint64_t scheduleFrame, const StepSync& sync, bool waited, bool signalled) {
  if (!scheduleRecording(app)) return;
  ScheduleEvent event = newEvent(app, ScheduleSide::sim, scheduleFrame, sync.mode);
  const bool timeline = sync.mode == SyncMode::timeline;
  if (waited)
    event.waits.push_back(timeline ? ScheduleWait{ScheduleSemaphore::timeline, sync.waitValue, {}}
                                   : ScheduleWait{ScheduleSemaphore::renderDone, 0, {}});
  if (signalled)
    event.signals.push_back(timeline ? ScheduleSignal{ScheduleSemaphore::timeline, sync.signalValue}
                                     : ScheduleSignal{ScheduleSemaphore::simDone, 0});
  addEvent(app, std::move(event));
}

void recordDrainSubmission(App& app, std::span<const SemaphoreWait> waits) {
  if (!scheduleRecording(app)) return;
  ScheduleEvent event = newEvent(app, ScheduleSide::drain, app.schedule.scheduleFrame, app.schedule.mode);
  for (const SemaphoreWait& wait : waits)
    event.waits.push_back({semaphoreName(app, wait.semaphore), isTimeline(app, wait.semaphore) ? wait.value : 0,
                           stageMaskName(wait.stage)});
  addEvent(app, std::move(event));
}

}  // namespace vksim
