#include "schedule_check.h"

#include <map>

namespace vksim::testing {
namespace {

using Json = nlohmann::json;

// A semaphore operation as one comparable word: "timeline=5", "simDone".
using Ops = std::vector<std::string>;

Ops operations(const Json& list, bool scheduleOnly) {
  Ops ops;
  for (const Json& entry : list) {
    const std::string semaphore = entry.at("semaphore").get<std::string>();
    // The swapchain's semaphores are no part of the value schedule.
    if (scheduleOnly && (semaphore == "imageAvailable" || semaphore == "renderFinished")) continue;
    ops.push_back(entry.contains("value") ? semaphore + "=" + std::to_string(entry.at("value").get<uint64_t>())
                                          : semaphore);
  }
  return ops;
}

std::string text(const Ops& ops) {
  std::string joined = "[";
  for (const std::string& op : ops) joined += (joined.size() > 1 ? " " : "") + op;
  return joined + "]";
}

// The rule, from the frame number and the modes alone.
Ops renderSignal(const std::string& mode, uint64_t k) {
  return mode == "timeline" ? Ops{"timeline=" + std::to_string(2 * k + 1)} : Ops{"renderDone"};
}
Ops simWait(const std::string& mode, uint64_t k) {
  return mode == "timeline" ? Ops{"timeline=" + std::to_string(2 * k + 1)} : Ops{"renderDone"};
}
Ops simSignal(const std::string& mode, uint64_t k) {
  return mode == "timeline" ? Ops{"timeline=" + std::to_string(2 * k + 2)} : Ops{"simDone"};
}
// Render k (k >= 1) waits on sim k-1's signal: value 2(k-1)+2 = 2k, or simDone.
Ops renderWait(const std::string& previousMode, uint64_t k) {
  return previousMode == "timeline" ? Ops{"timeline=" + std::to_string(2 * k)} : Ops{"simDone"};
}

struct Events {
  std::vector<Json> initial, drain;
  std::map<uint64_t, std::vector<Json>> render, sim;
};

Events collect(const Json& trace) {
  Events events;
  for (const Json& event : trace.at("traceEvents")) {
    if (event.at("ph") != "i" || !event.contains("args")) continue;
    const std::string name = event.at("name").get<std::string>();
    const Json& args = event.at("args");
    if (name == "initial submit") events.initial.push_back(args);
    if (name == "drain submit") events.drain.push_back(args);
    if (name == "render submit") events.render[args.at("frame").get<uint64_t>()].push_back(args);
    if (name == "sim submit") events.sim[args.at("frame").get<uint64_t>()].push_back(args);
  }
  return events;
}

class Failures {
 public:
  explicit Failures(size_t limit) : limit_(limit) {}
  void add(const std::string& line) {
    if (lines_.size() < limit_)
      lines_.push_back(line);
    else
      ++more_;
  }
  std::vector<std::string> take() {
    if (more_ > 0) lines_.push_back("... and " + std::to_string(more_) + " more");
    return lines_;
  }

 private:
  size_t limit_;
  size_t more_ = 0;
  std::vector<std::string> lines_;
};

}  // namespace

std::string expectedMode(const ScheduleRun& run, uint64_t frame) {
  const bool flipped = run.switchEvery > 0 && (frame / run.switchEvery) % 2 == 1;
  if (!flipped) return run.startMode;
  return run.startMode == "timeline" ? "binary" : "timeline";
}

std::vector<std::string> checkSchedule(const Json& trace, const ScheduleRun& run, size_t limit) {
  Failures found(limit);
  const Events events = collect(trace);
  if (events.initial.size() != 1)
    found.add("expected one initial submit event, found " + std::to_string(events.initial.size()));
  if (events.drain.size() != 1)
    found.add("expected one drain submit event, found " + std::to_string(events.drain.size()));
  if (events.render.size() != run.frames || events.sim.size() != run.frames)
    found.add("frames with render events: " + std::to_string(events.render.size()) + ", with sim events: " +
              std::to_string(events.sim.size()) + ", expected " + std::to_string(run.frames));
  Ops previousSignal = events.initial.empty() ? Ops{} : operations(events.initial.front().at("signals"), true);
  for (uint64_t k = 0; k < run.frames; ++k) {
    const std::string at = "frame " + std::to_string(k) + ": ";
    const auto render = events.render.find(k);
    const auto sim = events.sim.find(k);
    if (render == events.render.end() || render->second.size() != 1 || sim == events.sim.end() ||
        sim->second.size() != 1) {
      found.add(at + "expected exactly one render and one sim submit event");
      previousSignal.clear();
      continue;
    }
    const Json& r = render->second.front();
    const Json& s = sim->second.front();
    const std::string mode = expectedMode(run, k);
    if (r.at("mode") != mode || s.at("mode") != mode)
      found.add(at + "mode " + r.at("mode").get<std::string>() + "/" + s.at("mode").get<std::string>() +
                ", expected " + mode);
    if (r.at("schedule_frame") != k || s.at("schedule_frame") != k) found.add(at + "schedule_frame is not " + std::to_string(k));

    // Render k waits exactly what sim k-1 (or the initial write) signalled,
    // and that is what the rule says sim k-1 signals.
    const Ops renderWaits = operations(r.at("waits"), true);
    if (renderWaits != previousSignal)
      found.add(at + "render waits " + text(renderWaits) + ", the step before it signalled " + text(previousSignal));
    if (k > 0 && renderWaits != renderWait(expectedMode(run, k - 1), k))
      found.add(at + "render waits " + text(renderWaits) + ", the rule says " +
                text(renderWait(expectedMode(run, k - 1), k)));
    for (const Json& wait : r.at("waits")) {
      const std::string semaphore = wait.at("semaphore").get<std::string>();
      if (semaphore == "imageAvailable") continue;
      const std::string stage = wait.value("stage", "");
      if (stage.find("VERTEX_INPUT") == std::string::npos && stage.find("ALL_COMMANDS") == std::string::npos)
        found.add(at + "render's wait on " + semaphore + " at stage '" + stage +
                  "' does not cover the vertex input");
      if (run.acquiresFromExternal && !run.narrowTransferStages && stage.find("ALL_COMMANDS") == std::string::npos)
        found.add(at + "render's wait on " + semaphore + " at stage '" + stage +
                  "' orders an acquire from EXTERNAL and must be at ALL_COMMANDS");
    }
    const Ops renderSignals = operations(r.at("signals"), true);
    if (renderSignals != renderSignal(mode, k))
      found.add(at + "render signals " + text(renderSignals) + ", the rule says " + text(renderSignal(mode, k)));

    // Sim k waits what render k signalled, and signals what the rule says.
    const Ops simWaits = operations(s.at("waits"), true);
    if (simWaits != renderSignals)
      found.add(at + "sim waits " + text(simWaits) + ", render " + std::to_string(k) + " signalled " +
                text(renderSignals));
    if (simWaits != simWait(mode, k))
      found.add(at + "sim waits " + text(simWaits) + ", the rule says " + text(simWait(mode, k)));
    const Ops simSignals = operations(s.at("signals"), true);
    if (simSignals != simSignal(mode, k))
      found.add(at + "sim signals " + text(simSignals) + ", the rule says " + text(simSignal(mode, k)));
    previousSignal = simSignals;
  }
  if (events.drain.size() == 1) {
    const Ops drainWaits = operations(events.drain.front().at("waits"), true);
    if (drainWaits != previousSignal)
      found.add("drain waits " + text(drainWaits) + ", the last sim signalled " + text(previousSignal));
  }
  return found.take();
}

std::vector<std::string> checkFrameTags(const Json& trace, uint64_t frames, size_t limit) {
  Failures found(limit);
  const Events events = collect(trace);
  for (uint64_t k = 0; k < frames; ++k) {
    const auto render = events.render.find(k);
    if (render == events.render.end() || render->second.size() != 1) {
      found.add("frame " + std::to_string(k) + ": no single render submit event");
      continue;
    }
    const Json& args = render->second.front();
    if (!args.contains("saw_tag")) {
      found.add("frame " + std::to_string(k) + ": render has no saw_tag");
      continue;
    }
    // The initial state is tag 0 and sim j writes state j+1: render k must
    // read the state of tag k.
    const uint64_t saw = args.at("saw_tag").get<uint64_t>();
    if (saw != k)
      found.add("frame " + std::to_string(k) + " (" + args.at("mode").get<std::string>() + "): render read tag " +
                std::to_string(saw) + ", expected " + std::to_string(k));
  }
  return found.take();
}

SwitchCounts countSwitches(const Json& trace) {
  SwitchCounts counts;
  const Events events = collect(trace);
  std::string previous;
  for (const auto& [frame, list] : events.render) {
    const std::string mode = list.front().at("mode").get<std::string>();
    if (previous == "timeline" && mode == "binary") ++counts.toBinary;
    if (previous == "binary" && mode == "timeline") ++counts.toTimeline;
    previous = mode;
  }
  return counts;
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string joined;
  for (const std::string& line : lines) joined += line + "\n";
  return joined;
}

}  // namespace vksim::testing
