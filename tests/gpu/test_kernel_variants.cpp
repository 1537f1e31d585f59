// Every candidate step kernel (sim/cuda/cuda_kernels.cuh) writes exactly the
// bytes of the row kernel, so that the backends may switch to whichever is
// fastest (BackendRippleConfig, BackendSinewaveConfig) without a change in
// their results; "backend", the entry point both backends run, is one of
// them. Grids that tiles and strips do not divide (and one smaller than a
// tile) check the edges of the last blocks and of partial warps: 257 leaves
// the last strip or tile one column wide and one row tall.
#include <algorithm>

#include "gpu_environment.h"
#include "sim/cuda/cuda_kernel_bench.h"

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
      for (const std::string& name : names) {
        const Result<bool> same = (*bench)->variantMatchesRowKernel(model, name);
        ASSERT_TRUE(same) << same.error().message;
        EXPECT_TRUE(*same) << toString(model) << " " << name << " at grid " << grid;
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

TEST(KernelVariants, AnUnknownNameIsRefused) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  Result<std::unique_ptr<KernelBench>> bench = KernelBench::create(0, 64);
  ASSERT_TRUE(bench) << bench.error().message;
  EXPECT_FALSE((*bench)->variantMatchesRowKernel(ModelKind::ripple, "no-such-kernel"));
  EXPECT_LT((*bench)->timeVariantMs(ModelKind::sinewave, "no-such-kernel", 1), 0.0);
}

}  // namespace
}  // namespace vksim
