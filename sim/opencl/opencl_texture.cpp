#include "sim/opencl/opencl_texture.h"

#include <cstdio>

// Generated from opencl_kernels.cl at configure time (sim/CMakeLists.txt).
#include "opencl_kernel_source.h"

#include "sim/surface_texture.h"

namespace vksim {
namespace {

// Work-group edge of the texture's 2D launches: 256 work-items, as the
// simulation's kernels. OpenCL promises no such size (the minimum of
// CL_DEVICE_MAX_WORK_GROUP_SIZE is 1, and CL_KERNEL_WORK_GROUP_SIZE may be
// lower still): a device that allows fewer refuses the launch with
// CL_INVALID_WORK_GROUP_SIZE, which VKSIM_CL_OK prints.
constexpr size_t kTextureGroupEdge = 16;

size_t roundUpToGroups(uint32_t extent) {
  return (size_t(extent) + kTextureGroupEdge - 1) / kTextureGroupEdge * kTextureGroupEdge;
}

bool enqueueTexels2d(const OpenClApi& api, cl_command_queue queue, cl_kernel kernel, uint32_t width,
                     uint32_t height) {
  const size_t global[2] = {roundUpToGroups(width), roundUpToGroups(height)};
  const size_t local[2] = {kTextureGroupEdge, kTextureGroupEdge};
  return VKSIM_CL_OK(api.clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, global, local, 0, nullptr, nullptr));
}

template <typename T>
bool setArg(const OpenClApi& api, cl_kernel kernel, cl_uint index, const T& value) {
  return VKSIM_CL_OK(api.clSetKernelArg(kernel, index, sizeof(T), &value));
}

// The packed layout's offsets in texels (the kernels index uchar4s): every
// level starts on a whole texel, and the largest chain (kMaxGrid) holds far
// fewer than 2^32 of them.
cl_uint texelOffset(const SurfaceTextureLevel& level) { return cl_uint(level.offset / kSurfaceTexelBytes); }

}  // namespace

Result<cl_program> buildOpenClProgram(const OpenClApi& api, cl_context context, cl_device_id device,
                                      const std::string& deviceName) {
  const char* source = kOpenClKernelSource;
  cl_int status = CL_SUCCESS;
  cl_program program = api.clCreateProgramWithSource(context, 1, &source, nullptr, &status);
  if (status != CL_SUCCESS || !program)
    return fail("OpenCL could not create the kernels' program (" + openClErrorName(status) + ")", kExitEnvironment);
  // Division and square root correctly rounded, as the CPU reference's
  // (without the option OpenCL allows 2.5 and 3 ulp), where the device
  // offers it (CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT).
  cl_device_fp_config fpConfig = 0;
  api.clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(fpConfig), &fpConfig, nullptr);
  const char* options =
      (fpConfig & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
  status = api.clBuildProgram(program, 1, &device, options, nullptr, nullptr);
  if (status != CL_SUCCESS) {
    size_t size = 0;
    api.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    if (size) api.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    std::fprintf(stderr, "vkcuda-sim: OpenCL build log for '%s':\n%s\n", deviceName.c_str(), log.c_str());
    api.clReleaseProgram(program);
    return fail("OpenCL could not build the kernels for '" + deviceName + "' (build log above) (" +
                    openClErrorName(status) + ")",
                kExitEnvironment);
  }
  return program;
}

std::string createOpenClTextureKernels(const OpenClApi& api, cl_program program, OpenClTextureKernels& kernels) {
  const struct {
    cl_kernel* kernel;
    const char* name;
  } entries[] = {{&kernels.surfaceTexels, "surfaceTexelsKernel"}, {&kernels.downsampleTexels, "downsampleTexelsKernel"}};
  for (const auto& entry : entries) {
    cl_int status = CL_SUCCESS;
    *entry.kernel = api.clCreateKernel(program, entry.name, &status);
    if (status != CL_SUCCESS || !*entry.kernel) {
      *entry.kernel = nullptr;
      return std::string("OpenCL could not create the kernel ") + entry.name + " (" + openClErrorName(status) + ")";
    }
  }
  return "";
}

void releaseOpenClTextureKernels(const OpenClApi& api, OpenClTextureKernels& kernels) {
  for (cl_kernel* kernel : {&kernels.surfaceTexels, &kernels.downsampleTexels}) {
    if (*kernel) VKSIM_CL_OK(api.clReleaseKernel(*kernel));
    *kernel = nullptr;
  }
}

bool enqueueOpenClSurfaceTexture(const OpenClApi& api, cl_command_queue queue, const OpenClTextureKernels& kernels,
                                 cl_mem vertices, uint32_t grid, cl_mem texels) {
  const cl_uint n = grid;
  if (!(setArg(api, kernels.surfaceTexels, 0, vertices) && setArg(api, kernels.surfaceTexels, 1, n) &&
        setArg(api, kernels.surfaceTexels, 2, texels) && enqueueTexels2d(api, queue, kernels.surfaceTexels, n, n)))
    return false;
  // Each level reads the one above, which the previous launch of the
  // in-order queue wrote: queue order is the only ordering needed.
  const cl_kernel downsample = kernels.downsampleTexels;
  const uint32_t levels = surfaceTextureLevelCount(grid);
  for (uint32_t level = 1; level < levels; ++level) {
    const SurfaceTextureLevel above = surfaceTextureLevel(grid, level - 1);
    const SurfaceTextureLevel here = surfaceTextureLevel(grid, level);
    if (!(setArg(api, downsample, 0, texels) && setArg(api, downsample, 1, texelOffset(above)) &&
          setArg(api, downsample, 2, cl_uint(above.width)) && setArg(api, downsample, 3, cl_uint(above.height)) &&
          setArg(api, downsample, 4, texelOffset(here)) && setArg(api, downsample, 5, cl_uint(here.width)) &&
          setArg(api, downsample, 6, cl_uint(here.height)) &&
          enqueueTexels2d(api, queue, downsample, here.width, here.height)))
      return false;
  }
  return true;
}

}  // namespace vksim
