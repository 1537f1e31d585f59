#include "app/paths/frame_commands.h"

#include "app/ui/camera.h"
#include "app/ui/overlay.h"
#include "renderer/debug_names.h"
#include "renderer/gpu_timer.h"
#include "renderer/mesh_renderer.h"
#include "renderer/render_targets.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

void addWindow(const FrameTarget& target, RenderBatch& batch) {
  if (target.imageAvailable) batch.waitList[batch.waitCount++] = *target.imageAvailable;
  if (target.readyToPresent) batch.signalList[batch.signalCount++] = *target.readyToPresent;
}

// The mesh: every triangle (--lod off, the lesson's draw), or each tile at
// its level. Both read the same shared vertex buffer at the same stage, so
// the frame's waits and barriers are the same either way. When every tile
// needs the finest level the whole grid goes in one draw.
void recordGridDraw(const SceneDraw& scene, VkCommandBuffer commandBuffer, const MeshDrawInputs& draw) {
  const ScopedCommandLabel label(commandBuffer, "mesh draw");
  const GridIndexBuffer& indices = *draw.indices;
  MeshDrawReport report;
  report.gridTriangles = indices.indexCount / 3;
  report.tiles = indices.tiles.tilesPerSide * indices.tiles.tilesPerSide;
  TileDrawPlan plan;
  if (scene.levelOfDetail)
    plan = planTileDraws(indices.tiles, indices.tilePatterns,
                         makeLodView(*scene.camera, draw.extent.width, draw.extent.height, scene.cellPixels,
                                     scene.heightBound));
  if (plan.maxLevel > 0) {
    recordTiledMeshDraw(commandBuffer, *scene.pipeline, draw, plan);
    report.tiled = true;
    report.minLevel = plan.minLevel;
    report.maxLevel = plan.maxLevel;
    report.tilesDrawn = plan.tilesDrawn;
    report.triangles = plan.triangles;
  } else {
    recordMeshDraw(commandBuffer, *scene.pipeline, draw);
    report.tilesDrawn = report.tiles;
    report.triangles = report.gridTriangles;
  }
  if (scene.report) *scene.report = report;
}

}  // namespace

VkCommandBuffer beginFrameCommands(FrameContext& frame) {
  VkCommandBuffer commandBuffer = frame.slot.commandBuffer;
  restartCommandBuffer(commandBuffer);
  if (!frame.renderLabel.empty()) beginCommandLabel(commandBuffer, frame.renderLabel.c_str());  // closed below
  beginGpuTimer(frame.device, frame.gpuTimer, frame.slotIndex, commandBuffer);
  return commandBuffer;
}

void recordScenePass(FrameContext& frame, VkCommandBuffer commandBuffer) {
  const VkExtent2D extent = frame.target.extent;
  const GridResources& grid = frame.grid;
  beginRenderPass(commandBuffer, frame.scene.renderPass, frame.target.framebuffer, extent);
  MeshDrawInputs draw;
  draw.vertexBuffer = grid.vertices.buffer;
  draw.textureSet = grid.texture.set;
  draw.indices = frame.scene.indices;
  draw.constants = makeMeshPushConstants(*frame.scene.camera, extent.width, extent.height);
  draw.constants.surface = {textureDrawn(grid) ? 1.0f : 0.0f, float(grid.texture.width), 0.0f, 0.0f};
  draw.extent = extent;
  recordGridDraw(frame.scene, commandBuffer, draw);
  recordOverlay(*frame.scene.overlay, commandBuffer);  // same pass, after the mesh: ImGui draws over it without depth
  vkCmdEndRenderPass(commandBuffer);
}

void endFrameCommands(FrameContext& frame, VkCommandBuffer commandBuffer) {
  endGpuTimer(frame.gpuTimer, frame.slotIndex, commandBuffer);
  if (!frame.renderLabel.empty()) endCommandLabel(commandBuffer);
  VK_CHECK(vkEndCommandBuffer(commandBuffer));
}

void resetSlotFence(FrameContext& frame) { VK_CHECK(vkResetFences(frame.device.device, 1, &frame.slot.inFlight)); }

RenderBatch scheduleRenderBatch(const FrameContext& frame, const RenderSync& render,
                                VkPipelineStageFlags waitStage) {
  const SyncSemaphores& semaphores = frame.grid.semaphores;
  RenderBatch batch;
  if (render.wait == RenderSync::Wait::timeline)
    batch.waitList[batch.waitCount++] = {semaphores.timeline, render.waitValue, waitStage};
  else if (render.wait == RenderSync::Wait::simDone)
    batch.waitList[batch.waitCount++] = {semaphores.simDone, 0, waitStage};
  if (render.signals) {
    if (render.signal == RenderSync::Signal::timeline)
      batch.signalList[batch.signalCount++] = {semaphores.timeline, render.signalValue};
    else
      batch.signalList[batch.signalCount++] = {semaphores.renderDone, 0};
  }
  addWindow(frame.target, batch);
  return batch;
}

RenderBatch windowRenderBatch(const FrameContext& frame) {
  RenderBatch batch;
  addWindow(frame.target, batch);
  return batch;
}

}  // namespace vksim
