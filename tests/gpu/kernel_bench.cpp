// Kernel speed as a benchmark, not a test: each simulation step's time against
// the card's device-to-device copy bandwidth, measured in the same run.
// Bandwidths count the fewest bytes a step must move (minimumStepBytes; for
// the ripple step with the surface texture, minimumTexturedStepBytes): a
// copy moves 2 bytes (read + write) per byte copied.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "lab/cuda/cuda_kernel_bench.h"
#include "sim/cuda/cuda_simulation.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

constexpr int kRepetitions = 50;
// Each iteration already averages kRepetitions launches between two events, so
// a fixed count keeps the run short: Google Benchmark's default (run until the
// manual time adds up to 0.5 s) meant ~40,000 iterations of the 12 us copy,
// minutes of wall time for seconds of measurement.

KernelBench* benchFor(uint32_t grid) {
  static std::map<uint32_t, std::unique_ptr<KernelBench>> benches;
  auto& bench = benches[grid];
  if (!bench) {
    Result<std::unique_ptr<KernelBench>> created = KernelBench::create(0, grid);
    if (created)
      bench = std::move(*created);
    else
      std::fprintf(stderr, "kernel_bench: %s\n", created.error().message.c_str());
  }
  return bench.get();
}

void reportBandwidth(benchmark::State& state, double ms, uint64_t bytes) {
  state.SetIterationTime(ms / 1000.0);
  state.counters["GBps"] = benchmark::Counter(double(bytes) / (ms * 1e6));
}

void deviceCopy(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  const uint64_t bytes = minimumStepBytes(ModelKind::ripple, grid) / 2;  // copied; moved twice over
  for (auto _ : state) reportBandwidth(state, bench->timeDeviceCopyMs(bytes, kRepetitions), 2 * bytes);
}

void rippleStep(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  for (auto _ : state)
    reportBandwidth(state, bench->timeRippleStepMs(kRepetitions), minimumStepBytes(ModelKind::ripple, grid));
}

void rippleTexturedStep(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  for (auto _ : state)
    reportBandwidth(state, bench->timeRippleTexturedStepMs(kRepetitions), minimumTexturedStepBytes(grid));
}

void rippleTexturedStepFiveBlocks(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  for (auto _ : state)
    reportBandwidth(state, bench->timeRippleTexturedStepFiveBlocksMs(kRepetitions), minimumTexturedStepBytes(grid));
}

// The textured step kernel alone (no launch below it), writing levels
// 0 .. range(1)-1: its bytes are the ripple's and those levels' texels.
void rippleTexelsStepAlone(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0)), levels = uint32_t(state.range(1));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  const uint64_t bytes = minimumStepBytes(ModelKind::ripple, grid) + surfaceTextureLevel(grid, levels).offset;
  for (auto _ : state) reportBandwidth(state, bench->timeRippleStepTexelsKernelMs(kRepetitions, levels), bytes);
}

// Every level, the step writing levels 0 .. range(1)-1 and the tile kernel
// the rest: the same bytes as rippleTexturedStep, which it is at range(1) = 4.
void rippleTexturedStepLevels(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0)), stepLevels = uint32_t(state.range(1));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  for (auto _ : state)
    reportBandwidth(state, bench->timeRippleTexturedStepLevelsMs(kRepetitions, stepLevels),
                    minimumTexturedStepBytes(grid));
}

// The ripple's traffic alone and with level 0's texels (range(1): 0 none,
// 1 through the surface, 2 plain stores to a linear buffer, 3 through the
// surface 16 bytes a store, 4 through the surface 16 columns of two rows a
// warp store); bytes: the ripple's, plus 4 a cell with texels.
void rippleTrafficTexels(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0));
  const int texels = int(state.range(1));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  const uint64_t bytes = minimumStepBytes(ModelKind::ripple, grid) + (texels ? surfaceTextureLevel(grid, 1).offset : 0);
  for (auto _ : state) reportBandwidth(state, bench->timeRippleTrafficTexelsMs(texels, kRepetitions), bytes);
  if (texels == 3) state.counters["mismatches"] = double(bench->trafficTexelsWideMismatches());
}

void sinewaveStep(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  for (auto _ : state)
    reportBandwidth(state, bench->timeSinewaveStepMs(kRepetitions), minimumStepBytes(ModelKind::sinewave, grid));
}

void rippleTwoPass(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  for (auto _ : state)
    reportBandwidth(state, bench->timeRippleTwoPassMs(kRepetitions), minimumStepBytes(ModelKind::ripple, grid));
}

void sinewaveTiled(benchmark::State& state) {
  const uint32_t grid = uint32_t(state.range(0));
  KernelBench* bench = benchFor(grid);
  if (!bench) return state.SkipWithError("no CUDA device");
  for (auto _ : state)
    reportBandwidth(state, bench->timeSinewaveTiledMs(kRepetitions), minimumStepBytes(ModelKind::sinewave, grid));
}

BENCHMARK(deviceCopy)->Arg(1024)->Arg(2048)->Arg(4096)->Arg(8192)->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(rippleStep)->Arg(1024)->Arg(2048)->Arg(4096)->Arg(8192)->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(rippleTexturedStep)->Arg(1024)->Arg(2048)->Arg(4096)->Arg(8192)->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(rippleTexturedStepFiveBlocks)->Arg(4096)->Arg(8192)->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(rippleTexelsStepAlone)->Args({4096, 1})->Args({4096, 4})->Args({8192, 1})->Args({8192, 4})->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(rippleTexturedStepLevels)->Args({4096, 1})->Args({4096, 4})->Args({8192, 1})->Args({8192, 4})->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(rippleTrafficTexels)->ArgsProduct({{4096, 8192}, {0, 1, 2, 3, 4}})->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(sinewaveStep)->Arg(1024)->Arg(2048)->Arg(4096)->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(rippleTwoPass)->Arg(4096)->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);
BENCHMARK(sinewaveTiled)->Arg(4096)->UseManualTime()->Iterations(20)->Unit(benchmark::kMicrosecond);

// The figure the issue asks for, as ratios within this run: each step's
// achieved bandwidth over the copy's, median of 9 samples of 50 launches.
// "tex" is the ripple step with the surface texture, every level, over
// minimumTexturedStepBytes (the ripple's bytes plus every texel written).
void printRatios() {
  std::printf("\n%-6s %10s %10s %12s %8s %10s %9s %8s %12s %8s %14s %14s\n", "grid", "copy GB/s", "ripple us",
              "ripple GB/s", "of copy", "tex us", "tex GB/s", "of copy", "sine GB/s", "of copy", "2-pass ripple",
              "tiled sine");
  for (uint32_t grid : {1024u, 2048u, 4096u, 8192u}) {
    KernelBench* bench = benchFor(grid);
    if (!bench) return;
    auto median = [](auto&& sample) {
      double v[9];
      for (double& x : v) x = sample();
      std::sort(v, v + 9);
      return v[4];
    };
    const uint64_t rippleBytes = minimumStepBytes(ModelKind::ripple, grid);
    const uint64_t sineBytes = minimumStepBytes(ModelKind::sinewave, grid);
    const double copyMs = median([&] { return bench->timeDeviceCopyMs(rippleBytes / 2, kRepetitions); });
    const double rippleMs = median([&] { return bench->timeRippleStepMs(kRepetitions); });
    const double texturedMs = median([&] { return bench->timeRippleTexturedStepMs(kRepetitions); });
    const double sineMs = median([&] { return bench->timeSinewaveStepMs(kRepetitions); });
    const double twoPassMs = median([&] { return bench->timeRippleTwoPassMs(kRepetitions); });
    const double tiledMs = median([&] { return bench->timeSinewaveTiledMs(kRepetitions); });
    const double copyGBps = double(rippleBytes) / (copyMs * 1e6);
    const double rippleGBps = double(rippleBytes) / (rippleMs * 1e6);
    const double sineGBps = double(sineBytes) / (sineMs * 1e6);
    const double texturedGBps = double(minimumTexturedStepBytes(grid)) / (texturedMs * 1e6);
    std::printf("%-6u %10.0f %10.1f %12.0f %7.0f%% %10.1f %9.0f %7.0f%% %12.0f %7.0f%% %13.0f%% %13.0f%%\n", grid,
                copyGBps, rippleMs * 1000, rippleGBps, 100 * rippleGBps / copyGBps, texturedMs * 1000, texturedGBps,
                100 * texturedGBps / copyGBps, sineGBps, 100 * sineGBps / copyGBps,
                100 * (double(rippleBytes) / (twoPassMs * 1e6)) / copyGBps,
                100 * (double(sineBytes) / (tiledMs * 1e6)) / copyGBps);
  }
  std::printf("(%% = achieved bandwidth over the fewest bytes a step must move, as a share of the copy's; ripple "
              "from the steady field; tex = ripple with the surface texture, its bytes plus 4 a texel, every "
              "level)\n");
}

// Every candidate kernel (kernel_candidates.cuh) at each grid, in the same run
// as the copy: time, achieved bandwidth over the fewest bytes, share of the
// copy's bandwidth, and whether it writes the row kernel's bytes exactly.
// Ripple is timed from both fields of RippleState: steady (what a running
// app computes on, the figure the backends are chosen by) and early (the
// first seconds, with subnormal heights); its bits are checked from both.
// The "backend" line is what both backends run (BackendRippleConfig,
// BackendSinewaveConfig): the best candidate that matches belongs there.
void printVariants() {
  std::printf("\nvariants (median of 9 samples of %d launches; bytes as minimumStepBytes; ripple from the steady "
              "field, and from the early one in the last two columns):\n",
              kRepetitions);
  std::printf("%-9s %-6s %-22s %10s %10s %8s %10s %10s %10s\n", "model", "grid", "kernel", "step us", "GB/s",
              "of copy", "same bits", "early us", "of copy");
  for (uint32_t grid : {1024u, 2048u, 4096u}) {
    KernelBench* bench = benchFor(grid);
    if (!bench) return;
    auto median = [](auto&& sample) {
      double v[9];
      for (double& x : v) x = sample();
      std::sort(v, v + 9);
      return v[4];
    };
    const uint64_t rippleBytes = minimumStepBytes(ModelKind::ripple, grid);
    const double copyMs = median([&] { return bench->timeDeviceCopyMs(rippleBytes / 2, kRepetitions); });
    const double copyGBps = double(rippleBytes) / (copyMs * 1e6);
    std::printf("%-9s %-6u %-22s %10.1f %10.0f %7.0f%% %10s\n", "copy", grid, "cudaMemcpy D2D", copyMs * 1000,
                copyGBps, 100.0, "-");
    std::printf("ripple fields at %u: subnormal current heights steady %.2f %%, early %.2f %%\n", grid,
                100 * bench->subnormalShare(RippleState::steady), 100 * bench->subnormalShare(RippleState::early));
    for (ModelKind model : {ModelKind::ripple, ModelKind::sinewave}) {
      const uint64_t bytes = minimumStepBytes(model, grid);
      const auto share = [&](double ms) { return 100 * (double(bytes) / (ms * 1e6)) / copyGBps; };
      for (const std::string& name : bench->variants(model)) {
        std::string mismatched;  // the fields from which the bits differed
        bool failed = false;
        double ms = 0, earlyMs = 0;
        for (RippleState state : {RippleState::steady, RippleState::early}) {
          bench->selectRippleState(state);
          (state == RippleState::steady ? ms : earlyMs) =
              median([&] { return bench->timeVariantMs(model, name, kRepetitions); });
          const Result<bool> same = bench->variantMatchesRowKernel(model, name);
          failed = failed || !same;
          if (same && !*same) mismatched += std::string(mismatched.empty() ? "" : ",") + toString(state);
          if (model != ModelKind::ripple) break;  // the sinewave has no field
        }
        bench->selectRippleState(RippleState::steady);
        const std::string bits = failed ? "error" : (mismatched.empty() ? "yes" : "NO:" + mismatched);
        std::printf("%-9s %-6u %-22s %10.1f %10.0f %7.0f%% %10s", toString(model), grid, name.c_str(), ms * 1000,
                    double(bytes) / (ms * 1e6), share(ms), bits.c_str());
        if (model == ModelKind::ripple)
          std::printf(" %10.1f %9.0f%%\n", earlyMs * 1000, share(earlyMs));
        else
          std::printf("\n");
      }
      if (model != ModelKind::ripple) continue;
      // The ceiling for ripple's mix of reads and writes: its traffic alone
      // (the same loads and stores whatever the heights).
      for (const bool streaming : {false, true}) {
        const double ms = median([&] { return bench->timeRippleTrafficMs(streaming, kRepetitions); });
        std::printf("%-9s %-6u %-22s %10.1f %10.0f %7.0f%% %10s\n", "ripple", grid,
                    streaming ? "traffic only-cs" : "traffic only", ms * 1000, double(bytes) / (ms * 1e6),
                    share(ms), "n/a");
      }
    }
  }
}

}  // namespace
}  // namespace vksim

int main(int argc, char** argv) {
  const vksim::CudaDeviceList devices = vksim::listCudaDevices();
  if (devices.devices.empty()) {
    std::printf("kernel_bench: no CUDA device (%s); nothing to measure\n", devices.unavailableReason.c_str());
    return 0;
  }
  std::printf("kernel_bench on %s\n", devices.devices[0].name.c_str());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  vksim::printRatios();
  vksim::printVariants();
  benchmark::Shutdown();
  return 0;
}
