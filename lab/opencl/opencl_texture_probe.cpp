#include "lab/opencl/opencl_texture_probe.h"

#include <cstdint>
#include <string>
#include <vector>

#include "sim/opencl/opencl_api.h"

namespace vksim {
namespace {

// CL_DEVICE_EXTERNAL_MEMORY_IMPORT_ASSUME_LINEAR_IMAGES_HANDLE_TYPES_KHR, a
// later query of cl_khr_external_memory, with the value the Khronos registry
// (cl.xml) gives it: Debian 12's cl_ext.h predates it. The probe is its only
// user.
constexpr cl_uint kAssumeLinearImagesHandleTypes = 0x2052;

// The extensions that decide which texture route a platform could take.
constexpr const char* kTextureExtensions[] = {
    "cl_khr_external_memory",      "cl_khr_external_memory_opaque_fd", "cl_khr_external_memory_dma_buf",
    "cl_khr_mipmap_image",         "cl_khr_mipmap_image_writes",       "cl_khr_image2d_from_buffer",
    "cl_khr_external_semaphore",   "cl_khr_semaphore"};

std::string present(const std::string& extensions) {
  std::string line;
  for (const char* name : kTextureExtensions) {
    const bool has = (" " + extensions + " ").find(std::string(" ") + name + " ") != std::string::npos;
    line += std::string(line.empty() ? "" : ", ") + name + (has ? " yes" : " no");
  }
  return line;
}

std::string handleTypeName(cl_uint type) {
  switch (type) {
    case CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR: return "opaque-fd";
    case CL_EXTERNAL_MEMORY_HANDLE_DMA_BUF_KHR: return "dma-buf";
    default: {
      std::string hex;
      for (int shift = 28; shift >= 0; shift -= 4) hex += "0123456789abcdef"[(type >> shift) & 0xF];
      return "0x" + hex;
    }
  }
}

// A list-valued query's answer (size first, then the values), or the error.
template <typename Query>
std::string handleTypes(Query&& query) {
  size_t bytes = 0;
  if (const cl_int status = query(0, nullptr, &bytes); status != CL_SUCCESS)
    return "query failed (" + openClErrorName(status) + ")";
  std::vector<cl_uint> types(bytes / sizeof(cl_uint));
  if (!types.empty())
    if (const cl_int status = query(bytes, types.data(), nullptr); status != CL_SUCCESS)
      return "query failed (" + openClErrorName(status) + ")";
  std::string line;
  for (cl_uint type : types) line += (line.empty() ? "" : ", ") + handleTypeName(type);
  return line.empty() ? "none" : line;
}

std::string platformString(const OpenClApi& api, cl_platform_id platform, cl_platform_info what) {
  size_t bytes = 0;
  if (api.clGetPlatformInfo(platform, what, 0, nullptr, &bytes) != CL_SUCCESS) return "?";
  std::string text(bytes, '\0');
  if (api.clGetPlatformInfo(platform, what, bytes, text.data(), nullptr) != CL_SUCCESS) return "?";
  return text.c_str();
}

std::string deviceString(const OpenClApi& api, cl_device_id device, cl_device_info what) {
  size_t bytes = 0;
  if (api.clGetDeviceInfo(device, what, 0, nullptr, &bytes) != CL_SUCCESS) return "?";
  std::string text(bytes, '\0');
  if (api.clGetDeviceInfo(device, what, bytes, text.data(), nullptr) != CL_SUCCESS) return "?";
  return text.c_str();
}

// Whether RGBA UNORM_INT8 (the texture's format) is a read-write 2D image
// format of the context of `device` alone.
std::string rgba8ReadWrite(const OpenClApi& api, cl_device_id device) {
  cl_int status = CL_SUCCESS;
  cl_context context = api.clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  if (!context) return "no context (" + openClErrorName(status) + ")";
  cl_uint count = 0;
  std::string answer = "no";
  if (api.clGetSupportedImageFormats(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &count) ==
      CL_SUCCESS) {
    std::vector<cl_image_format> formats(count);
    if (count && api.clGetSupportedImageFormats(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, count,
                                                formats.data(), nullptr) == CL_SUCCESS)
      for (const cl_image_format& format : formats)
        if (format.image_channel_order == CL_RGBA && format.image_channel_data_type == CL_UNORM_INT8) answer = "yes";
  } else {
    answer = "query failed";
  }
  api.clReleaseContext(context);
  return answer;
}

std::string describeDevice(const OpenClApi& api, cl_device_id device) {
  std::string text = "  device: " + deviceString(api, device, CL_DEVICE_NAME) + "\n";
  text += "    extensions: " + present(deviceString(api, device, CL_DEVICE_EXTENSIONS)) + "\n";
  text += "    memory import handle types: " + handleTypes([&](size_t size, void* value, size_t* ret) {
            return api.clGetDeviceInfo(device, CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR, size, value, ret);
          }) + "\n";
  text += "    images imported as linear only, for handle types: " +
          handleTypes([&](size_t size, void* value, size_t* ret) {
            return api.clGetDeviceInfo(device, kAssumeLinearImagesHandleTypes, size, value, ret);
          }) + "\n";
  cl_bool images = CL_FALSE;
  size_t maxWidth = 0;
  api.clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  api.clGetDeviceInfo(device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof maxWidth, &maxWidth, nullptr);
  text += "    image support: " + std::string(images ? "yes" : "no") + ", 2D width up to " +
          std::to_string(maxWidth) + ", RGBA UNORM_INT8 read-write 2D: " + rgba8ReadWrite(api, device) + "\n";
  return text;
}

}  // namespace

std::string describeOpenClTextureSupport() {
  const Result<const OpenClApi*> loaded = loadOpenClApi();
  if (!loaded) return "no OpenCL: " + loaded.error().message + "\n";
  const OpenClApi& api = **loaded;
  cl_uint count = 0;
  if (const cl_int status = api.clGetPlatformIDs(0, nullptr, &count); status != CL_SUCCESS || count == 0)
    return "no OpenCL platform (" + openClErrorName(status) + ")\n";
  std::vector<cl_platform_id> platforms(count);
  api.clGetPlatformIDs(count, platforms.data(), nullptr);
  std::string text;
  for (cl_platform_id platform : platforms) {
    text += "platform: " + platformString(api, platform, CL_PLATFORM_NAME) + " (" +
            platformString(api, platform, CL_PLATFORM_VERSION) + ")\n";
    text += "  extensions: " + present(platformString(api, platform, CL_PLATFORM_EXTENSIONS)) + "\n";
    text += "  memory import handle types (every device): " +
            handleTypes([&](size_t size, void* value, size_t* ret) {
              return api.clGetPlatformInfo(platform, CL_PLATFORM_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR, size,
                                           value, ret);
            }) + "\n";
    cl_uint devices = 0;
    if (const cl_int status = api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &devices);
        status != CL_SUCCESS) {
      text += "  no devices (" + openClErrorName(status) + ")\n";
      continue;
    }
    std::vector<cl_device_id> ids(devices);
    api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, devices, ids.data(), nullptr);
    for (cl_device_id id : ids) text += describeDevice(api, id);
  }
  return text;
}

}  // namespace vksim
