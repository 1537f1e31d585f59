#include "app/capture/host_load.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace vksim {

std::optional<uint64_t> parseStealTicks(std::string_view procStat) {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice"
  const size_t lineEnd = procStat.find('\n');
  const std::string first(procStat.substr(0, lineEnd));
  std::istringstream fields(first);
  std::string name;
  if (!(fields >> name) || name != "cpu") return std::nullopt;
  uint64_t value = 0;
  for (int field = 0; field < 8; ++field)
    if (!(fields >> value)) return std::nullopt;
  return value;
}

HostLoadSnapshot takeHostLoadSnapshot() {
  HostLoadSnapshot snapshot;
  std::ifstream stat("/proc/stat");
  const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  snapshot.stealTicks = parseStealTicks(text);
  rusage usage{};
  if (getrusage(RUSAGE_THREAD, &usage) == 0) snapshot.involuntarySwitches = uint64_t(usage.ru_nivcsw);
  return snapshot;
}

HostLoad hostLoadBetween(const HostLoadSnapshot& before, const HostLoadSnapshot& after) {
  HostLoad load;
  const long ticksPerSecond = sysconf(_SC_CLK_TCK);
  if (before.stealTicks && after.stealTicks && ticksPerSecond > 0 && *after.stealTicks >= *before.stealTicks)
    load.stealMs = double(*after.stealTicks - *before.stealTicks) * 1000.0 / double(ticksPerSecond);
  if (after.involuntarySwitches >= before.involuntarySwitches)
    load.involuntarySwitches = after.involuntarySwitches - before.involuntarySwitches;
  return load;
}

}  // namespace vksim
