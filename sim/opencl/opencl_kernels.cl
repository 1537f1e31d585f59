// The OpenCL backend's kernels (OpenCL C 1.2, built at start-up from this
// source, which the build embeds in the program). Each function repeats the
// arithmetic of sim/model_math.h operation for operation and in the same
// order, so that the only differences from the CPU reference are those of the
// device's sin, cos and exp (docs/interop-walkthrough.md derives the bounds).
// Contraction into fused multiply-adds is off, as the CPU reference and the
// CUDA kernels (--fmad=false) have it; division and square root are correctly
// rounded (-cl-fp32-correctly-rounded-divide-sqrt, sim/opencl/opencl_simulation.cpp).
#pragma OPENCL FP_CONTRACT OFF

// shaders/shared_layout.h: a vertex is position (x, y, z, 1) then normal (x, y, z, 0).
typedef struct {
  float4 position;
  float4 normal;
} Vertex;

float gridCoordinate(uint index, uint grid) {
  const int numerator = 2 * (int)index - (int)(grid - 1u);
  return (float)numerator / (float)(grid - 1u);
}

float gridSpacing(uint grid) { return 2.0f / (float)(grid - 1u); }

uint lowerNeighbour(uint index) { return index > 0u ? index - 1u : index; }
uint upperNeighbour(uint index, uint grid) { return index + 1u < grid ? index + 1u : index; }

float finiteDifferenceSlope(float lowerHeight, float upperHeight, uint lower, uint upper, float spacing) {
  return (upperHeight - lowerHeight) / ((float)(upper - lower) * spacing);
}

float4 surfaceNormal(float slopeX, float slopeZ) {
  const float inverseLength = 1.0f / sqrt((slopeX * slopeX + slopeZ * slopeZ) + 1.0f);
  return (float4)(-slopeX * inverseLength, inverseLength, -slopeZ * inverseLength, 0.0f);
}

// ---- sinewave

float sinewaveFactorX(float waveNumberX, float time, uint i, uint grid) {
  return sin(waveNumberX * gridCoordinate(i, grid) + time);
}
float sinewaveFactorZ(float waveNumberZ, float time, uint j, uint grid) {
  return cos(waveNumberZ * gridCoordinate(j, grid) + time);
}
float sinewaveHeight(float amplitude, float factorX, float factorZ) { return amplitude * factorX * factorZ; }

// One vertex of the sinewave; the neighbours' factors are evaluated here
// rather than shared, which gives the same values.
__kernel void sinewaveKernel(__global Vertex* vertices, uint grid, float amplitude, float waveNumberX,
                             float waveNumberZ, float time) {
  const uint i = get_global_id(0), j = get_global_id(1);
  if (i >= grid || j >= grid) return;
  const uint xl = lowerNeighbour(i), xu = upperNeighbour(i, grid);
  const uint zl = lowerNeighbour(j), zu = upperNeighbour(j, grid);
  const float fx = sinewaveFactorX(waveNumberX, time, i, grid);
  const float fxl = sinewaveFactorX(waveNumberX, time, xl, grid);
  const float fxu = sinewaveFactorX(waveNumberX, time, xu, grid);
  const float fz = sinewaveFactorZ(waveNumberZ, time, j, grid);
  const float fzl = sinewaveFactorZ(waveNumberZ, time, zl, grid);
  const float fzu = sinewaveFactorZ(waveNumberZ, time, zu, grid);
  const float spacing = gridSpacing(grid);
  const float height = sinewaveHeight(amplitude, fx, fz);
  const float slopeX = finiteDifferenceSlope(sinewaveHeight(amplitude, fxl, fz),
                                             sinewaveHeight(amplitude, fxu, fz), xl, xu, spacing);
  const float slopeZ = finiteDifferenceSlope(sinewaveHeight(amplitude, fx, fzl),
                                             sinewaveHeight(amplitude, fx, fzu), zl, zu, spacing);
  Vertex vertex;
  vertex.position = (float4)(gridCoordinate(i, grid), height, gridCoordinate(j, grid), 1.0f);
  vertex.normal = surfaceNormal(slopeX, slopeZ);
  vertices[j * grid + i] = vertex;
}

// ---- ripple

bool isInteriorCell(uint i, uint j, uint grid) { return i > 0u && j > 0u && i + 1u < grid && j + 1u < grid; }

// One drop (sim/model_math.h dropHeight) added to both fields of each cell of
// its footprint; several drops of a step are launched in order. The launch
// starts at the footprint's first cell (a global offset); endI and endJ end it.
__kernel void addDropKernel(__global float* current, __global float* previous, uint grid, float dropX,
                            float dropZ, float amplitude, float inverseTwoSigmaSquared, uint endI, uint endJ) {
  const uint i = get_global_id(0), j = get_global_id(1);
  if (i >= endI || j >= endJ || !isInteriorCell(i, j, grid)) return;
  const float dx = gridCoordinate(i, grid) - dropX;
  const float dz = gridCoordinate(j, grid) - dropZ;
  const float height = amplitude * exp(-((dx * dx + dz * dz) * inverseTwoSigmaSquared));
  const uint cell = j * grid + i;
  current[cell] = current[cell] + height;
  previous[cell] = previous[cell] + height;
}

// The leapfrog step of rippleNextHeight into `next` (its own buffer: the
// neighbours read `current` only, so no cell reads a value written here).
__kernel void rippleStepKernel(__global const float* current, __global const float* previous,
                               __global float* next, uint grid, float courantSquared, float keepPrevious,
                               float inverseDenominator) {
  const uint i = get_global_id(0), j = get_global_id(1);
  if (i >= grid || j >= grid) return;
  const uint cell = j * grid + i;
  if (!isInteriorCell(i, j, grid)) {
    next[cell] = 0.0f;
    return;
  }
  const float centre = current[cell];
  const float lap = ((current[cell - 1u] + current[cell + 1u]) + (current[cell - grid] + current[cell + grid])) -
                    4.0f * centre;
  next[cell] = ((2.0f * centre - keepPrevious * previous[cell]) + courantSquared * lap) * inverseDenominator;
}

// Vertex (i, j) of a height field (heightFieldVertex).
__kernel void heightFieldVerticesKernel(__global const float* heights, uint grid, __global Vertex* vertices) {
  const uint i = get_global_id(0), j = get_global_id(1);
  if (i >= grid || j >= grid) return;
  const float spacing = gridSpacing(grid);
  const uint xl = lowerNeighbour(i), xu = upperNeighbour(i, grid);
  const uint zl = lowerNeighbour(j), zu = upperNeighbour(j, grid);
  const float slopeX = finiteDifferenceSlope(heights[j * grid + xl], heights[j * grid + xu], xl, xu, spacing);
  const float slopeZ = finiteDifferenceSlope(heights[zl * grid + i], heights[zu * grid + i], zl, zu, spacing);
  Vertex vertex;
  vertex.position = (float4)(gridCoordinate(i, grid), heights[j * grid + i], gridCoordinate(j, grid), 1.0f);
  vertex.normal = surfaceNormal(slopeX, slopeZ);
  vertices[j * grid + i] = vertex;
}

// The smallest piece of work the context-switch probe can time: one
// work-item writes one word.
__kernel void markKernel(__global uint* word) { word[0] = word[0] + 1u; }
