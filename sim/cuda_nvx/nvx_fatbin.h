// The fatbin of sim/cuda_nvx/nvx_kernels.cu (sm_90 SASS + compute_90 PTX),
// embedded at build time by cmake/EmbedBinary.cmake (sim/CMakeLists.txt).
#pragma once

namespace vksim {
#include "nvx_kernels.fatbin.inc"
}  // namespace vksim
