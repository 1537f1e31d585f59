// The backend table (app/interop/interop_config.h, BackendTraits): the rows
// that the command line, the device choice, the path choice and the captures
// consult, against what each backend is (docs/design.md, "Rooms";
// DEVELOPERS.md, "Adding a backend").
#include <gtest/gtest.h>

#include <string>

#include "app/interop/device_pairing.h"
#include "app/interop/interop_config.h"

namespace vksim {
namespace {

TEST(BackendTable, NamesEveryBackendInTheEnumsOrder) {
  std::string names;
  for (const BackendTraits& row : backendTable()) {
    names += std::string(names.empty() ? "" : " ") + row.name;
    EXPECT_EQ(&traitsOf(row.backend), &row) << row.name;
    EXPECT_EQ(findBackend(row.name), &row) << row.name;
    EXPECT_STREQ(toString(row.backend), row.name);
  }
  EXPECT_EQ(names, "auto cuda cpu vulkan cuda-nvx opencl");
  EXPECT_EQ(findBackend("cpu-host"), nullptr);
  EXPECT_EQ(findBackend(""), nullptr);
}

TEST(BackendTable, SaysWhereEachBackendSteps) {
  for (const BackendTraits& row : backendTable()) {
    const Backend backend = row.backend;
    const bool renderQueue = backend == Backend::vulkan || backend == Backend::cudaNvx;
    const bool anotherApi = backend == Backend::cuda || backend == Backend::opencl;
    EXPECT_EQ(inRenderQueue(backend), renderQueue) << row.name;
    EXPECT_EQ(sharesWithAnotherApi(backend), anotherApi) << row.name;
    // Only the CPU backend steps on the host (and runs the CPU host path).
    EXPECT_EQ(row.stepsOnHost, backend == Backend::cpu) << row.name;
  }
}

TEST(BackendTable, TheChosenBackendIsNamedByItsRow) {
  DeviceChoice choice;
  EXPECT_STREQ(backendName(choice), "cpu");  // the default choice
  choice.backend = Backend::cudaNvx;
  EXPECT_STREQ(backendName(choice), "cuda-nvx");
  choice.backend = Backend::opencl;
  EXPECT_STREQ(backendName(choice), "opencl");
}

}  // namespace
}  // namespace vksim
