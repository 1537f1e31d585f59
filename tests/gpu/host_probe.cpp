// The host's own steadiness, measured beside the CPU backend's work (docs/
// benchmarks.md, "Steady frames"). Not a test. Each round runs, one after
// the other on this thread, four pieces of work of about the same length
// (and a fifth beside one of them):
//   sim    the CPU backend's step as the app runs it (ripple with the
//          texture, createCpuSimulation), into host memory instead of Vulkan's;
//   core   vector multiply-adds over 4 KiB: the core's throughput alone, which
//          follows its clock and whatever shares the core (an SMT sibling);
//   cache  reads over 4 MiB, past a core's own caches and inside a shared
//          last-level cache, which the machine's other work also fills;
//   dram   reads that always miss every cache: the memory system, which the
//          other tenants of the machine share;
//   core2  the core probe again, at the same moment, on a thread pinned to
//          another CPU: whether a slow phase is the one core's or every core's.
// The program cannot make core, cache or dram steadier: if they jitter as
// much as sim does, sim's P99 is the host's, not the program's. Printed:
// each piece's mean, P50, P99, P99/mean and max; how sim's time follows the
// others round by round (correlation); the means over blocks of rounds (a
// slow phase shows as a level); the steal time, the involuntary switches, the
// CPUs the thread ran on and the cgroup's CPU throttling over the run.
//   host_probe [grid (512)] [rounds (600)]
#include <fmt/core.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <semaphore>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "app/capture/capture_stats.h"
#include "app/capture/host_load.h"
#include "base/host_clock.h"
#include "sim/host_sync.h"
#include "sim/simulation.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

// The schedule's waits and signals have nothing to wait for here: there is
// no render. The step's own work is what is measured.
class NoRender final : public HostSemaphoreOps {
 public:
  bool waitTimeline(uint64_t, uint64_t) override { return true; }
  void signalTimeline(uint64_t) override {}
  bool waitRenderDone(uint64_t) override { return true; }
  void signalSimDone() override {}
};

volatile float gSink = 0;  // keeps the probes' results alive

// `count` passes of multiply-adds over 1,024 floats (4 KiB, in L1): 256
// independent vector operations a pass, so throughput, not latency, bounds it.
void coreWork(uint64_t count) {
  thread_local float values[1024] = {};  // each thread its own (OtherCpu)
  for (uint64_t pass = 0; pass < count; ++pass)
    for (float& v : values) v = v * 0.999f + 0.001f;
  gSink = values[count % 1024];
}

// Reads `count` cache lines; a 64-byte line a load.
float sumLines(const float* base, size_t lines, size_t first, uint64_t count) {
  float sum = 0;
  for (uint64_t k = 0; k < count; ++k) sum += base[((first + k) % lines) * 16];
  return sum;
}

// The cache probe reads the same 4 MiB again and again; the dram probe walks
// on through 1 GiB, so a line comes back only after a gigabyte of others.
struct LineBuffer {
  std::vector<float> floats;
  size_t next = 0;
  explicit LineBuffer(size_t bytes) : floats(bytes / sizeof(float), 1.0f) {}
  size_t lines() const { return floats.size() / 16; }
  void read(uint64_t count) {
    gSink = sumLines(floats.data(), lines(), next, count);
    next = (next + count) % lines();
  }
};

template <typename Work>
double timedMs(const Work& work) {
  const uint64_t begin = hostNowNs();
  work();
  return double(hostNowNs() - begin) * 1e-6;
}

// nr_throttled and throttled_usec of the cgroup v2 this process runs in
// (the root's file when the process sees only its own); 0 where absent.
struct Throttling {
  uint64_t periods = 0, usec = 0;
};
Throttling readThrottling() {
  Throttling t;
  std::ifstream file("/sys/fs/cgroup/cpu.stat");
  std::string key;
  uint64_t value = 0;
  while (file >> key >> value) {
    if (key == "nr_throttled") t.periods = value;
    if (key == "throttled_usec") t.usec = value;
  }
  return t;
}

double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = double(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) ma += a[i] / n, mb += b[i] / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

// The core probe at the same moment on another CPU, on a thread of its own:
// if the two slow down together, the host slows every core (its clock);
// if not, something shares the one core (an SMT sibling, another guest).
class OtherCpu {
 public:
  explicit OtherCpu(int cpu) : thread_([this, cpu] { loop(cpu); }) {}
  ~OtherCpu() {
    count_ = 0;
    go_.release();
    thread_.join();
  }
  void start(uint64_t count) {
    count_ = count;
    go_.release();
  }
  double waitMs() {
    done_.acquire();
    return ms_;
  }

 private:
  void loop(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    for (;;) {
      go_.acquire();
      if (count_ == 0) return;
      ms_ = timedMs([this] { coreWork(count_); });
      done_.release();
    }
  }
  std::binary_semaphore go_{0}, done_{0};
  uint64_t count_ = 0;  // 0: stop (handed over by the semaphores)
  double ms_ = 0;
  std::thread thread_;
};

struct Probe {
  const char* name;
  std::function<void(uint64_t)> work;  // `count` units of it
  uint64_t count = 1;
  std::vector<double> ms;  // one time a round
};

void printStats(const Probe& probe) {
  std::vector<double> sorted = probe.ms;
  std::sort(sorted.begin(), sorted.end());
  double mean = 0;
  for (double v : sorted) mean += v / double(sorted.size());
  const double p99 = interpolatedPercentile(sorted, 0.99);
  fmt::print("{:<5} mean {:8.3f} ms  P50 {:8.3f}  P99 {:8.3f}  P99/mean {:5.3f}  max {:8.3f}\n", probe.name,
             mean, interpolatedPercentile(sorted, 0.50), p99, p99 / mean, sorted.back());
}

void printBlocks(const std::vector<Probe>& probes) {
  constexpr size_t kBlock = 50;
  fmt::print("means over blocks of {} rounds, ms:", kBlock);
  for (const Probe& probe : probes) fmt::print(" {:>8}", probe.name);
  for (size_t b = 0; b + kBlock <= probes[0].ms.size(); b += kBlock) {
    fmt::print("\n  rounds {:4}-{:4}:             ", b, b + kBlock - 1);
    for (const Probe& probe : probes) {
      double sum = 0;
      for (size_t i = b; i < b + kBlock; ++i) sum += probe.ms[i];
      fmt::print(" {:8.3f}", sum / kBlock);
    }
  }
  fmt::print("\n");
}

// The count of `probe`'s units that takes about `targetMs`, from the fastest
// of five runs of `trial` units.
uint64_t countFor(const Probe& probe, uint64_t trial, double targetMs) {
  double best = 1e9;
  for (int i = 0; i < 5; ++i) best = std::min(best, timedMs([&] { probe.work(trial); }));
  return std::max<uint64_t>(1, uint64_t(double(trial) * targetMs / best));
}

// The rounds, with what the host did meanwhile.
void measure(std::vector<Probe>& probes, size_t rounds) {
  const int cpuCount = int(std::thread::hardware_concurrency());
  std::optional<OtherCpu> other;
  if (cpuCount > 1) other.emplace((sched_getcpu() + cpuCount / 2) % cpuCount);
  Probe otherCore{"core2", nullptr};
  std::set<int> cpus;
  const HostLoadSnapshot before = takeHostLoadSnapshot();
  const Throttling throttleBefore = readThrottling();
  for (size_t r = 0; r < rounds; ++r) {
    for (Probe& probe : probes) {
      if (other && &probe == &probes[1]) other->start(probe.count);  // core, on both CPUs at once
      probe.ms.push_back(timedMs([&] { probe.work(probe.count); }));
      if (other && &probe == &probes[1]) otherCore.ms.push_back(other->waitMs());
    }
    cpus.insert(sched_getcpu());
  }
  if (other) probes.push_back(std::move(otherCore));
  const HostLoad load = hostLoadBetween(before, takeHostLoadSnapshot());
  const Throttling throttleAfter = readThrottling();
  for (const Probe& probe : probes) printStats(probe);
  fmt::print("correlation with sim, round by round:");
  for (size_t k = 1; k < probes.size(); ++k)
    fmt::print(" {} {:.2f}", probes[k].name, correlation(probes[0].ms, probes[k].ms));
  if (other) fmt::print("; core with core2 {:.2f}", correlation(probes[1].ms, probes.back().ms));
  fmt::print("\n");
  printBlocks(probes);
  fmt::print(
      "steal over the run, every CPU: {}; involuntary switches: {}; CPUs used: {}; "
      "cgroup throttled: {} periods, {:.1f} ms\n",
      load.stealMs ? fmt::format("{:.0f} ms", *load.stealMs) : std::string("not reported"),
      load.involuntarySwitches, cpus.size(), throttleAfter.periods - throttleBefore.periods,
      double(throttleAfter.usec - throttleBefore.usec) * 1e-3);
}

int run(uint32_t grid, size_t rounds) {
  ModelParams params;
  params.grid = grid;
  std::vector<Vertex> vertices(size_t(grid) * grid);
  std::vector<uint8_t> texels(surfaceTextureBytes(grid));
  NoRender noRender;
  std::unique_ptr<Simulation> sim = createCpuSimulation(params, vertices.data(), noRender, texels.data());
  if (!sim) return fmt::print(stderr, "host_probe: grid {} is out of range\n", grid), 2;
  sim->writeInitialState();
  const StepSync sync{.mode = SyncMode::timeline};
  LineBuffer cache(size_t(4) << 20), dram(size_t(1) << 30);
  std::vector<Probe> probes = {{"sim",
                                [&](uint64_t count) {
                                  for (uint64_t k = 0; k < count; ++k) sim->step(sync, true, 1'000'000'000);
                                }},
                               {"core", coreWork},
                               {"cache", [&](uint64_t count) { cache.read(count); }},
                               {"dram", [&](uint64_t count) { dram.read(count); }}};
  // Past the first drops and the field's early steps; then sim's length sets the others'.
  double simMs = 1e9;
  for (int i = 0; i < 30; ++i) simMs = std::min(simMs, timedMs([&] { probes[0].work(1); }));
  probes[1].count = countFor(probes[1], 1000, simMs);
  probes[2].count = countFor(probes[2], 1 << 20, simMs);
  probes[3].count = countFor(probes[3], 1 << 20, simMs);
  fmt::print(
      "host_probe: grid {}, {} rounds of sim (one step), core ({} passes), cache ({} lines), dram ({} "
      "lines)\n",
      grid, rounds, probes[1].count, probes[2].count, probes[3].count);
  measure(probes, rounds);
  return 0;
}

}  // namespace
}  // namespace vksim

int main(int argc, char** argv) {
  const uint32_t grid = argc > 1 ? uint32_t(std::strtoul(argv[1], nullptr, 10)) : 512;
  const size_t rounds = argc > 2 ? size_t(std::strtoul(argv[2], nullptr, 10)) : 600;
  if (rounds < 20) return fmt::print(stderr, "host_probe: at least 20 rounds\n"), 2;
  return vksim::run(grid, rounds);
}
