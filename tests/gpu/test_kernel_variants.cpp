// Every candidate step kernel (lab/cuda/kernel_candidates.cuh) writes exactly the
// bytes of the row kernel, so that the backends may switch to whichever is
// fastest (BackendRippleConfig, BackendSinewaveConfig) without a change in
// their results; "backend", the entry point both backends run, is one of
// them. Grids that tiles and strips do not divide (and one smaller than a
// tile) check the edges of the last blocks and of partial warps: 257 leaves
// the last strip or tile one column wide and one row tall.
#include <algorithm>

#include "gpu_environment.h"
#include "lab/cuda/cuda_kernel_bench.h"

namespace vksim {
namespace {

void expectEveryCandidateMatches(std::initializer_list<uint32_t> grids) {
  for (uint32_t grid : grids) {
    Result<std::unique_ptr<KernelBench>> bench = KernelBench::create(0, grid);
    ASSERT_TRUE(bench) << bench.error().message;
    for (ModelKind model : {ModelKind::ripple, ModelKind::sinewave}) {
      const std::vector<std::string> names = (*bench)->variants(model);
      ASSERT_GE(names.size(), 3u);
      EXPECT_EQ(names.front(), "backend");
      EXPECT_NE(std::find(names.begin(), names.end(), "row"), names.end());
      // From both ripple fields: the early one has subnormal heights, which
      // take other paths through the division than the steady one's.
      for (RippleState state : {RippleState::early, RippleState::steady}) {
        (*bench)->selectRippleState(state);
        for (const std::string& name : names) {
          const Result<bool> same = (*bench)->variantMatchesRowKernel(model, name);
          ASSERT_TRUE(same) << same.error().message;
          EXPECT_TRUE(*same) << toString(model) << " " << name << " at grid " << grid << " from the "
                             << toString(state) << " field";
        }
        if (model != ModelKind::ripple) break;
      }
    }
  }
}

// Small grids, quick enough under compute-sanitizer (scripts/gpu-check-bench).
TEST(KernelVariants, EveryCandidateWritesTheRowKernelsBytes) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  expectEveryCandidateMatches({20u, 257u, 300u});
}

TEST(KernelVariants, EveryCandidateWritesTheRowKernelsBytesAtALargeGrid) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  expectEveryCandidateMatches({1024u});
}

// The kernel a reader opens first (sim/cuda/cuda_ripple_plain.cuh, "plain")
// computes what the tuned kernel the backends run ("backend") computes: both
// write the row kernel's bytes, vertices and next heights, from both fields,
// so they write each other's (and CudaAgainstCpu holds the backend to the
// CPU reference). Grids that leave partial blocks and warps at the edges.
TEST(KernelVariants, ThePlainKernelWritesTheTunedKernelsBytes) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  for (uint32_t grid : {20u, 257u, 300u, 1024u}) {
    Result<std::unique_ptr<KernelBench>> bench = KernelBench::create(0, grid);
    ASSERT_TRUE(bench) << bench.error().message;
    const std::vector<std::string> names = (*bench)->variants(ModelKind::ripple);
    ASSERT_NE(std::find(names.begin(), names.end(), "plain"), names.end()) << "the lesson's kernel is not listed";
    for (RippleState state : {RippleState::early, RippleState::steady}) {
      (*bench)->selectRippleState(state);
      for (const char* name : {"plain", "backend"}) {
        const Result<bool> same = (*bench)->variantMatchesRowKernel(ModelKind::ripple, name);
        ASSERT_TRUE(same) << same.error().message;
        EXPECT_TRUE(*same) << name << " at grid " << grid << " from the " << toString(state) << " field";
      }
    }
  }
}

// The two fields the candidates are timed and checked from differ in what
// matters to the division: the early one has subnormal heights, the steady
// one (what a running app computes on) none. Since drops stop at their
// footprint (2026-12-04) only the front ahead of the waves holds them: 0.43 %
// of the cells at 1024² on the H200, where the Gaussian's tail made it more
// than 1 % before.
TEST(KernelVariants, OnlyTheEarlyFieldHasSubnormalHeights) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  for (uint32_t grid : {257u, 1024u}) {
    Result<std::unique_ptr<KernelBench>> bench = KernelBench::create(0, grid);
    ASSERT_TRUE(bench) << bench.error().message;
    EXPECT_GT((*bench)->subnormalShare(RippleState::early), 0.0) << "grid " << grid;
    EXPECT_EQ((*bench)->subnormalShare(RippleState::steady), 0.0) << "grid " << grid;
  }
}

TEST(KernelVariants, AnUnknownNameIsRefused) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  Result<std::unique_ptr<KernelBench>> bench = KernelBench::create(0, 64);
  ASSERT_TRUE(bench) << bench.error().message;
  EXPECT_FALSE((*bench)->variantMatchesRowKernel(ModelKind::ripple, "no-such-kernel"));
  EXPECT_LT((*bench)->timeVariantMs(ModelKind::sinewave, "no-such-kernel", 1), 0.0);
}

}  // namespace
}  // namespace vksim
