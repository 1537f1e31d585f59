// What else the host did while a bench configuration ran: the time the
// hypervisor gave this machine's vCPUs to someone else (steal, /proc/stat),
// and how often the frame loop's thread was preempted. On a shared machine
// these, not the program, can decide a host-bound backend's P99 (the CPU
// backend's, docs/benchmarks.md "Steady frames"); the bench reports them
// beside each configuration so that a reader can tell the two apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vksim {

// The steal field (the 8th number) of /proc/stat's aggregate "cpu" line, in
// clock ticks summed over every CPU; nullopt if the text has no such line or
// the kernel does not report steal.
std::optional<uint64_t> parseStealTicks(std::string_view procStat);

struct HostLoadSnapshot {
  std::optional<uint64_t> stealTicks;  // parseStealTicks of /proc/stat now
  uint64_t involuntarySwitches = 0;    // the calling thread's, so far
};
HostLoadSnapshot takeHostLoadSnapshot();

// Between two snapshots: steal in ms, summed over every CPU (nullopt without
// steal accounting), and the calling thread's involuntary context switches.
struct HostLoad {
  std::optional<double> stealMs;
  uint64_t involuntarySwitches = 0;
};
HostLoad hostLoadBetween(const HostLoadSnapshot& before, const HostLoadSnapshot& after);

}  // namespace vksim
