// The two interop properties that need the pieces driven directly rather than
// through the app's command line: the lazy-loading trap, and one memory seen
// identically by both APIs.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app/interop/value_schedule.h"
#include "app_runner.h"
#include "gpu_environment.h"
#include "renderer/readback.h"
#include "renderer/vk_check.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

Options cudaOptions(ModelKind model, uint32_t grid) {
  Options options;
  options.headless = true;
  options.backend = BackendChoice::cuda;
  options.model.model = model;
  options.model.grid = grid;
  options.width = options.height = 128;
  return options;
}

// The design notes' trap: with lazy module loading, a kernel's first launch
// into a stream already waiting on an external semaphore blocks the launching
// thread until the wait is satisfied. Here the same thread would signal, so
// without the backend's up-front kernel loading this never returns. The child
// runs in a fresh process (module loading happens once per process) with
// CUDA_MODULE_LOADING=LAZY; the parent gives it a timeout.
TEST(DISABLED_LazyLoadingChild, StepEnqueuedBeforeItsSignalThenHostSignals) {
  App app;
  app.headless = true;
  createApp(app, cudaOptions(ModelKind::ripple, 256));
  EXPECT_TRUE(app.instance.validation && app.instance.synchronizationValidation)
      << "run with VKSIM_VALIDATION=1 (ctest sets it)";
  // Sim step waits for value 1, which nothing has signalled yet: the first
  // launch of the step's kernels follows a pending external wait.
  const StepSync sync{SyncMode::timeline, 1, 2};
  ASSERT_EQ(app.grid.simulation->step(sync, true, kWaitTimeoutNs).status, StepStatus::ok);
  // Only now does this same thread signal the value the stream waits for.
  VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
  signal.semaphore = app.grid.semaphores.timeline;
  signal.value = 1;
  VK_CHECK(vkSignalSemaphore(app.device.device, &signal));
  ASSERT_TRUE(app.grid.simulation->finish(kWaitTimeoutNs));
  EXPECT_EQ(readTimelineCounter(app.device, app.grid.semaphores), 2u);
  destroyApp(app);
  std::printf("lazy-loading child: finished\n");
}

TEST(CudaLazyLoading, FirstLaunchAfterAPendingWaitDoesNotBlockTheSignallingThread) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const testing::AppResult child =
      testing::runApp({"--gtest_also_run_disabled_tests", "--gtest_filter=DISABLED_LazyLoadingChild.*"},
                      {"CUDA_MODULE_LOADING=LAZY"}, 60, self);
  ASSERT_FALSE(child.timedOut) << "the step blocked the thread that would signal: " << child.out << child.err;
  EXPECT_EQ(child.exitCode, 0) << child.out << child.err;
  EXPECT_NE(child.out.find("lazy-loading child: finished"), std::string::npos) << child.out;
  EXPECT_NE(child.out.find("[  PASSED  ] 1 test"), std::string::npos) << child.out;
}

// Zero copies, one memory: the bytes Vulkan reads from its vertex buffer are
// the bytes CUDA reads through its mapping of the imported allocation. Each
// side reads while it owns the buffer: CUDA while the last render's release
// leaves it with VK_QUEUE_FAMILY_EXTERNAL, Vulkan after the drain's acquire.
TEST(CudaZeroCopy, VulkanReadsBackExactlyWhatCudaWrote) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  for (ModelKind model : {ModelKind::ripple, ModelKind::sinewave}) {
    App app;
    app.headless = true;
    createApp(app, cudaOptions(model, 300));
    ASSERT_TRUE(app.instance.validation && app.instance.synchronizationValidation)
        << "run with VKSIM_VALIDATION=1 (ctest sets it)";
    const ValidationWatch watch;
    for (int frame = 0; frame < 50; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
    ASSERT_EQ(app.grid.vertexOwner, VertexOwner::external);
    ASSERT_TRUE(app.grid.simulation->finish(kWaitTimeoutNs));
    const size_t bytes = app.grid.vertices.size;
    std::vector<uint8_t> throughCuda(bytes, 0xCD);
    ASSERT_TRUE(copyCudaVerticesToHost(*app.grid.simulation, throughCuda.data(), bytes, kWaitTimeoutNs));
    drainSchedule(app);
    ASSERT_EQ(app.grid.vertexOwner, VertexOwner::vulkan) << "the drain must acquire the buffer";
    const std::vector<uint8_t> throughVulkan = readSharedVertices(app.device, app.grid);
    ASSERT_EQ(throughVulkan.size(), bytes);
    EXPECT_EQ(std::memcmp(throughVulkan.data(), throughCuda.data(), bytes), 0) << toString(model);
    // Something was written: a vertex's w component is 1.
    float w = 0;
    std::memcpy(&w, throughVulkan.data() + 12, sizeof w);
    EXPECT_EQ(w, 1.0f);
    // Memory the simulation owns beyond the shared buffer: ripple's three
    // height fields, nothing for sinewave.
    EXPECT_EQ(cudaOwnedDeviceBytes(*app.grid.simulation),
              model == ModelKind::ripple ? 3u * 300u * 300u * sizeof(float) : 0u);
    destroyApp(app);
    EXPECT_EQ(watch.newWarnings(), 0u) << toString(model);
    EXPECT_EQ(watch.newErrors(), 0u) << toString(model);
  }
}

// Frame 0 has a dependency Vulkan can see on the initial state: the initial
// write ends in a simDone signal (CUDA's external semaphore signal), render 0
// waits on it, and afterwards nothing is outstanding but the step's own
// signal. With the validation layer on (VKSIM_VALIDATION=1 is set by the
// caller or not; the counts are checked either way), in both modes, and
// again after a rebuild.
TEST(CudaInitialState, RenderZeroWaitsOnTheInitialWritesSimDoneSignal) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  for (SyncMode mode : {SyncMode::timeline, SyncMode::binary}) {
    Options options = cudaOptions(ModelKind::ripple, 256);
    options.sync = mode;
    App app;
    app.headless = true;
    createApp(app, options);
    for (int round = 0; round < 2; ++round) {
      ASSERT_TRUE(app.schedule.simSignal) << "the initial write enqueued no signal";
      EXPECT_EQ(app.schedule.simSignal->mode, SyncMode::binary);
      EXPECT_EQ(app.grid.vertexOwner, VertexOwner::external) << "CUDA wrote it first";
      EXPECT_EQ(nextRenderSync(app.schedule).wait, RenderSync::Wait::simDone);
      ASSERT_EQ(runFrame(app), FrameStatus::rendered);
      ASSERT_TRUE(app.schedule.simSignal);
      EXPECT_EQ(app.schedule.simSignal->mode, mode) << "render 0 consumed the initial signal";
      if (mode == SyncMode::timeline) {
        ASSERT_TRUE(app.grid.simulation->finish(kWaitTimeoutNs));
        EXPECT_EQ(readTimelineCounter(app.device, app.grid.semaphores), 2u);
      }
      if (round == 0) rebuildGridResources(app, options.model);
    }
    drainSchedule(app);
    EXPECT_FALSE(app.schedule.simSignal);
    EXPECT_EQ(app.grid.vertexOwner, VertexOwner::vulkan);
    destroyApp(app);
    EXPECT_EQ(validationCounts().errors.load(), 0u);
    EXPECT_EQ(validationCounts().warnings.load(), 0u);
  }
}

}  // namespace
}  // namespace vksim
