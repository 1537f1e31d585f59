// Fault injection, a test facility (`--inject-fault NAME[@FRAME]`,
// docs/testing.md): failures that a correct program must survive, made to
// happen on purpose at known places so that tests can check that every one of
// them ends cleanly (one line, a documented exit code, teardown complete, no
// fd left open, no half-written file). Plain data, read by app/ and by the
// simulation backends; no Vulkan, CUDA or OpenCL types.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vksim {

enum class FaultKind {
  simSkipsSignal,     // from FRAME on, the simulation's step leaves out its semaphore signal
  renderSkipsSignal,  // from FRAME on, the render's submission leaves out its schedule signal
  simStalls,          // the step of FRAME never completes (CPU: its wait blocks past the timeout;
                      // CUDA: a kernel spins until teardown releases it)
  importFails,        // the import of the vertex memory fails (at start-up; no FRAME)
  exportFails,        // an export fails after the vertex memory's succeeded (at start-up; no FRAME)
  deviceLost,         // from FRAME on, Vulkan's waits report VK_ERROR_DEVICE_LOST
};

// Every kind, in the order the help and docs list them.
inline constexpr FaultKind kAllFaultKinds[] = {FaultKind::simSkipsSignal, FaultKind::renderSkipsSignal,
                                               FaultKind::simStalls,      FaultKind::importFails,
                                               FaultKind::exportFails,    FaultKind::deviceLost};

// The name on the command line: "sim-skips-signal", "render-skips-signal",
// "sim-stalls", "import-fails", "export-fails", "device-lost".
const char* toString(FaultKind kind);

// Whether the fault happens while the grid resources are built (import, export)
// rather than at a frame: those take no @FRAME.
bool isStartupFault(FaultKind kind);

struct Fault {
  FaultKind kind = FaultKind::simSkipsSignal;
  uint64_t frame = 0;  // the run's frame (0-based, rebuilds do not restart it) from which it applies
};

// What a step of the simulation is asked to do wrong (StepSync::fault).
enum class StepFault {
  none,
  skipSignal,  // do the wait and the work, leave out the signal
  stall,       // never complete (see FaultKind::simStalls)
};

// The faults of one run. Empty: a normal run.
struct FaultPlan {
  std::vector<Fault> faults;
};

// Whether `plan` holds `kind` at all.
bool hasFault(const FaultPlan& plan, FaultKind kind);

// Whether `kind` applies at `frame`: skipped signals and a lost device from
// their frame on, a stall at its frame only (the run ends there), start-up
// faults always.
bool faultActive(const FaultPlan& plan, FaultKind kind, uint64_t frame);

// What the simulation's step of `frame` is asked to do wrong (a stall wins
// over a skipped signal).
StepFault stepFaultAt(const FaultPlan& plan, uint64_t frame);

struct FaultParseResult {
  bool ok = false;
  Fault fault;
  std::string error;  // one sentence, no newline, when !ok
};

// Parses NAME or NAME@FRAME (NAME as toString prints it, case-insensitive;
// FRAME a decimal from 0 to 2^63-1). A pure function: no I/O, never throws.
FaultParseResult parseFault(std::string_view text);

// "sim-skips-signal|render-skips-signal|..." for help and messages.
std::string faultNames();

}  // namespace vksim
