// The render-queue backends' compute shaders as SPIR-V, compiled by glslc at build
// time (sim/CMakeLists.txt) and embedded so the executable needs no files.
#pragma once
#include <cstdint>
#include <span>

namespace vksim {
inline constexpr uint32_t kSinewaveCompSpirv[] =
#include "sinewave.comp.inc"
    ;
inline constexpr uint32_t kRippleDropsCompSpirv[] =
#include "ripple_drops.comp.inc"
    ;
inline constexpr uint32_t kRippleStepCompSpirv[] =
#include "ripple_step.comp.inc"
    ;
// ripple_step.comp compiled with VKSIM_STEP_TEXELS: the step writing the
// texture's first levels too (up to four: step_texel_levels.glsl).
inline constexpr uint32_t kRippleStepTexelsCompSpirv[] =
#include "ripple_step_texels.comp.inc"
    ;
// ripple_step_rows.comp (subgroup_rows.h), plain and with VKSIM_STEP_TEXELS.
inline constexpr uint32_t kRippleStepRowsCompSpirv[] =
#include "ripple_step_rows.comp.inc"
    ;
inline constexpr uint32_t kRippleStepRowsTexelsCompSpirv[] =
#include "ripple_step_rows_texels.comp.inc"
    ;
inline constexpr uint32_t kRippleVerticesCompSpirv[] =
#include "ripple_vertices.comp.inc"
    ;
// The surface texture's (surface_texture_writer.h), for both render-queue backends.
inline constexpr uint32_t kSurfaceTexelsCompSpirv[] =
#include "surface_texels.comp.inc"
    ;
inline constexpr uint32_t kDownsampleTexelsCompSpirv[] =
#include "downsample_texels.comp.inc"
    ;
inline constexpr uint32_t kDownsampleLevelsCompSpirv[] =
#include "downsample_levels.comp.inc"
    ;
}  // namespace vksim
