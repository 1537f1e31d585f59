// The mesh shaders' SPIR-V, compiled by glslc at build time (shaders/CMakeLists.txt)
// and embedded here so the executable needs no files beside it.
#pragma once
#include <cstdint>

namespace vksim {
inline constexpr uint32_t kMeshVertSpirv[] =
#include "mesh.vert.inc"
    ;
inline constexpr uint32_t kMeshFragSpirv[] =
#include "mesh.frag.inc"
    ;
}  // namespace vksim
