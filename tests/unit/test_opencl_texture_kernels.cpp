// The OpenCL backend's surface texture kernels (surfaceTexelsKernel,
// downsampleTexelsKernel in sim/opencl/opencl_kernels.cl) against the CPU
// reference, writeSurfaceTexture: every level byte for byte, on every OpenCL
// device this machine has (CI: PoCL on the CPU; the NVIDIA machine: its GPU
// too). PoCL has no external memory, so the kernels run here on plain
// buffers through the seam the backend itself uses (sim/opencl/opencl_texture.h):
// the same program, the same launches, other buffers.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/opencl/opencl_texture.h"
#include "sim/simulation.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

// One device with the backend's program built for it, made once for every
// case below (PoCL compiles the program in about a second).
struct TextureKernelDevice {
  const OpenClApi* api = nullptr;
  std::string name;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  OpenClTextureKernels kernels;
  std::string failure;  // why this device could not be set up; "" when it was
};

TextureKernelDevice openTextureKernelDevice(const OpenClApi& api, cl_platform_id platform, cl_device_id device) {
  TextureKernelDevice result;
  result.api = &api;
  char name[256] = {};
  api.clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name) - 1, name, nullptr);
  result.name = name;
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              cl_context_properties(reinterpret_cast<intptr_t>(platform)), 0};
  cl_int status = CL_SUCCESS;
  result.context = api.clCreateContext(properties, 1, &device, nullptr, nullptr, &status);
  if (status != CL_SUCCESS) return result.failure = "clCreateContext: " + openClErrorName(status), result;
  result.queue = api.clCreateCommandQueueWithProperties(result.context, device, nullptr, &status);
  if (status != CL_SUCCESS) return result.failure = "clCreateCommandQueue: " + openClErrorName(status), result;
  Result<cl_program> program = buildOpenClProgram(api, result.context, device, result.name);
  if (!program) return result.failure = program.error().message, result;
  result.program = *program;
  result.failure = createOpenClTextureKernels(api, result.program, result.kernels);
  return result;
}

// Every device of every platform (never released: the process ends first).
const std::vector<TextureKernelDevice>& textureKernelDevices(std::string* unavailable) {
  static std::string reason;
  static const std::vector<TextureKernelDevice> devices = [] {
    std::vector<TextureKernelDevice> found;
    const Result<const OpenClApi*> api = loadOpenClApi();
    if (!api) return reason = api.error().message, found;
    const OpenClApi& cl = **api;
    cl_uint platformCount = 0;
    if (cl.clGetPlatformIDs(0, nullptr, &platformCount) != CL_SUCCESS || platformCount == 0)
      return reason = "no OpenCL platform", found;
    std::vector<cl_platform_id> platforms(platformCount);
    cl.clGetPlatformIDs(platformCount, platforms.data(), nullptr);
    for (cl_platform_id platform : platforms) {
      cl_uint count = 0;
      if (cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS) continue;
      std::vector<cl_device_id> ids(count);
      cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr);
      for (cl_device_id id : ids) found.push_back(openTextureKernelDevice(cl, platform, id));
    }
    if (found.empty()) reason = "no OpenCL device";
    return found;
  }();
  *unavailable = reason;
  return devices;
}

// The vertices of `steps` steps of the CPU backend (the copy path's variant,
// which writes host memory and needs no semaphores).
std::vector<Vertex> cpuVertices(const ModelParams& params, int steps) {
  const std::unique_ptr<Simulation> simulation = createCpuCopySimulation(params);
  if (!simulation || simulation->writeInitialState().status != StepStatus::ok) return {};
  for (int step = 0; step < steps; ++step)
    if (simulation->step({SyncMode::binary, 0, 0}, true, 0).status != StepStatus::ok) return {};
  const auto* first = static_cast<const Vertex*>(simulation->hostVertices());
  return std::vector<Vertex>(first, first + size_t(params.grid) * params.grid);
}

// Runs the texture kernels on `vertices`; the texels read back, or empty
// after a failure that the test has already reported.
std::vector<uint8_t> openClTexels(const TextureKernelDevice& device, const std::vector<Vertex>& vertices,
                                  uint32_t grid) {
  const OpenClApi& cl = *device.api;
  const uint64_t bytes = surfaceTextureBytes(grid);
  cl_int status = CL_SUCCESS;
  cl_mem vertexBuffer = cl.clCreateBuffer(device.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                          vertices.size() * sizeof(Vertex), const_cast<Vertex*>(vertices.data()),
                                          &status);
  EXPECT_EQ(status, CL_SUCCESS) << "the vertex buffer: " << openClErrorName(status);
  cl_mem texelBuffer = cl.clCreateBuffer(device.context, CL_MEM_READ_WRITE, size_t(bytes), nullptr, &status);
  EXPECT_EQ(status, CL_SUCCESS) << "the texel buffer: " << openClErrorName(status);
  std::vector<uint8_t> texels(size_t(bytes), 0);
  bool read = vertexBuffer && texelBuffer &&
              enqueueOpenClSurfaceTexture(cl, device.queue, device.kernels, vertexBuffer, grid, texelBuffer);
  EXPECT_TRUE(read) << "enqueueOpenClSurfaceTexture failed (stderr says which call)";
  if (read) {
    status = cl.clEnqueueReadBuffer(device.queue, texelBuffer, CL_TRUE, 0, size_t(bytes), texels.data(), 0, nullptr,
                                    nullptr);
    EXPECT_EQ(status, CL_SUCCESS) << "clEnqueueReadBuffer: " << openClErrorName(status);
    read = status == CL_SUCCESS;
  }
  for (cl_mem buffer : {vertexBuffer, texelBuffer})
    if (buffer) cl.clReleaseMemObject(buffer);
  return read ? texels : std::vector<uint8_t>{};
}

// Every level of OpenCL's texels equal to the CPU reference's; the first
// differing byte of each level that differs is named.
void expectEveryLevelEqual(const std::vector<uint8_t>& openCl, const std::vector<uint8_t>& reference, uint32_t grid,
                           const std::string& what) {
  ASSERT_EQ(openCl.size(), reference.size()) << what;
  for (uint32_t level = 0; level < surfaceTextureLevelCount(grid); ++level) {
    const SurfaceTextureLevel extent = surfaceTextureLevel(grid, level);
    const uint64_t levelBytes = uint64_t(extent.width) * extent.height * kSurfaceTexelBytes;
    for (uint64_t byte = 0; byte < levelBytes; ++byte) {
      const uint64_t at = extent.offset + byte;
      if (openCl[at] == reference[at]) continue;
      const uint64_t texel = byte / kSurfaceTexelBytes;
      ADD_FAILURE() << what << ": level " << level << " (" << extent.width << "x" << extent.height
                    << "): bytes that differ from the CPU reference, the first at byte " << byte << " (texel "
                    << texel % extent.width << ", " << texel / extent.width << ", channel "
                    << byte % kSurfaceTexelBytes << "): " << int(openCl[at]) << " against " << int(reference[at]);
      break;
    }
  }
}

// Vertices whose heights and normals sweep the colour's whole range in
// distinct floats, one per vertex: where a result lies within a rounding of
// a byte's edge, an operation fused or reordered shows (a multiply-add
// contracted into one rounding, which the ripple's smooth fields rarely put
// at an edge). Heights from -0.12 to 0.12 (depth from 0 to 1 and beyond);
// normal y from 1 down to 0.95 (foam from 0 to 1 and beyond), the two
// unrelated.
std::vector<Vertex> sweepVertices(uint32_t grid) {
  const size_t count = size_t(grid) * grid;
  std::vector<Vertex> vertices(count);
  for (size_t index = 0; index < count; ++index) {
    const float along = float(index) / float(count);
    const float across = float((index * 7919u) % count) / float(count);
    vertices[index] = {{0.0f, -0.12f + 0.24f * along, 0.0f, 1.0f}, {0.0f, 1.0f - 0.05f * across, 0.0f, 0.0f}};
  }
  return vertices;
}

struct TextureCase {
  const char* name;
  ModelKind model;
  uint32_t grid;
  int steps;            // -1: sweepVertices instead of a model's
  float dropAmplitude;  // ripple: large enough that heights clamp the colour
};

// Ripple after a few steps (the initial drop spread into rings, and a
// second drop at step 24) at grids of every parity, one with drops tall
// enough to saturate the colour; the sinewave, whose peaks saturate it too;
// and the sweep.
const TextureCase kTextureCases[] = {
    {"ripple 5", ModelKind::ripple, 5, 30, 0.06f},     {"ripple 37", ModelKind::ripple, 37, 30, 0.06f},
    {"ripple 333", ModelKind::ripple, 333, 30, 0.06f}, {"ripple 512", ModelKind::ripple, 512, 30, 0.06f},
    {"ripple 333 tall", ModelKind::ripple, 333, 30, 0.3f}, {"sinewave 37", ModelKind::sinewave, 37, 7, 0.06f},
    {"sinewave 512", ModelKind::sinewave, 512, 7, 0.06f},  {"sweep 512", ModelKind::ripple, 512, -1, 0.06f}};

TEST(OpenClTextureKernels, EveryLevelEqualsTheCpuReference) {
  std::string unavailable;
  const std::vector<TextureKernelDevice>& devices = textureKernelDevices(&unavailable);
  if (devices.empty()) GTEST_SKIP() << "no OpenCL to run the kernels on: " << unavailable;
  for (const TextureKernelDevice& device : devices) {
    ASSERT_EQ(device.failure, "") << "device '" << device.name << "'";
    for (const TextureCase& textureCase : kTextureCases) {
      const std::string what = std::string(textureCase.name) + " on '" + device.name + "'";
      ModelParams params;
      params.model = textureCase.model;
      params.grid = textureCase.grid;
      params.dropAmplitude = textureCase.dropAmplitude;
      const std::vector<Vertex> vertices =
          textureCase.steps < 0 ? sweepVertices(params.grid) : cpuVertices(params, textureCase.steps);
      ASSERT_FALSE(vertices.empty()) << what << ": the CPU backend wrote no vertices";
      std::vector<uint8_t> reference(size_t(surfaceTextureBytes(params.grid)));
      writeSurfaceTexture(vertices.data(), params.grid, reference.data());
      // Not a flat picture: colours that vary, so that a wrong operation shows.
      const auto* level0 = reinterpret_cast<const uint32_t*>(reference.data());
      const std::set<uint32_t> colours(level0, level0 + size_t(params.grid) * params.grid);
      EXPECT_GE(colours.size(), params.grid >= 37 ? 20u : 3u) << what;
      const std::vector<uint8_t> texels = openClTexels(device, vertices, params.grid);
      if (!texels.empty()) expectEveryLevelEqual(texels, reference, params.grid, what);
    }
    std::printf("[ opencl ] texture kernels checked on '%s'\n", device.name.c_str());
  }
}

}  // namespace
}  // namespace vksim
