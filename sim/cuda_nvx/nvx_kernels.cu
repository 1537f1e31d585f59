// The CUDA backend's own kernels (sim/cuda/cuda_kernels.cuh), compiled again
// into a fatbin that the cuda-nvx backend hands to vkCreateCuModuleNVX
// (sim/CMakeLists.txt: sm_90 machine code and compute_90 PTX, whatever
// CMAKE_CUDA_ARCHITECTURES says). Nothing is copied: the header's kernels
// marked VKSIM_NVX_ENTRY get C linkage here, which makes them the module's
// entry points under their plain names (addDropsKernel,
// heightFieldVerticesKernel, sinewaveStepKernel, rippleStepKernel,
// rippleStepTexelsKernel and, from the texture's kernels,
// downsampleLevelsKernel), the names vkCreateCuFunctionNVX looks up. Their bodies are the header's, so a
// change there reaches both backends and the two stay bit for bit the same.
// The step kernels are templates' instances underneath (the configuration
// that BackendRippleConfig and BackendSinewaveConfig name); templates cannot
// have C linkage, so each is called from a plain entry point of its own.
#define VKSIM_NVX_ENTRY extern "C"
#include "sim/cuda/cuda_kernels.cuh"
#include "sim/cuda/cuda_texture_kernels.cuh"
