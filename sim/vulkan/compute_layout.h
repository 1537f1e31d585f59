// The one header shared by the Vulkan compute backend's GLSL (through glslc's
// #include) and its C++ side: descriptor bindings, workgroup sizes and the
// push constants. A change here changes both sides at once.
#ifndef VKSIM_COMPUTE_LAYOUT_H
#define VKSIM_COMPUTE_LAYOUT_H

#ifdef GL_core_profile
#define VKSIM_CONSTANT const uint
#else
#include <cstdint>
namespace vksim {
#define VKSIM_CONSTANT inline constexpr uint32_t
typedef uint32_t uint;
#endif

// Set 0: the shared vertex buffer (written), the three height fields of the
// ripple model (grid*grid floats each, back to back), the host-written table
// (coordinates, then the sinewave's per-column and per-row factors, grid
// floats each) and the step's drops (two vec4 each: x, z, amplitude,
// 1/(2 sigma^2), then the footprint's firstI, endI, firstJ, endJ as uints).
VKSIM_CONSTANT kComputeVertexBinding = 0;
VKSIM_CONSTANT kComputeHeightBinding = 1;
VKSIM_CONSTANT kComputeTableBinding = 2;
VKSIM_CONSTANT kComputeDropBinding = 3;
// Set 1, only in the ripple step that writes the texture's first levels
// (ripple_step.comp and ripple_step_rows.comp with VKSIM_STEP_TEXELS,
// step_texel_levels.glsl): binding 0, an array of kComputeStepTexelLevels
// R32_UINT storage images, levels 0 .. 3 (the slots past the levels the step
// writes repeat the last of them). How many it writes is specialization
// constant kComputeStepLevelsConstant (ids 0 and 1 are
// ripple_step_rows.comp's strip width and cellsAlone switch).
VKSIM_CONSTANT kComputeTexelSet = 1;
VKSIM_CONSTANT kComputeStepTexelLevels = 4;
VKSIM_CONSTANT kComputeStepLevelsConstant = 2;

// 16 x 16 invocations a workgroup, one per vertex or cell.
VKSIM_CONSTANT kComputeGroupSize = 16;

// ripple_step.comp's workgroup: kRippleStepColumns x kRippleStepThreadRows
// invocations covering a tile of kRippleStepColumns columns and
// kRippleStepThreadRows * kRippleStepRowsPerThread rows, each invocation one
// column of kRippleStepRowsPerThread rows of it.
VKSIM_CONSTANT kRippleStepColumns = 32;
VKSIM_CONSTANT kRippleStepThreadRows = 8;
VKSIM_CONSTANT kRippleStepRowsPerThread = 4;

// ripple_step_rows.comp's workgroup (the default step, subgroup_rows.h): a
// workgroup of kRippleRowsInvocations invocations, each subgroup of it a
// strip of subgroup-size columns by kRippleRowsPerSubgroup rows (the CUDA
// kernel's R, BackendRippleConfig in sim/cuda/cuda_kernels.cuh).
VKSIM_CONSTANT kRippleRowsInvocations = 256;
VKSIM_CONSTANT kRippleRowsPerSubgroup = 3;

// Every dispatch's push constants (one block for all four shaders). Field
// indices name which of the three height fields plays which role this step.
struct ComputePushConstants {
  uint grid;
  uint dropCount;
  uint currentField;
  uint previousField;
  uint nextField;
  float amplitude;
  float spacing;
  float courantSquared;
  float keepPrevious;
  float inverseDenominator;
  // ripple_drops.comp: the union of the drops' footprints, which the dispatch
  // covers from (firstI, firstJ).
  uint cellsFirstI;
  uint cellsEndI;
  uint cellsFirstJ;
  uint cellsEndJ;
};

VKSIM_CONSTANT kComputePushConstantsSize = 56;

#ifndef GL_core_profile
static_assert(sizeof(ComputePushConstants) == kComputePushConstantsSize, "push constants must match GLSL");
}  // namespace vksim
#endif

#undef VKSIM_CONSTANT
#endif
