// Internal to sim/: the per-vertex and per-cell arithmetic of both models,
// written once and compiled twice, by the host compiler for the CPU backend and
// by nvcc for the kernels, so that the backends run the same operations in the
// same order. What remains different between them is only what the hardware
// libraries compute: sinf, cosf and expf (CUDA's are within 2 ulp, glibc's
// within 1); +, -, *, / and sqrtf are IEEE-rounded on both sides, provided that
// the kernels are built with --fmad=false (sim/CMakeLists.txt) and the host
// code without FMA contraction (x86-64 without -mfma has none to contract to).
//
// Every function here is C++17 (nvcc compiles the kernels as C++17) and takes
// plain values, never pointers into another cell's future state.
#pragma once
#include <math.h>

#include <cstdint>

#include "shaders/shared_layout.h"

#ifdef __CUDACC__
#define VKSIM_HOST_DEVICE __host__ __device__
#else
#define VKSIM_HOST_DEVICE
#endif

namespace vksim {

// World coordinate of grid index `index` (0 .. grid-1) on an axis spanning
// [-1, 1]: -1 + 2*index/(grid-1), evaluated as (2*index - (grid-1)) / (grid-1)
// so that the numerator is an exact integer and coordinate(grid-1-i) is exactly
// -coordinate(i) (mirror-symmetric fields stay bitwise symmetric). grid >= 2.
VKSIM_HOST_DEVICE inline float gridCoordinate(uint32_t index, uint32_t grid) {
  const int numerator = 2 * static_cast<int>(index) - static_cast<int>(grid - 1);
  return static_cast<float>(numerator) / static_cast<float>(grid - 1);
}

// Distance between neighbouring vertices, world units. grid >= 2.
VKSIM_HOST_DEVICE inline float gridSpacing(uint32_t grid) {
  return 2.0f / static_cast<float>(grid - 1);
}

// The neighbours used for the slope at `index`: index-1 and index+1 inside,
// the vertex itself and its one neighbour at an edge (one-sided difference).
struct NeighbourPair {
  uint32_t lower, upper;
};
VKSIM_HOST_DEVICE inline NeighbourPair slopeNeighbours(uint32_t index, uint32_t grid) {
  return {index > 0 ? index - 1 : index, index + 1 < grid ? index + 1 : index};
}

// Finite-difference slope dh/dx from the heights at `pair` (central inside,
// one-sided at edges), spacing in world units.
VKSIM_HOST_DEVICE inline float finiteDifferenceSlope(float lowerHeight, float upperHeight, NeighbourPair pair,
                                                     float spacing) {
  return (upperHeight - lowerHeight) / (static_cast<float>(pair.upper - pair.lower) * spacing);
}

// The unit normal of the surface y = h(x, z) with slopes (dh/dx, dh/dz):
// normalize(-dh/dx, 1, -dh/dz), w = 0. The squared slopes are added first so
// that swapping x and z gives a bitwise transposed normal.
VKSIM_HOST_DEVICE inline Float4 surfaceNormal(float slopeX, float slopeZ) {
  const float inverseLength = 1.0f / sqrtf((slopeX * slopeX + slopeZ * slopeZ) + 1.0f);
  return {-slopeX * inverseLength, inverseLength, -slopeZ * inverseLength, 0.0f};
}

// ---- sinewave: h = amplitude * sin(waveNumberX * x + t) * cos(waveNumberZ * z + t)

// Everything one sinewave frame needs; t = step * timeStep, seconds, computed
// once on the host (sinewaveFrame in models.h) and shared by both backends.
struct SinewaveFrame {
  float amplitude;
  float waveNumberX, waveNumberZ;  // radians per world unit
  float time;                      // seconds
  uint32_t grid;
};

// The height is separable: the x factor depends on the column only and the z
// factor on the row only, so the CPU computes each factor once per column or
// row and the kernels once per thread; both get the same values.
VKSIM_HOST_DEVICE inline float sinewaveFactorX(const SinewaveFrame& frame, uint32_t i) {
  return sinf(frame.waveNumberX * gridCoordinate(i, frame.grid) + frame.time);
}
VKSIM_HOST_DEVICE inline float sinewaveFactorZ(const SinewaveFrame& frame, uint32_t j) {
  return cosf(frame.waveNumberZ * gridCoordinate(j, frame.grid) + frame.time);
}
VKSIM_HOST_DEVICE inline float sinewaveHeight(const SinewaveFrame& frame, float factorX, float factorZ) {
  return frame.amplitude * factorX * factorZ;
}

// The factors of a vertex and of its slope neighbours along one axis.
struct AxisFactors {
  float lower, centre, upper;
};

// Vertex (i, j) of the sinewave from its factors: the neighbours' heights come
// from the same formula, so no other vertex's result is needed.
VKSIM_HOST_DEVICE inline Vertex sinewaveVertex(const SinewaveFrame& frame, uint32_t i, uint32_t j,
                                               AxisFactors x, AxisFactors z) {
  const float spacing = gridSpacing(frame.grid);
  const float height = sinewaveHeight(frame, x.centre, z.centre);
  const float slopeX = finiteDifferenceSlope(sinewaveHeight(frame, x.lower, z.centre),
                                             sinewaveHeight(frame, x.upper, z.centre),
                                             slopeNeighbours(i, frame.grid), spacing);
  const float slopeZ = finiteDifferenceSlope(sinewaveHeight(frame, x.centre, z.lower),
                                             sinewaveHeight(frame, x.centre, z.upper),
                                             slopeNeighbours(j, frame.grid), spacing);
  return {{gridCoordinate(i, frame.grid), height, gridCoordinate(j, frame.grid), 1.0f},
          surfaceNormal(slopeX, slopeZ)};
}

// ---- ripple: leapfrog for u_tt = c^2 (u_xx + u_zz) - damping * u_t

// The step's constants, computed once on the host (rippleCoefficients in
// models.h) from the clamped parameters:
//   next = ((2u - keepPrevious * previous) + courantSquared * L(u)) * inverseDenominator
// with keepPrevious = 1 - damping*dt/2 and inverseDenominator = 1 / (1 + damping*dt/2).
struct RippleCoefficients {
  float courantSquared;
  float keepPrevious;
  float inverseDenominator;
};

// The 5-point Laplacian in grid units, grouped so that mirroring in x (left <->
// right), in z (down <-> up) or transposing (the two pairs) gives the bitwise
// same result: IEEE addition is commutative, not associative.
VKSIM_HOST_DEVICE inline float laplacian(float centre, float left, float right, float down, float up) {
  return ((left + right) + (down + up)) - 4.0f * centre;
}

// The next height of cell (i, j) from the current field and the cell's own
// previous height; 0 on the edges (fixed ends). Only previous[cell] is read,
// so the result may overwrite it in place.
// The leapfrog update of one interior cell from its five current heights
// (left/right along x, down/up along z) and its previous height: the one
// spelling of the arithmetic, so that kernels that gather the heights in
// another way (a shared-memory tile) get the same bits.
VKSIM_HOST_DEVICE inline float rippleNextFromNeighbours(float centre, float left, float right, float down, float up,
                                                        float previous, const RippleCoefficients& c) {
  const float lap = laplacian(centre, left, right, down, up);
  return ((2.0f * centre - c.keepPrevious * previous) + c.courantSquared * lap) * c.inverseDenominator;
}

VKSIM_HOST_DEVICE inline float rippleNextHeight(const float* current, float previous, uint32_t grid,
                                                uint32_t i, uint32_t j, const RippleCoefficients& c) {
  if (i == 0 || j == 0 || i + 1 == grid || j + 1 == grid) return 0.0f;
  const uint32_t cell = j * grid + i;
  return rippleNextFromNeighbours(current[cell], current[cell - 1], current[cell + 1], current[cell - grid],
                                  current[cell + grid], previous, c);
}

// The cells [firstI, endI) x [firstJ, endJ) of a grid; empty when an end is
// not past its first.
struct CellRect {
  uint32_t firstI, endI, firstJ, endJ;
};

VKSIM_HOST_DEVICE inline bool isEmpty(const CellRect& rect) {
  return rect.firstI >= rect.endI || rect.firstJ >= rect.endJ;
}

VKSIM_HOST_DEVICE inline bool containsCell(const CellRect& rect, uint32_t i, uint32_t j) {
  return i >= rect.firstI && i < rect.endI && j >= rect.firstJ && j < rect.endJ;
}

// A Gaussian drop as the kernels and the CPU evaluate it, built on the host
// from a Drop and the grid (makeDropShape in models.h). `cells` is its
// footprint, the only cells it changes: the host computes it once, in whole
// cells, so that every backend adds the drop to exactly the same cells.
struct DropShape {
  float x, z;                    // centre, world units
  float amplitude;               // peak height, world units
  float inverseTwoSigmaSquared;  // 1 / (2 sigma^2), 1 / world units^2
  CellRect cells;                // interior cells within kDropReachSigmas (models.h)
};

// amplitude * exp(-r^2 / (2 sigma^2)) at (x, z). dx*dx + dz*dz: swapping the
// axes of a drop on the diagonal gives the bitwise same value.
VKSIM_HOST_DEVICE inline float dropHeight(const DropShape& drop, float x, float z) {
  const float dx = x - drop.x;
  const float dz = z - drop.z;
  return drop.amplitude * expf(-((dx * dx + dz * dz) * drop.inverseTwoSigmaSquared));
}

// Vertex (i, j) of a height field (grid*grid floats, row-major, z rows of x).
VKSIM_HOST_DEVICE inline Vertex heightFieldVertex(const float* heights, uint32_t grid, uint32_t i,
                                                  uint32_t j) {
  const float spacing = gridSpacing(grid);
  const NeighbourPair alongX = slopeNeighbours(i, grid);
  const NeighbourPair alongZ = slopeNeighbours(j, grid);
  const float slopeX = finiteDifferenceSlope(heights[j * grid + alongX.lower],
                                             heights[j * grid + alongX.upper], alongX, spacing);
  const float slopeZ = finiteDifferenceSlope(heights[alongZ.lower * grid + i],
                                             heights[alongZ.upper * grid + i], alongZ, spacing);
  return {{gridCoordinate(i, grid), heights[j * grid + i], gridCoordinate(j, grid), 1.0f},
          surfaceNormal(slopeX, slopeZ)};
}

// ---- the surface texture: one RGBA8 texel per vertex, and its mip chain

// Colour of the texel of a vertex, from its height and normal: a water colour
// that brightens with height, mixed towards white (foam) where the surface is
// steep. Only +, -, *, a clamp to [0, 1] and a float-to-integer conversion, all
// exact or IEEE-rounded on both compilers: the same vertex gives the same
// bytes on the host and in a kernel. What CUDA's texels may differ by from
// the CPU backend's is therefore only what their vertices differ by, times
// the slopes below (docs/interop-walkthrough.md derives the bound).
inline constexpr float kTextureHeightScale = 6.0f;  // colour per world unit of height
inline constexpr float kTextureFoamScale = 25.0f;   // foam per unit of (1 - normal.y)

// Bytes of one texel (VK_FORMAT_R8G8B8A8_UNORM; CUDA's uchar4): r, g, b, a.
struct Texel {
  uint8_t r, g, b, a;
};

// fminf(fmaxf(value, 0), 1). On the host the comparisons give the same value
// for every result of arithmetic (NaN -> 0; a zero's sign is lost in every
// use below) but compile to two instructions: GCC calls libm for fminf and
// fmaxf, which made them most of the CPU backend's texture time
// (docs/benchmarks.md, "Steady frames").
VKSIM_HOST_DEVICE inline float clampToUnit(float value) {
#if defined(__CUDA_ARCH__)
  return fminf(fmaxf(value, 0.0f), 1.0f);
#else
  return value > 0.0f ? (value < 1.0f ? value : 1.0f) : 0.0f;
#endif
}

// [0, 1] -> 0..255, rounded to nearest (values outside are clamped first).
VKSIM_HOST_DEVICE inline uint8_t unitToByte(float value) {
  return static_cast<uint8_t>(clampToUnit(value) * 255.0f + 0.5f);
}

VKSIM_HOST_DEVICE inline Texel surfaceTexel(const Vertex& vertex) {
  const float depth = clampToUnit(vertex.position.y * kTextureHeightScale + 0.5f);
  const float foam = clampToUnit((1.0f - vertex.normal.y) * kTextureFoamScale);
  const float red = 0.05f + 0.30f * depth;
  const float green = 0.22f + 0.53f * depth;
  const float blue = 0.45f + 0.50f * depth;
  return {unitToByte(red + (1.0f - red) * foam), unitToByte(green + (1.0f - green) * foam),
          unitToByte(blue + (1.0f - blue) * foam), 255};
}

// Texel (x, y) of mip level L+1 is the rounded mean of texels (2x, 2y),
// (2x+1, 2y), (2x, 2y+1), (2x+1, 2y+1) of level L, each coordinate clamped
// to level L's extent. Level L+1 is max(1, extent >> 1) wide, so on the
// square chains of this program the clamp never acts: an odd extent's last
// row and column are not read (it would act only on a side already 1 wide
// while the other is not). Integer arithmetic: exact on both sides, and a box filter never
// widens a difference between two chains (|mean a - mean b| <= max |a - b|).
VKSIM_HOST_DEVICE inline uint8_t meanOfFour(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return static_cast<uint8_t>((a + b + c + d + 2u) / 4u);
}
VKSIM_HOST_DEVICE inline Texel downsampleTexel(Texel t00, Texel t10, Texel t01, Texel t11) {
  return {meanOfFour(t00.r, t10.r, t01.r, t11.r), meanOfFour(t00.g, t10.g, t01.g, t11.g),
          meanOfFour(t00.b, t10.b, t01.b, t11.b), meanOfFour(t00.a, t10.a, t01.a, t11.a)};
}

}  // namespace vksim
