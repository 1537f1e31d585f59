// surfaceTexel (sim/model_math.h) in GLSL, packed into the 32-bit word of an
// R32_UINT view of the RGBA8 texture (r in the low byte): the same
// operations in the same order as the CPU reference, every rounded result
// `precise` (no fused multiply-add), the clamp written as the host's
// comparisons, so the same height and normal give the same bytes. Included by
// surface_texels.comp; a shader that holds a vertex's height and normal in
// registers can include it to write level 0 without reading the vertex back.

// sim/model_math.h's kTextureHeightScale and kTextureFoamScale.
const float kTextureHeightScale = 6.0;
const float kTextureFoamScale = 25.0;

// clampToUnit's host form (NaN -> 0), which is what the CPU reference runs.
float clampToUnit(float value) { return value > 0.0 ? (value < 1.0 ? value : 1.0) : 0.0; }

// unitToByte: the truncation of value * 255 + 0.5, both rounded on their own.
uint unitToByte(float value) {
  precise float scaled = clampToUnit(value) * 255.0 + 0.5;
  return uint(scaled);
}

// surfaceTexel's mix of one channel towards foam.
uint foamChannel(float base, float foam) {
  precise float mixed = base + (1.0 - base) * foam;
  return unitToByte(mixed);
}

// The packed texel of a vertex of height `height` (position.y) and normal
// y component `normalY`.
uint surfaceTexelWord(float height, float normalY) {
  precise float heightShade = height * kTextureHeightScale + 0.5;
  precise float slopeShade = (1.0 - normalY) * kTextureFoamScale;
  const float depth = clampToUnit(heightShade);
  const float foam = clampToUnit(slopeShade);
  precise float red = 0.05 + 0.30 * depth;
  precise float green = 0.22 + 0.53 * depth;
  precise float blue = 0.45 + 0.50 * depth;
  return foamChannel(red, foam) | (foamChannel(green, foam) << 8) | (foamChannel(blue, foam) << 16) | (255u << 24);
}
