// The one header shared by the surface texture's compute shaders
// (surface_texels.comp, downsample_texels.comp, downsample_levels.comp) and their C++ side
// (surface_texture_writer.cpp): descriptor bindings and the workgroup size.
// The shaders take every extent from imageSize of the levels they read and
// write; the one push constant is how many levels a downsample writes.
#ifndef VKSIM_TEXTURE_LAYOUT_H
#define VKSIM_TEXTURE_LAYOUT_H

#ifdef GL_core_profile
#define VKSIM_CONSTANT const uint
#else
#include <cstdint>
namespace vksim {
#define VKSIM_CONSTANT inline constexpr uint32_t
#endif

// Set 0 of the three shaders: the vertex buffer the step wrote (read by level 0),
// the level above as an R32_UINT storage image (read by the levels below 0)
// and the levels written (kTextureLevelsADispatch slots; level 0's shader
// writes the first), as R32_UINT storage images: one packed RGBA8 texel a
// 32-bit word (r in the low byte), stored bit for bit.
VKSIM_CONSTANT kTextureVertexBinding = 0;
VKSIM_CONSTANT kTextureSourceBinding = 1;
VKSIM_CONSTANT kTextureTargetBinding = 2;

// 16 x 16 invocations a workgroup, one per texel written.
VKSIM_CONSTANT kTextureGroupSize = 16;
// Levels one downsample_levels.comp dispatch writes at most: its tile of 16
// texels a side halves on each, to 1 (binding kTextureTargetBinding holds
// that many level views).
VKSIM_CONSTANT kTextureLevelsADispatch = 5;
// The widest level a downsample_levels.comp dispatch starts at; wider levels
// get a downsample_texels.comp dispatch each. Chosen by measurement: started
// at 512 the step was shorter than started at level 1 or 2, or than a
// dispatch a level (run 25, docs/queue-backends.md); why was not measured.
VKSIM_CONSTANT kTextureLevelsFusedExtent = 512;

#ifndef GL_core_profile
}  // namespace vksim
#endif

#undef VKSIM_CONSTANT
#endif
