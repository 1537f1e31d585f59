// The backend table (app/interop/interop_config.h, BackendTraits): the rows
// that the command line, the device choice, the path choice and the captures
// consult, against what each backend is (docs/design.md, "Paths";
// DEVELOPERS.md, "Adding a backend"). A new row leaves these tests as they
// are: they name the backends that exist and check every row's shape.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "app/interop/device_pairing.h"
#include "app/interop/interop_config.h"

namespace vksim {
namespace {

TEST(BackendTable, EveryRowIsFoundByItsValueAndItsName) {
  std::set<std::string> names;
  for (const BackendTraits& row : backendTable()) {
    EXPECT_TRUE(names.insert(row.name).second) << "two rows named " << row.name;
    EXPECT_EQ(&traitsOf(row.backend), &row) << row.name;
    EXPECT_EQ(findBackend(row.name), &row) << row.name;
    EXPECT_STREQ(toString(row.backend), row.name);
    EXPECT_FALSE(row.inRenderQueue && row.stepsOnHost) << row.name;
    EXPECT_FALSE(row.sharesWithAnotherApi && row.stepsOnHost) << row.name;
  }
  EXPECT_EQ(findBackend("cpu-host"), nullptr);
  EXPECT_EQ(findBackend(""), nullptr);
}

// What each backend that exists is: the answers the enum switches gave.
TEST(BackendTable, SaysWhereEachBackendSteps) {
  struct Expected {
    Backend backend;
    const char* name;
    bool renderQueue, anotherApi, onHost;
  };
  const Expected expected[] = {
      {Backend::automatic, "auto", false, false, false}, {Backend::cuda, "cuda", false, true, false},
      {Backend::cpu, "cpu", false, false, true},         {Backend::vulkan, "vulkan", true, false, false},
      {Backend::cudaNvx, "cuda-nvx", true, false, false}, {Backend::opencl, "opencl", false, true, false},
  };
  for (const Expected& row : expected) {
    EXPECT_STREQ(traitsOf(row.backend).name, row.name);
    EXPECT_EQ(inRenderQueue(row.backend), row.renderQueue) << row.name;
    EXPECT_EQ(sharesWithAnotherApi(row.backend), row.anotherApi) << row.name;
    EXPECT_EQ(traitsOf(row.backend).stepsOnHost, row.onHost) << row.name;
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
