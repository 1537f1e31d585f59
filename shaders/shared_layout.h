// The one header shared by GLSL (through glslc's #include), C++ and CUDA: the
// vertex layout of the shared buffer, the vertex input locations and the push
// constants of the mesh pipeline. A change here changes all three sides at once.
#ifndef VKSIM_SHARED_LAYOUT_H
#define VKSIM_SHARED_LAYOUT_H

#ifdef GL_core_profile
#define VKSIM_VEC4 vec4
#define VKSIM_MAT4 mat4
#define VKSIM_CONSTANT const int
#else
#include <cstddef>
namespace vksim {
// Plain 16-byte vector so C++ and CUDA agree on layout with GLSL's vec4.
struct alignas(16) Float4 {
  float x, y, z, w;
};
struct alignas(16) Float4x4 {
  Float4 columns[4];
};
#define VKSIM_VEC4 Float4
#define VKSIM_MAT4 Float4x4
#define VKSIM_CONSTANT inline constexpr int
#endif

// One vertex of the simulated grid, as the simulation writes it and the vertex
// shader reads it. position.w = 1, normal.w = 0. 32 bytes, so every vertex is
// two aligned 16-byte stores on the CUDA side.
struct Vertex {
  VKSIM_VEC4 position;
  VKSIM_VEC4 normal;
};

VKSIM_CONSTANT kVertexStride = 32;
VKSIM_CONSTANT kPositionLocation = 0;
VKSIM_CONSTANT kNormalLocation = 1;
VKSIM_CONSTANT kNormalOffset = 16;

// Mesh pipeline push constants (vertex and fragment stages). 112 bytes, inside
// the 128 bytes that every Vulkan implementation guarantees.
struct MeshPushConstants {
  VKSIM_MAT4 viewProjection;
  VKSIM_VEC4 lightDirection;  // world space, pointing towards the light
  VKSIM_VEC4 cameraPosition;  // world space, w unused
  // x: 1 = the base colour comes from the surface texture, 0 = from the
  // height (the texture is off); y: the grid's vertices per side, which maps
  // a vertex to its texel's centre; z, w unused.
  VKSIM_VEC4 surface;
};

VKSIM_CONSTANT kMeshPushConstantsSize = 112;

// The surface texture (sim/surface_texture.h): set 0, this binding, a
// combined image sampler read by the fragment shader.
VKSIM_CONSTANT kSurfaceTextureSet = 0;
VKSIM_CONSTANT kSurfaceTextureBinding = 0;

#ifndef GL_core_profile
static_assert(sizeof(Vertex) == kVertexStride, "Vertex must match the GLSL vertex stride");
static_assert(offsetof(Vertex, normal) == kNormalOffset, "normal offset must match the pipeline");
static_assert(sizeof(MeshPushConstants) == kMeshPushConstantsSize, "push constants must match GLSL");
}  // namespace vksim
#endif

#undef VKSIM_CONSTANT
#endif
