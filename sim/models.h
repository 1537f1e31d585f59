// The CPU reference of both models: what the CPU backend runs, what the CUDA
// backend's host side uses to prepare each step (time, coefficients, drops),
// and what the tests compare either backend against. Single-threaded and
// bitwise reproducible for given parameters and calls. The arithmetic per
// vertex and per cell lives in sim/model_math.h, shared with the kernels.
#pragma once
#include <cstdint>
#include <vector>

#include "shaders/shared_layout.h"
#include "sim/model_math.h"
#include "sim/sim_types.h"

namespace vksim {

// Automatic drops fall inside [-kDropExtent, kDropExtent] on both axes: 0.3
// world units (6 default sigmas) away from the fixed edges.
inline constexpr float kDropExtent = 0.7f;
// The smallest drop sigma, world units: keeps 1/(2 sigma^2) finite.
inline constexpr float kMinDropRadius = 1.0e-3f;

// The parameters as the models use them. Clamps rather than rejects, so that a
// slider that overshoots leaves a running simulation stable: courant to
// [0, kMaxCourant] (the CFL limit of the 2D leapfrog, 1/sqrt(2)), damping to
// >= 0 (negative damping would feed energy in), dropRadius to >= kMinDropRadius.
// Structural fields (model, grid) are returned unchanged.
ModelParams clampModelParams(const ModelParams& params);

// What setParams keeps and changes: `requested` clamped, with the model and
// grid of `current` (they decide the shared buffer and the state; changing
// them takes a new Simulation).
ModelParams changeParams(const ModelParams& current, const ModelParams& requested);

// splitmix64 (Steele, Lea, Flood 2014; the seeder of xoshiro): a bijective
// mix of a 64-bit counter. Spelled out here so that every compiler and standard
// library gives the same drops (std:: distributions are not specified bit for
// bit).
uint64_t splitMix64(uint64_t value);

// The position of automatic drop number `dropNumber` (1, 2, ...) for `seed`: a
// pure function of the two, uniform on a 2^24 lattice inside
// [-kDropExtent, kDropExtent]^2. Radius and amplitude from params.
Drop automaticDrop(const ModelParams& params, uint64_t dropNumber);

// The drop that the initial ripple state starts from: centred, radius and
// amplitude from params.
Drop initialDrop(const ModelParams& params);

// The drops that step number `stepNumber` (1 for the first step after the
// initial state) applies, in the order they are applied: the automatic drop
// (number stepNumber / dropInterval) when dropInterval > 0 and stepNumber is a
// multiple of it, then `queued` in the order addDrop received them.
std::vector<Drop> stepDrops(const ModelParams& params, uint64_t stepNumber, const std::vector<Drop>& queued);

// How far a drop reaches, in sigmas along each axis. Its Gaussian falls to
// amplitude * exp(-kDropReachSigmas^2 / 2) = 1.5e-8 * amplitude there (9e-10
// world units at the default 0.06), a hundred times below the 2e-6 that the
// backends may differ by (docs/interop-walkthrough.md, section 9). Cells
// further out are left alone: at 8192^2 the default drop's footprint is 9 %
// of the grid, where a pass over every cell cost 0.3 ms a drop step
// (docs/benchmarks.md, "Steady frames").
inline constexpr float kDropReachSigmas = 6.0f;

// The interior cells within `reach` world units of (x, z) along each axis.
CellRect cellsWithin(float x, float z, float reach, uint32_t grid);

// A drop as model_math.h evaluates it on a grid of `grid` cells a side: radius
// clamped to kMinDropRadius, footprint the cells within kDropReachSigmas of it.
DropShape makeDropShape(const Drop& drop, uint32_t grid);

// The smallest rectangle holding every shape's footprint (empty for none).
CellRect footprintUnion(const DropShape* shapes, size_t count);

// The leapfrog constants for clamped params (see RippleCoefficients).
RippleCoefficients rippleCoefficients(const ModelParams& params);

// The sinewave constants at step `step`: time = step * timeStep, rounded once
// to float from the exact product.
SinewaveFrame sinewaveFrame(const ModelParams& params, uint64_t step);

// Writes the sinewave at step `step` into vertices (grid*grid, row-major).
void writeSinewaveVertices(const ModelParams& params, uint64_t step, Vertex* vertices);

// The same a row at a time: the factors per column and per row computed once
// for the step (2n sin/cos), then any row j's grid vertices.
class SinewaveRows {
 public:
  SinewaveRows(const ModelParams& params, uint64_t step);
  void write(uint32_t j, Vertex* row) const;

 private:
  SinewaveFrame frame_;
  std::vector<float> factorX_, factorZ_;
};

// The ripple model's state: two height fields, `previous` and `current`
// (grid*grid floats each, row-major, edges always exactly 0).
//
// One step, both backends:
//   1. for each drop of stepDrops(params, stepCount + 1, queued), in order,
//      every cell of its footprint does current += g and previous += g, with
//      g = dropHeight(makeDropShape(drop, grid), x, z) (so the drop starts at
//      rest);
//   2. every cell computes rippleNextHeight from current and its own previous
//      height, written over previous in place;
//   3. the roles of the two fields swap (the new heights become current), and
//      the queue is emptied.
// The host evaluates all of it with subnormals flushed (host_float_mode.h).
// The next automatic drop's Gaussian is computed ahead, a band of rows at the
// end of each step before it, and added from there on its step: the same
// values in the same order, but no step pays for a whole grid of expf. It
// costs one more grid of floats while automatic drops are on.
class RippleModel {
 public:
  explicit RippleModel(const ModelParams& params);  // starts in reset()'s state

  // Flat field plus initialDrop() (at rest), stepCount 0, queue emptied.
  void reset();
  // Non-structural changes (model and grid are kept) from the next step.
  void setParams(const ModelParams& params);
  const ModelParams& params() const { return params_; }
  // Queues a drop for the next step.
  void addDrop(const Drop& drop) { queued_.push_back(drop); }
  // One step as described above.
  void step();
  // Vertices from the current field (grid*grid, row-major).
  void writeVertices(Vertex* vertices) const;
  // Row j of them (grid vertices).
  void writeVertexRow(uint32_t j, Vertex* row) const;
  // Rows of the next automatic drop computed ahead so far (0..grid).
  uint32_t preparedDropRows() const { return prepared_.rowsDone; }

  const std::vector<float>& current() const { return current_; }
  const std::vector<float>& previous() const { return previous_; }
  uint64_t stepCount() const { return stepCount_; }

 private:
  // A drop's heights, computed ahead for the drop `drop` (the cells of its
  // footprint in rows [0, rowsDone); nothing else is read).
  struct PreparedDrop {
    Drop drop;
    uint32_t rowsDone = 0;
    std::vector<float> heights;
  };

  void applyDrop(const Drop& drop);
  // One band of the next automatic drop's rows, sized so that the band of
  // its own step's eve completes it.
  void prepareNextDrop();

  ModelParams params_;
  PreparedDrop prepared_;
  std::vector<float> previous_, current_;
  std::vector<Drop> queued_;
  uint64_t stepCount_ = 0;
};

}  // namespace vksim
