// Timing of the simulation kernels against the card's own device-to-device
// copy bandwidth, for the kernel benchmark (tests/gpu/kernel_bench.cpp). No
// CUDA types: the benchmark program includes only this.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "sim/sim_types.h"

namespace vksim {

// Fewest bytes a step must move through device memory, each input read once
// and each output written once (docs/interop-walkthrough.md, "Kernel speed"):
//   ripple:   read current and previous heights (8), write the next heights (4)
//             and the vertex (32): 44 bytes a vertex
//   sinewave: write the vertex (32): 32 bytes a vertex (nothing is read)
uint64_t minimumStepBytes(ModelKind model, uint32_t grid);

// The same for the ripple step with the surface texture, as the backend runs
// it (rippleStepTexelsKernel, then downsampleLevelsKernel, up to five levels a
// launch, for the levels below kStepTexelLevels): the ripple's 44 bytes a vertex, plus 4 bytes for every
// texel written, every level (surfaceTextureBytes, sim/surface_texture.h).
// The levels read back to make the ones below are not counted: a step that
// kept them on chip would not read them.
uint64_t minimumTexturedStepBytes(uint32_t grid);

// The ripple field that every timed ripple sample and every bit check starts
// from (restored before each). A step's time depends on its data: a
// subnormal or very small height difference sends the IEEE division of the
// slope down its slow path (docs/results/2026-12-02-kernels.md, "Kernels at
// the memory limit"), so the benchmark times both kinds of field the app
// shows.
//   early:  60 steps after the initial drop, no other drops: the front
//           ahead of its waves holds subnormal heights (the first seconds
//           of a run; the drop itself stops at its footprint, models.h)
//   steady: 1920 steps (32 simulated seconds) of the app's own schedule, an
//           automatic drop every dropInterval steps: the waves have reached
//           every cell, and none is subnormal (what a running app shows)
enum class RippleState { early, steady };
const char* toString(RippleState state);

// Buffers for one grid on CUDA device `ordinal`: a vertex buffer and the
// ripple's three height fields in plain cudaMalloc'd memory (the imported memory is
// device memory of the same kind), plus two copy buffers of the same total size,
// and the surface texture's mipmapped array with a surface object per level.
class KernelBench {
 public:
  // The buffers on device `ordinal`, or why not (one sentence, exit code 3:
  // no CUDA device, not enough memory).
  static Result<std::unique_ptr<KernelBench>> create(int ordinal, uint32_t grid);
  virtual ~KernelBench() = default;
  // Milliseconds per launch sequence, averaged over `repetitions` back-to-back
  // sequences between two CUDA events (after one warm-up sequence).
  virtual double timeRippleStepMs(int repetitions) = 0;    // the backends' ripple step (rippleStepKernel)
  // The backends' ripple step with the surface texture on, every level
  // (minimumTexturedStepBytes says which launches), into a mipmapped array of
  // the bench's own (RGBA8, grid x grid, surfaceTextureLevelCount(grid)
  // levels, surface load/store), as the backend's array mapped from the
  // renderer's image; -1 when a launch failed.
  virtual double timeRippleTexturedStepMs(int repetitions) = 0;
  // The same launches with the step capped for five blocks an SM
  // (rippleStepTexelsFiveBlocksKernel, lab/cuda/kernel_candidates.cuh).
  virtual double timeRippleTexturedStepFiveBlocksMs(int repetitions) = 0;
  // rippleStepTexelsKernel alone, writing levels 0 .. levels-1 (1 to
  // kStepTexelLevels) and no level below: with 1, the level-0 texels without
  // the block's mip phases, to split what each costs the step.
  virtual double timeRippleStepTexelsKernelMs(int repetitions, uint32_t levels) = 0;
  // Every level, as timeRippleTexturedStepMs, but the step writes only
  // levels 0 .. stepLevels-1 and downsampleLevelsKernel the rest, from level
  // stepLevels-1: with 1, the block's mip phases move out of the step into
  // launches that read level 0 back.
  virtual double timeRippleTexturedStepLevelsMs(int repetitions, uint32_t stepLevels) = 0;
  virtual double timeSinewaveStepMs(int repetitions) = 0;  // the backends' sinewave step (sinewaveStepKernel)
  // Baselines, to show what the row kernels gain: the ripple as two passes
  // (leapfrog, then vertices from the new heights; 48 bytes a vertex moved)
  // and the sinewave with 2D blocks and per-thread stores.
  virtual double timeRippleTwoPassMs(int repetitions) = 0;
  virtual double timeSinewaveTiledMs(int repetitions) = 0;
  virtual double timeDeviceCopyMs(uint64_t bytes, int repetitions) = 0;  // cudaMemcpyAsync device to device
  // The ripple step's memory traffic alone, with none of its arithmetic:
  // each cell's current and previous heights read once, its next height and
  // 32 bytes of vertex written once, each warp's stores covering 512
  // contiguous bytes (evict-first with `streaming`). Its bandwidth is what
  // the memory system gives this mix (8 bytes read, 36 written a cell): the
  // ceiling for any ripple kernel. What it writes means nothing.
  virtual double timeRippleTrafficMs(bool streaming, int repetitions) = 0;
  // The streaming traffic with 4 bytes of level 0 a cell: texels 0 none, 1
  // through the texture's surface a row of 32 a warp store (the step's shape
  // before it stored level 0 in two-row pieces), 2 by plain stores
  // into a row-major buffer: what the surface path costs beside the bytes.
  // 3: through the surface, 16 bytes (four texels) a store.
  virtual double timeRippleTrafficTexelsMs(int texels, int repetitions) = 0;
  // Texels that 3 leaves different from 2's (same inputs); -1 on failure.
  virtual int64_t trafficTexelsWideMismatches() = 0;

  // The candidate step kernels of `model` by name (kernel_candidates.cuh):
  // "backend" first (the entry point both backends run), then "row" (the row
  // kernel, the reference), for ripple "plain" (the lesson's kernel, one
  // thread a vertex: cuda_ripple_plain.cuh), then "tileWxR" (W columns x R rows a block) and,
  // for ripple, "stripWxR" (W columns walked down R rows; "stripW": the rows
  // divided among as many blocks as fill the GPU once), "warprow32x8",
  // "warpcol32xH" and "warpin32xH" (one warp a row segment or a column of
  // H/8 rows, no block-wide barrier; "warpin": warps that touch no edge of
  // the grid take an unchecked path). Suffixes: "-cs"
  // when the vertex stores carry the streaming hint, "-ld" when the height
  // loads carry cache hints, "-pf" when a tile's previous heights are loaded
  // (with those hints) before its first barrier, "-d1" when a strip loads
  // one row ahead instead of two, "-oN" when the registers are capped so
  // that N blocks fit on an SM.
  virtual std::vector<std::string> variants(ModelKind model) const = 0;
  // Milliseconds per step of the named candidate, as timeRippleStepMs; -1 for
  // an unknown name or a failed launch.
  virtual double timeVariantMs(ModelKind model, const std::string& name, int repetitions) = 0;
  // Whether the named candidate writes exactly the bytes the row kernel writes
  // (vertices, and the next heights for ripple) from the same state: a few
  // steps after the selected ripple field, a sinewave frame a few steps in.
  // The outputs are filled with 0xFF first, so a kernel that writes nothing
  // does not match. An Error when a CUDA call failed.
  virtual Result<bool> variantMatchesRowKernel(ModelKind model, const std::string& name) = 0;
  // Which field the ripple timings and bit checks start from (steady until
  // changed), and the share of that field's current heights that are
  // subnormal (nonzero and smaller than FLT_MIN in magnitude).
  virtual void selectRippleState(RippleState state) = 0;
  virtual double subnormalShare(RippleState state) const = 0;
  virtual std::string deviceName() const = 0;
};

}  // namespace vksim
