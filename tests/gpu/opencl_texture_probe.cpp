// What each OpenCL platform offers for writing the surface texture
// (docs/design.md, "The surface texture on OpenCL";
// lab/opencl/opencl_texture_probe.h says what is printed). Not a test: it
// prints and exits 0, with or without OpenCL.
#include <cstdio>

#include "lab/opencl/opencl_texture_probe.h"

int main() {
  std::printf("%s", vksim::describeOpenClTextureSupport().c_str());
  return 0;
}
