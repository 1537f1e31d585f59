// The one header shared by the surface texture's compute shaders
// (surface_texels.comp, downsample_texels.comp) and their C++ side
// (surface_texture_writer.cpp): descriptor bindings and the workgroup size.
// The shaders take every extent from imageSize of the level they write, so
// there are no push constants.
#ifndef VKSIM_TEXTURE_LAYOUT_H
#define VKSIM_TEXTURE_LAYOUT_H

#ifdef GL_core_profile
#define VKSIM_CONSTANT const uint
#else
#include <cstdint>
namespace vksim {
#define VKSIM_CONSTANT inline constexpr uint32_t
#endif

// Set 0 of both shaders: the vertex buffer the step wrote (read by level 0),
// the level above as an R32_UINT storage image (read by the levels below 0)
// and the level written, as an R32_UINT storage image: one packed RGBA8 texel
// a 32-bit word (r in the low byte), stored bit for bit.
VKSIM_CONSTANT kTextureVertexBinding = 0;
VKSIM_CONSTANT kTextureSourceBinding = 1;
VKSIM_CONSTANT kTextureTargetBinding = 2;

// 16 x 16 invocations a workgroup, one per texel written.
VKSIM_CONSTANT kTextureGroupSize = 16;

#ifndef GL_core_profile
}  // namespace vksim
#endif

#undef VKSIM_CONSTANT
#endif
