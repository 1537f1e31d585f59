// What each OpenCL platform offers for writing the surface texture
// (docs/design.md, "The surface texture on OpenCL"), as text, behind a header
// with no OpenCL type. For the probe program tests/gpu/opencl_texture_probe.cpp.
#pragma once
#include <string>

namespace vksim {

// One block per platform of the ICD loader (loadOpenClApi): its name and
// version, which of the extensions that bear on the texture it and each of
// its devices report (external memory with opaque fds, mip-mapped images and
// their writes, images from buffers, semaphores), the memory handle types the
// platform and each device import, the handle types a device imports images
// of as linear only, and per device its image support, 2D image size limit
// and whether RGBA UNORM_INT8 is a read-write 2D image format. A query that
// fails is printed with its error name, never fatal. Without a loader: the
// one sentence why.
std::string describeOpenClTextureSupport();

}  // namespace vksim
