// Internal to sim/opencl/ and its tests: the backend's OpenCL program, built
// from the source the build embedded (sim/opencl/opencl_kernels.cl), and the
// surface texture's two kernels of that program, enqueued on buffers that the
// caller gives. The simulation enqueues them on its imported buffers; a test
// on an OpenCL without external memory (CI's PoCL) enqueues them on plain
// buffers. OpenCL types: this is not one of sim/'s public headers.
#pragma once
#include <cstdint>
#include <string>

#include "base/result.h"
#include "sim/opencl/opencl_api.h"

namespace vksim {

// Builds every kernel of opencl_kernels.cl for `device` of `context`, with
// division and square root correctly rounded where the device offers it
// (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT). The program is the caller's
// (clReleaseProgram). On a failed build the log goes to stderr; the Error
// (exit code 3) names `deviceName`.
Result<cl_program> buildOpenClProgram(const OpenClApi& api, cl_context context, cl_device_id device,
                                      const std::string& deviceName);

struct OpenClTextureKernels {
  cl_kernel surfaceTexels = nullptr;     // level 0 from the vertices
  cl_kernel downsampleTexels = nullptr;  // one level from the level above
};

// Creates both kernels of `program` into `kernels`. "" on success, otherwise
// one phrase naming the kernel that failed; what was made stays in `kernels`
// for releaseOpenClTextureKernels.
std::string createOpenClTextureKernels(const OpenClApi& api, cl_program program, OpenClTextureKernels& kernels);

// Releases the kernels that exist and sets them to nullptr.
void releaseOpenClTextureKernels(const OpenClApi& api, OpenClTextureKernels& kernels);

// Enqueues on the in-order `queue` every level of the surface texture of
// `vertices` (grid*grid vertices, shaders/shared_layout.h, row-major) into
// `texels` (at least surfaceTextureBytes(grid) bytes, the packed layout of
// sim/surface_texture.h): level 0, then each smaller level from the one
// above, one launch each, in that order; the bytes equal writeSurfaceTexture's
// for the same vertices. The kernels hold their arguments, so the kernels
// object must not be shared with another thread's enqueues. The caller makes
// both buffers usable on the queue (an imported buffer between its acquire
// and its release) and keeps them until the launches complete. False, with a
// line on stderr naming the call, when a launch could not be enqueued; the
// launches before it stay enqueued. grid in [kMinGrid, kMaxGrid].
bool enqueueOpenClSurfaceTexture(const OpenClApi& api, cl_command_queue queue, const OpenClTextureKernels& kernels,
                                 cl_mem vertices, uint32_t grid, cl_mem texels);

}  // namespace vksim
