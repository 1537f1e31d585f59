#include "app/capture/schedule_log.h"

#include <iterator>
#include <nlohmann/json.hpp>

namespace vksim {
namespace {
bool isTimeline(ScheduleSemaphore semaphore) {
  return semaphore == ScheduleSemaphore::timeline;
}

// The names, in the order of each enum's values.
constexpr const char* kSemaphoreNames[] = {"timeline", "renderDone", "simDone", "imageAvailable",
                                           "renderFinished"};
constexpr const char* kSideNames[] = {"initial", "render", "sim", "drain"};
static_assert(std::size(kSemaphoreNames) == std::size_t(ScheduleSemaphore::renderFinished) + 1);
static_assert(std::size(kSideNames) == std::size_t(ScheduleSide::drain) + 1);
}  // namespace

const char* toString(ScheduleSemaphore semaphore) {
  return std::size_t(semaphore) < std::size(kSemaphoreNames) ? kSemaphoreNames[std::size_t(semaphore)] : "?";
}

const char* toString(ScheduleSide side) {
  return std::size_t(side) < std::size(kSideNames) ? kSideNames[std::size_t(side)] : "?";
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
