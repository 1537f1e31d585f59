#include "app/interop/profiling_marks.h"

#include <fmt/format.h>

#include "renderer/debug_names.h"

namespace vksim {
namespace {

std::string renderWaitWords(const RenderSync& render) {
  switch (render.wait) {
    case RenderSync::Wait::timeline:
      return fmt::format("wait {}", render.waitValue);
    case RenderSync::Wait::simDone:
      return "wait simDone";
    case RenderSync::Wait::none:
      break;
  }
  return "no wait";
}

std::string renderSignalWords(const RenderSync& render) {
  return render.signal == RenderSync::Signal::timeline ? fmt::format("{}", render.signalValue) : "renderDone";
}

}  // namespace

std::string frameName(uint64_t frame) {
  return fmt::format("frame {}", frame);
}

std::string renderName(uint64_t frame, const RenderSync& render) {
  return fmt::format("render {}: {}, signal {}", frame, renderWaitWords(render), renderSignalWords(render));
}

std::string simulationSignalWaitName(const RenderSync& render) {
  return render.wait == RenderSync::Wait::timeline
             ? fmt::format("host wait: sim signalled {}", render.waitValue)
             : "host wait: sim signalled simDone";
}

std::string renderSignalWaitName(const RenderSync& render) {
  return fmt::format("host wait: render signalled {}", renderSignalWords(render));
}

std::string renderLabel(const ScheduleState& schedule, bool hostOrdered) {
  if (!debugUtilsLoaded()) return std::string();
  if (hostOrdered)
    return fmt::format("render {}: no semaphores, the host orders the copy", schedule.scheduleFrame);
  return renderName(schedule.scheduleFrame, nextRenderSync(schedule));
}

}  // namespace vksim
