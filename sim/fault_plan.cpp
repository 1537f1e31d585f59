#include "sim/fault_plan.h"

#include <cctype>

namespace vksim {

const char* toString(FaultKind kind) {
  switch (kind) {
    case FaultKind::simSkipsSignal: return "sim-skips-signal";
    case FaultKind::renderSkipsSignal: return "render-skips-signal";
    case FaultKind::simStalls: return "sim-stalls";
    case FaultKind::importFails: return "import-fails";
    case FaultKind::exportFails: return "export-fails";
    case FaultKind::deviceLost: return "device-lost";
  }
  return "?";
}

bool isStartupFault(FaultKind kind) { return kind == FaultKind::importFails || kind == FaultKind::exportFails; }

bool hasFault(const FaultPlan& plan, FaultKind kind) {
  for (const Fault& fault : plan.faults)
    if (fault.kind == kind) return true;
  return false;
}

bool faultActive(const FaultPlan& plan, FaultKind kind, uint64_t frame) {
  for (const Fault& fault : plan.faults) {
    if (fault.kind != kind) continue;
    if (isStartupFault(kind)) return true;
    // A stall ends the run at its frame; the others persist, as a broken
    // peer would.
    if (kind == FaultKind::simStalls ? frame == fault.frame : frame >= fault.frame) return true;
  }
  return false;
}

StepFault stepFaultAt(const FaultPlan& plan, uint64_t frame) {
  if (faultActive(plan, FaultKind::simStalls, frame)) return StepFault::stall;
  if (faultActive(plan, FaultKind::simSkipsSignal, frame)) return StepFault::skipSignal;
  return StepFault::none;
}

std::string faultNames() {
  std::string names;
  for (FaultKind kind : kAllFaultKinds) names += (names.empty() ? "" : "|") + std::string(toString(kind));
  return names;
}

FaultParseResult parseFault(std::string_view text) {
  FaultParseResult result;
  const size_t at = text.find('@');
  std::string name(text.substr(0, at));
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  bool known = false;
  for (FaultKind kind : kAllFaultKinds)
    if (name == toString(kind)) {
      result.fault.kind = kind;
      known = true;
    }
  if (!known) {
    result.error = "'" + std::string(text.substr(0, at)) + "' is not a fault; the faults are " + faultNames();
    return result;
  }
  if (at == std::string_view::npos) {
    result.ok = true;
    return result;
  }
  if (isStartupFault(result.fault.kind)) {
    result.error = name + " happens at start-up and takes no @FRAME";
    return result;
  }
  const std::string_view digits = text.substr(at + 1);
  // Digits only: no sign, no spaces, no hex; at most 2^63-1 so that the frame
  // compares with the run's signed frame count without wrapping.
  constexpr uint64_t kMaxFrame = 9'223'372'036'854'775'807ull;
  uint64_t frame = 0;
  bool valid = !digits.empty();
  for (char c : digits) {
    if (c < '0' || c > '9') {
      valid = false;
      break;
    }
    const uint64_t digit = uint64_t(c - '0');
    if (frame > (kMaxFrame - digit) / 10) {
      valid = false;
      break;
    }
    frame = frame * 10 + digit;
  }
  if (!valid) {
    result.error = "the frame in '" + std::string(text) + "' must be a whole number from 0 to " +
                   std::to_string(kMaxFrame);
    return result;
  }
  result.fault.frame = frame;
  result.ok = true;
  return result;
}

}  // namespace vksim
