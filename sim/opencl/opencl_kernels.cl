// The OpenCL backend's kernels (OpenCL C 1.2, built at start-up from this
// source, which the build embeds in the program). Each function repeats the
// arithmetic of sim/model_math.h operation for operation and in the same
// order, so that the only differences from the CPU reference are those of the
// device's sin, cos and exp (docs/interop-walkthrough.md derives the bounds).
// Contraction into fused multiply-adds is off, as the CPU reference and the
// CUDA kernels (--fmad=false) have it; division and square root are correctly
// rounded (-cl-fp32-correctly-rounded-divide-sqrt: buildOpenClProgram, sim/opencl/opencl_texture.cpp).
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

// ---- the surface texture (sim/surface_texture.h): packed levels in one buffer

// surfaceTexel's constants (sim/model_math.h).
__constant float kTextureHeightScale = 6.0f;
__constant float kTextureFoamScale = 25.0f;

// clampToUnit as the CPU reference runs it: comparisons, NaN -> 0.
float clampToUnit(float value) { return value > 0.0f ? (value < 1.0f ? value : 1.0f) : 0.0f; }

// unitToByte: value * 255 + 0.5 rounded on its own (no contraction, see the
// pragma above), then truncated, as the host's conversion to uint8_t does.
uchar unitToByte(float value) { return (uchar)(uint)(clampToUnit(value) * 255.0f + 0.5f); }

// surfaceTexel of a vertex of height `height` and normal y `normalY`: the
// same operations in the same order as the CPU reference, so the same bytes.
uchar4 surfaceTexel(float height, float normalY) {
  const float depth = clampToUnit(height * kTextureHeightScale + 0.5f);
  const float foam = clampToUnit((1.0f - normalY) * kTextureFoamScale);
  const float red = 0.05f + 0.30f * depth;
  const float green = 0.22f + 0.53f * depth;
  const float blue = 0.45f + 0.50f * depth;
  return (uchar4)(unitToByte(red + (1.0f - red) * foam), unitToByte(green + (1.0f - green) * foam),
                  unitToByte(blue + (1.0f - blue) * foam), (uchar)255);
}

// Texel (i, j) of level 0 (the buffer's first grid*grid texels) from vertex
// (i, j), which an earlier kernel of the same in-order queue wrote. uchar4
// keeps the bytes in r, g, b, a order whatever the device's endianness.
__kernel void surfaceTexelsKernel(__global const Vertex* vertices, uint grid, __global uchar4* texels) {
  const uint i = get_global_id(0), j = get_global_id(1);
  if (i >= grid || j >= grid) return;
  const uint index = j * grid + i;
  texels[index] = surfaceTexel(vertices[index].position.y, vertices[index].normal.y);
}

// Texel (x, y) of one level from the 2x2 texels of the level above, each
// coordinate clamped to that level's extent, rounded mean per channel
// (downsampleTexel, writeSurfaceTextureMips). Offsets count texels from the
// buffer's start; the level above was written by the previous launch.
__kernel void downsampleTexelsKernel(__global uchar4* texels, uint aboveOffset, uint aboveWidth, uint aboveHeight,
                                     uint offset, uint width, uint height) {
  const uint x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  const uint x0 = min(2u * x, aboveWidth - 1u), x1 = min(2u * x + 1u, aboveWidth - 1u);
  const uint y0 = min(2u * y, aboveHeight - 1u), y1 = min(2u * y + 1u, aboveHeight - 1u);
  __global const uchar4* above = texels + aboveOffset;
  const uint4 sum = convert_uint4(above[y0 * aboveWidth + x0]) + convert_uint4(above[y0 * aboveWidth + x1]) +
                    convert_uint4(above[y1 * aboveWidth + x0]) + convert_uint4(above[y1 * aboveWidth + x1]);
  texels[offset + y * width + x] = convert_uchar4((sum + 2u) / 4u);
}
