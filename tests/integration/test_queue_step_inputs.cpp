// What the host writes for a render-queue step (the Vulkan backend's
// sinewave factors, its drop list) must not change under a step that is
// still queued: with two frames in flight (docs/queue-backends.md) step k-1
// may not have run when the host records step k. On lavapipe the frame loop's
// host happens to wait, inside waitForSlot after the slot's fence is seen
// signalled, until the previous frame has run, which hides an overwrite; so
// this test holds a step back itself: it records step 1, submits it behind a
// semaphore only the test signals, records step 2 (the host writes step 2's
// inputs), then lets step 1 run and compares its vertices with the CPU
// reference of step 1: the sinewave's (not step 2's), and the ripple's with a
// drop on every step (step 1's drop, not step 2's). Validation and
// synchronization validation are on and must stay silent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "app/app.h"
#include "app/interop/value_schedule.h"
#include "sim/models.h"
#include "sim/vulkan/render_queue_simulation.h"
#include "sync_validation.h"
#include "texture_check.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

constexpr uint32_t kHeldStepGrid = 64;

VkSemaphore createHeldStepGate(const Device& device) {
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore gate = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateSemaphore(device.device, &info, nullptr, &gate), VK_SUCCESS);
  return gate;
}

// The largest difference of the heights (position y) from the CPU
// reference's vertices of sinewave step `step`.
float largestHeldStepHeightDifference(const std::vector<Vertex>& vertices, const ModelParams& params, uint64_t step) {
  std::vector<Vertex> reference(vertices.size());
  writeSinewaveVertices(params, step, reference.data());
  float largest = 0.0f;
  for (size_t v = 0; v < vertices.size(); ++v)
    largest = std::max(largest, std::fabs(vertices[v].position.y - reference[v].position.y));
  return largest;
}

// Creates the app for `options`, records step 1 and holds it back behind a
// semaphore, records step 2, lets step 1 run and returns its vertices; the
// app is destroyed and validation must have stayed silent.
std::vector<Vertex> heldStepVertices(const Options& options) {
  enableSynchronizationValidation();
  const ValidationWatch watch;
  App app;
  app.headless = true;
  createApp(app, options);
  EXPECT_TRUE(app.instance.validation && app.instance.synchronizationValidation);
  RenderQueueSimulation* simulation = app.path.renderQueue.get();
  std::vector<Vertex> vertices(size_t(kHeldStepGrid) * kHeldStepGrid);
  if (simulation) {
    const VkSemaphore gate = createHeldStepGate(app.device);
    const RecordedStep first = simulation->recordStep(simSyncForFrame(0, SyncMode::timeline), /*advance=*/true);
    EXPECT_NE(first.commandBuffer, VK_NULL_HANDLE);
    const SemaphoreWait held{gate, 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT};
    submitToQueue(app.device, first.commandBuffer, std::span(&held, 1), {}, VK_NULL_HANDLE);
    // Step 2 is recorded while step 1 waits: the host writes step 2's inputs.
    const RecordedStep second = simulation->recordStep(simSyncForFrame(1, SyncMode::timeline), /*advance=*/true);
    EXPECT_NE(second.commandBuffer, VK_NULL_HANDLE);
    VkSemaphoreSignalInfo open{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    open.semaphore = gate;
    open.value = 1;
    EXPECT_EQ(vkSignalSemaphore(app.device.device, &open), VK_SUCCESS);
    // finish: a fence behind everything submitted to the queue, bounded.
    EXPECT_TRUE(simulation->finish(kDefaultWaitTimeoutNs)) << "step 1 did not complete within the default bound";
    const std::vector<uint8_t> bytes = readSharedVertices(app.device, app.grid);
    EXPECT_EQ(bytes.size(), vertices.size() * sizeof(Vertex));
    std::memcpy(vertices.data(), bytes.data(), std::min(bytes.size(), vertices.size() * sizeof(Vertex)));
    vkDestroySemaphore(app.device.device, gate, nullptr);
  } else {
    ADD_FAILURE() << "no render-queue simulation";
  }
  destroyApp(app);
  EXPECT_EQ(watch.newErrors(), 0u);
  EXPECT_EQ(watch.newWarnings(), 0u);
  return vertices;
}

TEST(QueueStepInputs, AQueuedStepKeepsTheSinewaveFactorsItWasRecordedWith) {
  Options options = textureTestOptions(BackendChoice::vulkan, SyncMode::timeline, ModelKind::sinewave, kHeldStepGrid);
  options.texture = false;
  const std::vector<Vertex> vertices = heldStepVertices(options);
  // Step 1's vertices are step 1's, to rounding; step 2's are far from them,
  // so the check can tell the two apart.
  EXPECT_LE(largestHeldStepHeightDifference(vertices, options.model, 1), 1e-6f);
  EXPECT_GT(largestHeldStepHeightDifference(vertices, options.model, 2), 1e-3f);
}

// The ripple with a drop on every step: step 1 must add its own drop, not
// step 2's (the drop list is written by the host like the sinewave's table).
TEST(QueueStepInputs, AQueuedStepKeepsTheDropsItWasRecordedWith) {
  Options options = textureTestOptions(BackendChoice::vulkan, SyncMode::timeline, ModelKind::ripple, kHeldStepGrid);
  options.texture = false;
  options.model.dropInterval = 1;
  const std::vector<Vertex> vertices = heldStepVertices(options);
  RippleModel reference(options.model);
  reference.step();
  std::vector<Vertex> expected(vertices.size());
  reference.writeVertices(expected.data());
  float largest = 0.0f;
  for (size_t v = 0; v < vertices.size(); ++v)
    largest = std::max(largest, std::fabs(vertices[v].position.y - expected[v].position.y));
  // The backends agree with the CPU reference to 2e-6 (docs/interop-walkthrough.md, section 9).
  EXPECT_LE(largest, 2e-6f);
  const std::vector<Drop> first = stepDrops(options.model, 1, {}), second = stepDrops(options.model, 2, {});
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_TRUE(first[0].x != second[0].x || first[0].z != second[0].z) << "the two steps' drops must differ";
}

}  // namespace
}  // namespace vksim
