// The CPU reference models (sim/models.h) against analytic results and the
// invariants of the discrete scheme. No timing anywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sim/models.h"

namespace vksim {
namespace {

// Unit roundoff of float: half an ulp of 1.
constexpr double kUnitRoundoff = 0x1p-24;

ModelParams sinewaveParams(uint32_t grid) {
  ModelParams params;
  params.model = ModelKind::sinewave;
  params.grid = grid;
  return params;
}

ModelParams rippleParams(uint32_t grid) {
  ModelParams params;
  params.model = ModelKind::ripple;
  params.grid = grid;
  params.dropInterval = 0;  // only the initial drop unless a test adds more
  return params;
}

double exactCoordinate(uint32_t index, uint32_t grid) {
  return -1.0 + 2.0 * index / (grid - 1.0);
}

// ---- the counter-based drop generator

TEST(DropGenerator, SplitMix64MatchesThePublishedSequence) {
  // The first two outputs of Vigna's splitmix64.c seeded with 0: the state
  // advances by the golden gamma before each mix.
  EXPECT_EQ(splitMix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitMix64(0x9E3779B97F4A7C15ull), 0x6E789E6AA1B965F4ull);
}

TEST(DropGenerator, AutomaticDropsAreInsideTheGridAwayFromTheEdges) {
  ModelParams params = rippleParams(256);
  params.seed = 12345;
  float minX = 1, maxX = -1, minZ = 1, maxZ = -1;
  for (uint64_t number = 1; number <= 10000; ++number) {
    const Drop drop = automaticDrop(params, number);
    ASSERT_LE(std::fabs(drop.x), kDropExtent) << number;
    ASSERT_LE(std::fabs(drop.z), kDropExtent) << number;
    EXPECT_EQ(drop.radius, params.dropRadius);
    EXPECT_EQ(drop.amplitude, params.dropAmplitude);
    minX = std::min(minX, drop.x), maxX = std::max(maxX, drop.x);
    minZ = std::min(minZ, drop.z), maxZ = std::max(maxZ, drop.z);
  }
  // Spread over the whole allowed square, not stuck in a corner.
  EXPECT_LT(minX, -0.9f * kDropExtent);
  EXPECT_GT(maxX, 0.9f * kDropExtent);
  EXPECT_LT(minZ, -0.9f * kDropExtent);
  EXPECT_GT(maxZ, 0.9f * kDropExtent);
  EXPECT_LT(kDropExtent + 3 * params.dropRadius, 1.0f) << "default drops must stay 3 sigma inside the edges";
}

TEST(DropGenerator, DropsAreAPureFunctionOfSeedAndNumber) {
  ModelParams params = rippleParams(128);
  params.seed = 7;
  ModelParams otherSeed = params;
  otherSeed.seed = 8;
  int differentFromOtherSeed = 0, differentFromNext = 0;
  for (uint64_t number = 1; number <= 100; ++number) {
    const Drop first = automaticDrop(params, number);
    const Drop again = automaticDrop(params, number);
    EXPECT_EQ(first.x, again.x);
    EXPECT_EQ(first.z, again.z);
    const Drop other = automaticDrop(otherSeed, number);
    differentFromOtherSeed += first.x != other.x || first.z != other.z;
    const Drop next = automaticDrop(params, number + 1);
    differentFromNext += first.x != next.x || first.z != next.z;
  }
  EXPECT_EQ(differentFromOtherSeed, 100);
  EXPECT_EQ(differentFromNext, 100);
}

// The seed is mixed before the drop number is added: without that, seed s+1
// would give seed s's drops one number later (the same ripples, shifted by
// one interval), and neighbouring seeds, which a user tries first, would
// look alike.
TEST(DropGenerator, NearbySeedsAreNotShiftedCopiesOfOneSequence) {
  ModelParams params = rippleParams(128);
  for (const uint64_t seed : {0ull, 1ull, 7ull, 1000ull}) {
    params.seed = seed;
    ModelParams next = params;
    next.seed = seed + 1;
    int shiftedMatches = 0;
    for (uint64_t number = 1; number <= 100; ++number) {
      const Drop later = automaticDrop(params, number + 1);
      const Drop nextSeeds = automaticDrop(next, number);
      shiftedMatches += later.x == nextSeeds.x && later.z == nextSeeds.z;
    }
    EXPECT_EQ(shiftedMatches, 0) << "seed " << seed + 1 << " repeats seed " << seed << "'s drops one number later";
  }
  // One drop, spelled out: seed 1's first drop from splitmix64 of
  // splitmix64(1) + 1 (the top and the middle 24 bits of its output).
  params.seed = 1;
  const uint64_t bits = splitMix64(splitMix64(1) + 1);
  EXPECT_EQ(automaticDrop(params, 1).x, kDropExtent * (2.0f * float(bits >> 40) * 0x1p-24f - 1.0f));
  EXPECT_EQ(automaticDrop(params, 1).z, kDropExtent * (2.0f * float((bits >> 16) & 0xFFFFFFull) * 0x1p-24f - 1.0f));
}

// A change of parameters at run time (a scene loaded from the overlay, the
// overlay's sliders) takes the requested seed: the drops that follow are
// the new seed's. Only the model and the grid stay (they decide the buffer).
TEST(DropGenerator, AChangeOfParametersTakesTheRequestedSeed) {
  ModelParams current = rippleParams(128);
  current.seed = 1;
  ModelParams requested = rippleParams(256);
  requested.seed = 9;
  requested.dropInterval = 5;
  const ModelParams next = changeParams(current, requested);
  EXPECT_EQ(next.seed, 9u);
  EXPECT_EQ(next.dropInterval, 5u);
  EXPECT_EQ(next.grid, 128u);
  EXPECT_EQ(automaticDrop(next, 3).x, automaticDrop(requested, 3).x);
}

TEST(DropGenerator, StepDropsPutTheAutomaticDropFirstOnMultiplesOfTheInterval) {
  ModelParams params = rippleParams(64);
  params.dropInterval = 3;
  Drop queued;
  queued.x = 0.25f;
  const std::vector<Drop> queue{queued};
  EXPECT_EQ(stepDrops(params, 1, {}).size(), 0u);
  EXPECT_EQ(stepDrops(params, 2, queue).size(), 1u);
  const std::vector<Drop> third = stepDrops(params, 3, queue);
  ASSERT_EQ(third.size(), 2u);
  EXPECT_EQ(third[0].x, automaticDrop(params, 1).x);
  EXPECT_EQ(third[1].x, 0.25f);
  EXPECT_EQ(stepDrops(params, 6, {})[0].z, automaticDrop(params, 2).z);
  params.dropInterval = 0;
  EXPECT_EQ(stepDrops(params, 3, {}).size(), 0u);
}

// ---- sinewave

// |float height - exact height| for h = A sin(kx x + t) cos(kz z + t):
// x and t are each rounded once to float (relative u), the argument
// kx*x + t takes two more roundings (so |error| <= 3u|kx x| + 2u|t|), sin and
// cos are 1-Lipschitz and glibc's sinf/cosf are within 1 ulp (2u absolute for
// a value below 1), and the two products round twice more (2u|h|):
//   |dh| <= A (3u(|kx x| + |kz z|) + 4u|t| + 6u).
// The tolerance below uses 4u and 8u: a margin, still near rounding level.
double sinewaveHeightTolerance(const ModelParams& p, double x, double z, double t) {
  return p.amplitude * kUnitRoundoff *
         (4.0 * (std::fabs(p.waveNumberX * x) + std::fabs(p.waveNumberZ * z) + 2.0 * std::fabs(t)) + 8.0);
}

TEST(Sinewave, HeightsMatchTheAnalyticFormula) {
  for (uint32_t grid : {2u, 17u, 64u, 257u}) {
    const ModelParams params = sinewaveParams(grid);
    std::vector<Vertex> vertices(size_t(grid) * grid);
    for (uint64_t step : {0ull, 1ull, 59ull, 600ull, 6000ull}) {
      writeSinewaveVertices(params, step, vertices.data());
      const double t = double(step) * double(params.timeStep);
      for (uint32_t j = 0; j < grid; ++j)
        for (uint32_t i = 0; i < grid; ++i) {
          const Vertex& v = vertices[j * grid + i];
          const double x = exactCoordinate(i, grid), z = exactCoordinate(j, grid);
          const double exact =
              params.amplitude * std::sin(params.waveNumberX * x + t) * std::cos(params.waveNumberZ * z + t);
          ASSERT_NEAR(v.position.y, exact, sinewaveHeightTolerance(params, x, z, t))
              << "grid " << grid << " step " << step << " at " << i << "," << j;
          ASSERT_NEAR(v.position.x, x, kUnitRoundoff);
          ASSERT_NEAR(v.position.z, z, kUnitRoundoff);
          ASSERT_EQ(v.position.w, 1.0f);
          ASSERT_EQ(v.normal.w, 0.0f);
        }
    }
  }
}

TEST(Sinewave, GridCoordinatesSpanMinusOneToOneAndMirrorExactly) {
  for (uint32_t grid : {2u, 3u, 100u, 513u, kMaxGrid}) {
    EXPECT_EQ(gridCoordinate(0, grid), -1.0f);
    EXPECT_EQ(gridCoordinate(grid - 1, grid), 1.0f);
    for (uint32_t i = 0; i < grid; ++i)
      ASSERT_EQ(gridCoordinate(grid - 1 - i, grid), -gridCoordinate(i, grid));
  }
}

// The normal is the unit vector of (-gx, 1, -gz) with (gx, gz) the
// finite-difference slopes. Its error against the analytic normal:
// - truncation: central (h(x+d) - h(x-d)) / 2d = h' + h'''(xi) d^2/6 with
//   |h_xxx| <= A kx^3; one-sided (edges) (h(x+d) - h(x)) / d = h' + h''(xi) d/2
//   with |h_xx| <= A kx^2 (the other factor of h is at most 1);
// - rounding: each height is off by at most sinewaveHeightTolerance, so the
//   difference quotient by 2 of them over its span (2d or d);
// - the map p -> (-p, 1) / sqrt(1 + |p|^2) has Jacobian norm
//   1/sqrt(1 + |p|^2) <= 1, so the normal moves by at most the slope error's
//   length; plus a few u for the normalisation itself.
TEST(Sinewave, NormalsMatchTheAnalyticGradientWithinTheFiniteDifferenceBound) {
  for (uint32_t grid : {9u, 64u, 129u, 512u}) {
    const ModelParams params = sinewaveParams(grid);
    const double d = 2.0 / (grid - 1.0);
    std::vector<Vertex> vertices(size_t(grid) * grid);
    for (uint64_t step : {0ull, 37ull, 500ull}) {
      writeSinewaveVertices(params, step, vertices.data());
      const double t = double(step) * double(params.timeStep);
      const double a = params.amplitude, kx = params.waveNumberX, kz = params.waveNumberZ;
      for (uint32_t j = 0; j < grid; ++j)
        for (uint32_t i = 0; i < grid; ++i) {
          const double x = exactCoordinate(i, grid), z = exactCoordinate(j, grid);
          const double gx = a * kx * std::cos(kx * x + t) * std::cos(kz * z + t);
          const double gz = -a * kz * std::sin(kx * x + t) * std::sin(kz * z + t);
          const double length = std::sqrt(gx * gx + gz * gz + 1.0);
          const bool edgeX = i == 0 || i + 1 == grid, edgeZ = j == 0 || j + 1 == grid;
          const double heightError = sinewaveHeightTolerance(params, 1.0, 1.0, t);
          const double errorX = (edgeX ? a * kx * kx * d / 2 : a * kx * kx * kx * d * d / 6) +
                                2 * heightError / (edgeX ? d : 2 * d);
          const double errorZ = (edgeZ ? a * kz * kz * d / 2 : a * kz * kz * kz * d * d / 6) +
                                2 * heightError / (edgeZ ? d : 2 * d);
          const double bound = std::sqrt(errorX * errorX + errorZ * errorZ) + 8 * kUnitRoundoff;
          const Float4 n = vertices[j * grid + i].normal;
          ASSERT_NEAR(n.x, -gx / length, bound)
              << "grid " << grid << " step " << step << " at " << i << "," << j;
          ASSERT_NEAR(n.y, 1.0 / length, bound)
              << "grid " << grid << " step " << step << " at " << i << "," << j;
          ASSERT_NEAR(n.z, -gz / length, bound)
              << "grid " << grid << " step " << step << " at " << i << "," << j;
          ASSERT_NEAR(std::sqrt(double(n.x) * n.x + double(n.y) * n.y + double(n.z) * n.z), 1.0,
                      4 * kUnitRoundoff);
        }
    }
  }
}

TEST(Sinewave, TimeIsStepTimesTimeStepRoundedOnce) {
  ModelParams params = sinewaveParams(16);
  params.timeStep = 1.0f / 60.0f;
  EXPECT_EQ(sinewaveFrame(params, 0).time, 0.0f);
  EXPECT_EQ(sinewaveFrame(params, 3000).time, static_cast<float>(3000.0 * double(params.timeStep)));
}

// ---- ripple

// The discrete energy of the leapfrog scheme between two successive fields,
// with D the difference across each grid edge (between 4-neighbours, edges to
// the fixed boundary included):
//   E(n+1/2) = sum_cells (u[n+1] - u[n])^2 + nu^2 sum_edges D u[n+1] * D u[n].
// Multiplying the scheme (1+b) u+ = 2u - (1-b) u- + nu^2 L u, b = damping dt/2,
// by (u+ - u-) and summing by parts (zero boundary) gives exactly
//   E(n+1/2) - E(n-1/2) = -b sum_cells (u[n+1] - u[n-1])^2 <= 0,
// and E >= 0 for nu <= 1/sqrt(2). Summed in double.
double rippleEnergy(const std::vector<float>& older, const std::vector<float>& newer, uint32_t grid,
                    double courant) {
  double kinetic = 0, potential = 0;
  for (size_t c = 0; c < newer.size(); ++c)
    kinetic += (double(newer[c]) - older[c]) * (double(newer[c]) - older[c]);
  for (uint32_t j = 0; j < grid; ++j)
    for (uint32_t i = 0; i < grid; ++i) {
      const size_t c = size_t(j) * grid + i;
      if (i + 1 < grid) potential += (double(newer[c + 1]) - newer[c]) * (double(older[c + 1]) - older[c]);
      if (j + 1 < grid)
        potential += (double(newer[c + grid]) - newer[c]) * (double(older[c + grid]) - older[c]);
    }
  return kinetic + courant * courant * potential;
}

double maxAbs(const std::vector<float>& field) {
  double m = 0;
  for (float v : field) m = std::max(m, std::fabs(double(v)));
  return m;
}

bool edgesAreZero(const std::vector<float>& field, uint32_t grid) {
  for (uint32_t k = 0; k < grid; ++k)
    if (field[k] != 0.0f || field[size_t(grid - 1) * grid + k] != 0.0f || field[size_t(k) * grid] != 0.0f ||
        field[size_t(k) * grid + grid - 1] != 0.0f)
      return false;
  return true;
}

TEST(Ripple, InitialStateIsACentredDropAtRest) {
  const ModelParams params = rippleParams(65);
  const RippleModel model(params);
  EXPECT_EQ(model.stepCount(), 0u);
  EXPECT_EQ(model.current(), model.previous());
  EXPECT_EQ(model.current()[32 * 65 + 32], params.dropAmplitude);  // x = z = 0 exactly: exp(0)
  EXPECT_TRUE(edgesAreZero(model.current(), 65));
  std::vector<Vertex> vertices(65 * 65);
  model.writeVertices(vertices.data());
  EXPECT_EQ(vertices[32 * 65 + 32].position.y, params.dropAmplitude);
  EXPECT_EQ(vertices[32 * 65 + 32].normal.y, 1.0f);  // the peak is flat: zero central differences
}

TEST(Ripple, CentredDropStaysExactlySymmetric) {
  // With the Laplacian's grouping, the drop's dx*dx + dz*dz and the normal's
  // slope order (model_math.h), mirroring and transposing commute with every
  // rounding, so the symmetry holds bitwise, not only to rounding.
  for (uint32_t grid : {64u, 65u}) {
    RippleModel model(rippleParams(grid));
    std::vector<Vertex> vertices(size_t(grid) * grid);
    for (int step = 0; step < 1500; ++step) model.step();
    model.writeVertices(vertices.data());
    const std::vector<float>& u = model.current();
    ASSERT_GT(maxAbs(u), 0.0);
    for (uint32_t j = 0; j < grid; ++j)
      for (uint32_t i = 0; i < grid; ++i) {
        const uint32_t mi = grid - 1 - i, mj = grid - 1 - j;
        ASSERT_EQ(u[j * grid + i], u[j * grid + mi]) << i << "," << j;
        ASSERT_EQ(u[j * grid + i], u[mj * grid + i]) << i << "," << j;
        ASSERT_EQ(u[j * grid + i], u[i * grid + j]) << i << "," << j;
        const Float4 n = vertices[j * grid + i].normal;
        const Float4 mirroredX = vertices[j * grid + mi].normal;
        const Float4 transposed = vertices[i * grid + j].normal;
        ASSERT_EQ(n.x, -mirroredX.x) << i << "," << j;
        ASSERT_EQ(n.y, mirroredX.y) << i << "," << j;
        ASSERT_EQ(n.x, transposed.z) << i << "," << j;
        ASSERT_EQ(n.y, transposed.y) << i << "," << j;
      }
  }
}

TEST(Ripple, EnergyBalanceHoldsAndEnergyDecaysWithDamping) {
  ModelParams params = rippleParams(97);
  params.damping = 2.0f;
  params.courant = 0.5f;
  RippleModel model(params);
  const double b = 0.5 * double(params.damping) * double(params.timeStep);
  std::vector<float> older = model.previous();  // u[n-1]
  double energy = rippleEnergy(model.previous(), model.current(), 97, params.courant);
  const double initialEnergy = energy;
  ASSERT_GT(initialEnergy, 0.0);
  for (int step = 0; step < 600; ++step) {
    const std::vector<float> middle = model.current();  // u[n]
    model.step();
    const std::vector<float>& newer = model.current();  // u[n+1]
    double dissipation = 0;
    for (size_t c = 0; c < newer.size(); ++c)
      dissipation += (double(newer[c]) - older[c]) * (double(newer[c]) - older[c]);
    const double next = rippleEnergy(middle, newer, 97, params.courant);
    // Float state, double sums: the balance holds to float rounding of E.
    ASSERT_NEAR(next - energy, -b * dissipation, 1e-5 * initialEnergy) << "step " << step;
    ASSERT_LE(next, energy + 1e-5 * initialEnergy) << "step " << step;
    energy = next;
    older = middle;
  }
  EXPECT_LT(energy, 0.5 * initialEnergy);
}

TEST(Ripple, EnergyIsConservedWithoutDamping) {
  ModelParams params = rippleParams(97);
  params.damping = 0.0f;
  params.courant = 0.5f;
  RippleModel model(params);
  const double initialEnergy = rippleEnergy(model.previous(), model.current(), 97, params.courant);
  for (int step = 0; step < 2000; ++step) {
    const std::vector<float> older = model.current();
    model.step();
    ASSERT_NEAR(rippleEnergy(older, model.current(), 97, params.courant), initialEnergy, 1e-3 * initialEnergy)
        << "step " << step;
  }
}

// At the CFL limit nu = 1/sqrt(2) (kMaxCourant, which rounds below it) with no
// damping, nothing may grow. Bound: the scheme is linear and starts at rest,
// so each sine mode of the field keeps an amplitude of at most
// |a_k| / cos(theta_k / 2), where 2 cos(theta_k) = 2 - nu^2 mu_k; the drop
// (sigma = 3.2 grid cells at grid 129) has almost all of its weight in modes
// with theta_k < pi/2, where the factor is at most sqrt(2). Reflections from
// the fixed edges come back with the opposite sign and meet the spreading ring,
// which only lowers the peak. So 1.5 times the initial peak is a generous
// ceiling for a stable run, while an unstable mode seeded by rounding (1e-8)
// and growing by even 1% per step would pass it within 2,000 of the 4,000 steps.
TEST(Ripple, NothingGrowsAtTheCflLimit) {
  ModelParams params = rippleParams(129);
  params.courant = kMaxCourant;
  params.damping = 0.0f;
  RippleModel model(params);
  const double initialPeak = maxAbs(model.current());
  double peak = 0;
  for (int step = 0; step < 4000; ++step) {
    model.step();
    peak = std::max(peak, maxAbs(model.current()));
    ASSERT_LE(peak, 1.5 * initialPeak) << "step " << step;
  }
  EXPECT_GT(peak, 0.0);
}

TEST(Ripple, CourantAboveTheLimitIsClamped) {
  ModelParams params = rippleParams(33);
  params.courant = 2.0f;
  params.damping = -1.0f;
  params.dropRadius = 0.0f;
  const RippleModel model(params);
  EXPECT_EQ(model.params().courant, kMaxCourant);
  EXPECT_EQ(model.params().damping, 0.0f);
  EXPECT_EQ(model.params().dropRadius, kMinDropRadius);
  EXPECT_EQ(rippleCoefficients(params).courantSquared, kMaxCourant * kMaxCourant);
}

TEST(Ripple, EdgesStayExactlyZero) {
  ModelParams params = rippleParams(48);
  params.dropInterval = 5;
  params.dropRadius = 0.3f;  // wide drops that reach the edges
  RippleModel model(params);
  Drop corner;
  corner.x = 1.0f, corner.z = -1.0f, corner.radius = 0.2f, corner.amplitude = 0.1f;
  for (int step = 0; step < 400; ++step) {
    if (step % 7 == 0) model.addDrop(corner);
    model.step();
    ASSERT_TRUE(edgesAreZero(model.current(), 48)) << "step " << step;
    ASSERT_TRUE(edgesAreZero(model.previous(), 48)) << "step " << step;
  }
}

TEST(Ripple, QueuedDropStartsAtRestAtTheNextStep) {
  ModelParams params = rippleParams(65);
  params.dropAmplitude = 0.0f;  // a flat start
  RippleModel model(params);
  Drop drop;
  drop.x = 0.25f, drop.z = -0.5f, drop.radius = 0.1f, drop.amplitude = 0.05f;
  model.addDrop(drop);
  EXPECT_EQ(maxAbs(model.current()), 0.0);  // not before the step
  model.step();
  // Applied to both fields before the leapfrog step: a bump at rest moves
  // by O(nu^2 L u) in its first step, so its peak is nearly the full amplitude.
  const uint32_t i = 40, j = 16;  // x = 0.25, z = -0.5
  EXPECT_EQ(gridCoordinate(i, 65), 0.25f);
  EXPECT_EQ(gridCoordinate(j, 65), -0.5f);
  EXPECT_NEAR(model.current()[j * 65 + i], 0.05f, 0.05f * 0.2f);
  EXPECT_GT(model.current()[j * 65 + i], 0.04f);
  model.step();
  EXPECT_LT(model.current()[j * 65 + i], 0.05f);  // the queue was emptied: no second drop
}

// ---- the drop's footprint (kDropReachSigmas)

TEST(DropFootprint, HoldsExactlyTheInteriorCellsWithinReach) {
  constexpr uint32_t kGrid = 65;
  const float x = 0.25f, z = -0.5f, reach = 0.3f;
  const CellRect rect = cellsWithin(x, z, reach, kGrid);
  for (uint32_t i = 0; i < kGrid; ++i) {
    const double d = std::fabs(exactCoordinate(i, kGrid) - x);
    const bool inside = i >= rect.firstI && i < rect.endI;
    // A cell on the boundary may fall either way (1e-9: far below a spacing).
    if (std::fabs(d - reach) > 1e-6) {
      EXPECT_EQ(inside, d < reach && i > 0 && i + 1 < kGrid) << "column " << i;
    }
  }
  for (uint32_t j = 0; j < kGrid; ++j) {
    const double d = std::fabs(exactCoordinate(j, kGrid) - z);
    const bool inside = j >= rect.firstJ && j < rect.endJ;
    if (std::fabs(d - reach) > 1e-6) {
      EXPECT_EQ(inside, d < reach && j > 0 && j + 1 < kGrid) << "row " << j;
    }
  }
  // Near an edge: clipped to the interior, never the edge itself.
  const CellRect corner = cellsWithin(-0.95f, 0.95f, reach, kGrid);
  EXPECT_EQ(corner.firstI, 1u);
  EXPECT_EQ(corner.endJ, kGrid - 1);
  // Off the grid or nowhere: no cell at all.
  const CellRect away = cellsWithin(5.0f, 0.0f, reach, kGrid);
  EXPECT_GE(away.firstI, away.endI);
  const CellRect nowhere = cellsWithin(std::nanf(""), 0.0f, reach, kGrid);
  EXPECT_GE(nowhere.firstI, nowhere.endI);
  // The reach is kDropReachSigmas radii, the radius clamped as the shape is.
  Drop drop;
  drop.x = x, drop.z = z, drop.radius = 0.05f, drop.amplitude = 0.05f;
  const CellRect shape = makeDropShape(drop, kGrid).cells;
  const CellRect expected = cellsWithin(x, z, kDropReachSigmas * 0.05f, kGrid);
  EXPECT_EQ(std::memcmp(&shape, &expected, sizeof(CellRect)), 0);
}

TEST(DropFootprint, ADropChangesItsFootprintAndNothingElse) {
  constexpr uint32_t kGrid = 129;
  ModelParams params = rippleParams(kGrid);
  params.dropAmplitude = 0.0f;  // a flat start
  RippleModel model(params);
  Drop drop;
  drop.x = 0.25f, drop.z = -0.5f, drop.radius = 0.05f, drop.amplitude = 0.05f;
  model.addDrop(drop);
  model.step();
  const CellRect rect = makeDropShape(drop, kGrid).cells;
  ASSERT_LT(rect.firstI, rect.endI);
  // One step moves the wave one cell: nothing beyond the footprint grown by one.
  size_t outside = 0;
  for (uint32_t j = 0; j < kGrid; ++j)
    for (uint32_t i = 0; i < kGrid; ++i) {
      const bool near = i + 1 >= rect.firstI && i <= rect.endI && j + 1 >= rect.firstJ && j <= rect.endJ;
      if (near) continue;
      ++outside;
      ASSERT_EQ(model.current()[j * kGrid + i], 0.0f) << "cell " << i << ", " << j;
      ASSERT_EQ(model.previous()[j * kGrid + i], 0.0f) << "cell " << i << ", " << j;
    }
  EXPECT_GT(outside, size_t(kGrid) * kGrid / 2);
  // And the whole footprint took it, its corners (8.5 sigmas out) included.
  for (uint32_t j : {rect.firstJ, rect.endJ - 1})
    for (uint32_t i : {rect.firstI, rect.endI - 1})
      EXPECT_NE(model.previous()[j * kGrid + i], 0.0f) << "corner " << i << ", " << j;
}

TEST(Ripple, ResetReturnsToTheInitialState) {
  ModelParams params = rippleParams(40);
  params.dropInterval = 3;
  RippleModel model(params);
  const std::vector<float> initial = model.current();
  for (int step = 0; step < 20; ++step) model.step();
  model.reset();
  EXPECT_EQ(model.stepCount(), 0u);
  EXPECT_EQ(model.current(), initial);
  EXPECT_EQ(model.previous(), initial);
}

}  // namespace
}  // namespace vksim
