// downsampleTexel (sim/model_math.h) on packed words, for the two downsample
// shaders (downsample_texels.comp, downsample_levels.comp): each byte of the
// result is the rounded mean of that byte of four texels, in integer
// arithmetic, so the bytes equal the CPU reference's.

// meanOfFour of the byte at `shift` of four packed texels, in place.
uint meanOfFour(uvec4 texels, uint shift) {
  const uvec4 bytes = (texels >> shift) & 0xffu;
  return ((bytes.x + bytes.y + bytes.z + bytes.w + 2u) / 4u) << shift;
}

// The texel of the level below from its four texels above, packed.
uint downsampleWord(uvec4 texels) {
  return meanOfFour(texels, 0u) | meanOfFour(texels, 8u) | meanOfFour(texels, 16u) | meanOfFour(texels, 24u);
}
