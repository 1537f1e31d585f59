#include "app/capture/schedule_log.h"

#include <nlohmann/json.hpp>

namespace vksim {
namespace {
bool isTimeline(ScheduleSemaphore semaphore) {
  return semaphore == ScheduleSemaphore::timeline;
}
}  // namespace

const char* toString(ScheduleSemaphore semaphore) {
  switch (semaphore) {
    case ScheduleSemaphore::timeline:
      return "timeline";
    case ScheduleSemaphore::renderDone:
      return "renderDone";
    case ScheduleSemaphore::simDone:
      return "simDone";
    case ScheduleSemaphore::imageAvailable:
      return "imageAvailable";
    case ScheduleSemaphore::renderFinished:
      return "renderFinished";
  }
  return "?";
}

const char* toString(ScheduleSide side) {
  switch (side) {
    case ScheduleSide::initial:
      return "initial";
    case ScheduleSide::render:
      return "render";
    case ScheduleSide::sim:
      return "sim";
    case ScheduleSide::drain:
      return "drain";
  }
  return "?";
}

std::string scheduleEventName(ScheduleSide side) {
  return std::string(toString(side)) + " submit";
}

std::string scheduleEventArgs(const ScheduleEvent& event) {
  nlohmann::json args;
  args["frame"] = event.frame;
  args["schedule_frame"] = event.scheduleFrame;
  args["mode"] = toString(event.mode);
  // A binary semaphore has no value: leaving it out keeps a reader from
  // comparing a meaningless 0 with the timeline's counter.
  nlohmann::json waits = nlohmann::json::array();
  for (const ScheduleWait& wait : event.waits) {
    nlohmann::json entry{{"semaphore", toString(wait.semaphore)}};
    if (isTimeline(wait.semaphore)) entry["value"] = wait.value;
    if (!wait.stage.empty()) entry["stage"] = wait.stage;
    waits.push_back(entry);
  }
  nlohmann::json signals = nlohmann::json::array();
  for (const ScheduleSignal& signal : event.signals) {
    nlohmann::json entry{{"semaphore", toString(signal.semaphore)}};
    if (isTimeline(signal.semaphore)) entry["value"] = signal.value;
    signals.push_back(entry);
  }
  args["waits"] = waits;
  args["signals"] = signals;
  if (event.sawTag) args["saw_tag"] = *event.sawTag;
  return args.dump();
}

}  // namespace vksim
