// The fd ownership rule of the handoff (app/interop/grid_resources.h: one
// owner, ExportedHandles, from the export to the import), in-process on
// lavapipe, which exports memory as an opaque fd (it cannot export
// semaphores): the vertex memory is really exported, the failure injected,
// and /proc/self/fd counted before and after. An fd that was not imported is
// still ours and must be closed; one that an importer took must be left alone.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <optional>
#include <string>

#include "app/interop/grid_resources.h"
#include "app_runner.h"
#include "close_recorder.h"
#include "renderer/vk_check.h"
#include "renderer/vulkan_context.h"
#include "shaders/shared_layout.h"

namespace vksim {
namespace {

using testing::CloseRecorder;
using SimulationImporter = std::function<Result<std::unique_ptr<Simulation>>(ExportedHandles& handles)>;
using testing::openFdCount;

bool fdIsOpen(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) != -1; }

FaultPlan planOf(FaultKind kind) {
  FaultPlan plan;
  plan.faults.push_back({kind, 0});
  return plan;
}

class FdHandoff : public ::testing::Test {
 protected:
  void SetUp() override {
    InstanceOptions options;
    options.validation = true;
    instance_ = createInstance(options);
    for (const PhysicalDeviceInfo& info : listPhysicalDevices(instance_))
      if (info.driverName == "llvmpipe" || info.name.find("llvmpipe") != std::string::npos) lavapipe_ = info;
    // lavapipe is a dependency (scripts/setup): a machine without it fails
    // here rather than skipping (docs/testing.md, "No skips that hide a
    // broken machine").
    if (!lavapipe_) GTEST_FAIL() << "lavapipe is not installed";
    DeviceOptions deviceOptions;
    deviceOptions.exportMemory = true;
    device_ = createDevice(instance_, *lavapipe_, deviceOptions);
    // As the CPU backend's start-up faults make them: exportable host-visible
    // memory, semaphores that lavapipe cannot export.
    vertices_ = createSharedVertexBuffer(device_, 16 * 16 * sizeof(Vertex), VertexMemory::hostVisible, true);
    semaphores_ = createSyncSemaphores(device_, false);
    before_ = openFdCount();
    ASSERT_GT(before_, 0);
  }

  void TearDown() override {
    if (device_.device) {
      destroySyncSemaphores(device_, semaphores_);
      destroySharedVertexBuffer(device_, vertices_);
      destroyDevice(device_);
    }
    destroyInstance(instance_);
  }

  // The route as a path runs it (app/paths/zero_copy_path.cpp): export,
  // the import fault's point, the import, then what the importer returned;
  // `handles` closes what was not taken when it goes.
  std::unique_ptr<Simulation> handOver(const FaultPlan& faults, const SimulationImporter& importer) {
    ExportedHandles handles = exportSharedHandles(device_, vertices_, semaphores_, faults, nullptr, "test");
    injectImportFailure(faults, "test: could not import the vertex buffer's memory");
    return importedSimulation(importer(handles), "test");
  }

  Instance instance_;
  std::optional<PhysicalDeviceInfo> lavapipe_;
  Device device_;
  SharedVertexBuffer vertices_;
  SyncSemaphores semaphores_;
  int before_ = 0;
};

TEST_F(FdHandoff, AnExportMakesOneFdThatTheHandlesOwn) {
  int exported = -1;
  {
    ExportedHandles handles = exportSharedHandles(device_, vertices_, semaphores_, FaultPlan{});
    exported = handles.buffer.fd;
    EXPECT_TRUE(fdIsOpen(handles.buffer.fd));
    EXPECT_EQ(handles.buffer.allocationSize, vertices_.allocationSize);
    EXPECT_EQ(handles.semaphores.timelineFd, -1);  // lavapipe: not exportable, not exported
    EXPECT_EQ(openFdCount(), before_ + 1) << "the count must see the exported fd, or the tests below prove nothing";
    // A move hands the fd on: the moved-from handles own nothing any more,
    // and the fd stays open as long as its new owner lives.
    ExportedHandles moved = std::move(handles);
    EXPECT_EQ(handles.buffer.fd, -1);
    EXPECT_EQ(moved.buffer.fd, exported);
    EXPECT_EQ(openFdCount(), before_ + 1);
  }
  EXPECT_FALSE(fdIsOpen(exported)) << "the handles went and left their fd open";
  EXPECT_EQ(openFdCount(), before_);
}

TEST_F(FdHandoff, ExportFailingAfterTheMemoryExportClosesTheExportedFd) {
  const CloseRecorder closes;
  EXPECT_THROW(exportSharedHandles(device_, vertices_, semaphores_, planOf(FaultKind::exportFails)),
               EnvironmentError);
  EXPECT_EQ(openFdCount(), before_) << "the vertex memory's fd stayed open";

  bool imported = false;
  EXPECT_THROW(handOver(planOf(FaultKind::exportFails),
                        [&](ExportedHandles&) -> Result<std::unique_ptr<Simulation>> {
                          imported = true;
                          return fail("unreachable", kExitEnvironment);
                        }),
               EnvironmentError);
  EXPECT_FALSE(imported) << "the import ran after a failed export";
  EXPECT_EQ(openFdCount(), before_);
  EXPECT_EQ(closes.badCloses(), 0) << "an fd was closed twice (close failed with EBADF)";
}

TEST_F(FdHandoff, FailedImportLeavesTheFdOursAndItIsClosed) {
  const CloseRecorder closes;
  bool imported = false;
  try {
    handOver(planOf(FaultKind::importFails), [&](ExportedHandles&) -> Result<std::unique_ptr<Simulation>> {
      imported = true;
      return fail("unreachable", kExitEnvironment);
    });
    ADD_FAILURE() << "no exception";
  } catch (const EnvironmentError& error) {
    EXPECT_NE(std::string(error.what()).find("injected fault import-fails"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(imported);
  EXPECT_EQ(openFdCount(), before_) << "the fd of the failed import stayed open";
  EXPECT_EQ(closes.badCloses(), 0) << "an fd was closed twice (close failed with EBADF)";
}

TEST_F(FdHandoff, ImporterThatFailsWithoutTakingTheFdLeavesNothingOpen) {
  const CloseRecorder closes;
  int seenDuringImport = -1;
  EXPECT_THROW(handOver(FaultPlan{},
                        [&](ExportedHandles& handles) -> Result<std::unique_ptr<Simulation>> {
                          seenDuringImport = openFdCount();
                          EXPECT_TRUE(fdIsOpen(handles.buffer.fd));
                          return fail("refused", kExitEnvironment);
                        }),
               EnvironmentError);
  EXPECT_EQ(seenDuringImport, before_ + 1);
  EXPECT_EQ(openFdCount(), before_);
  EXPECT_EQ(closes.badCloses(), 0) << "an fd was closed twice (close failed with EBADF)";
}

// The recorder the tests above rely on sees a second close of one fd.
TEST(CloseRecorder, CountsASecondCloseOfOneFd) {
  const CloseRecorder closes;
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::close(fd), 0);
  EXPECT_EQ(closes.badCloses(), 0);
  EXPECT_EQ(::close(fd), -1);
  EXPECT_EQ(closes.badCloses(), 1);
}

TEST_F(FdHandoff, AnFdTheImporterTookIsNeverClosedByTheExporter) {
  int taken = -1;
  ModelParams params;
  params.grid = 8;
  std::unique_ptr<Simulation> simulation =
      handOver(FaultPlan{}, [&](ExportedHandles& handles) -> Result<std::unique_ptr<Simulation>> {
        taken = handles.buffer.fd;
        handles.buffer.fd = -1;  // imported: the importer's from now on
        return createCpuCopySimulation(params);
      });
  ASSERT_NE(simulation, nullptr);
  EXPECT_TRUE(fdIsOpen(taken)) << "the exporter closed an fd that the importer owns";
  EXPECT_EQ(openFdCount(), before_ + 1);
  close(taken);  // as the importer would when it releases the import
  EXPECT_EQ(openFdCount(), before_);
}

}  // namespace
}  // namespace vksim
