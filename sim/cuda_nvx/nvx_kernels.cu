// The CUDA backend's own kernels (sim/cuda/cuda_kernels.cuh), compiled again
// into a fatbin that the cuda-nvx backend hands to vkCreateCuModuleNVX
// (sim/CMakeLists.txt: sm_90 machine code and compute_90 PTX, whatever
// CMAKE_CUDA_ARCHITECTURES says). Nothing is copied: the header is included
// inside extern "C", which makes its __global__ functions the module's entry
// points under their plain names (addDropsKernel, heightFieldVerticesKernel,
// sinewaveRowKernel, rippleStepRowKernel), the names vkCreateCuFunctionNVX
// looks up. Their bodies are the header's, so a change there reaches both
// backends and the two stay bit for bit the same.
//
// The headers the kernels header includes are included first, outside
// extern "C": C++ code with C++ linkage stays as it is (#pragma once keeps
// the second inclusion empty).
#include <cuda_runtime.h>

#include "sim/model_math.h"
#include "sim/models.h"

extern "C" {
#include "sim/cuda/cuda_kernels.cuh"
}
