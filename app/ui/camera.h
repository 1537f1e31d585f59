// The orbit camera and the view-projection it gives the mesh pipeline.
// Layering: plain math BELOW app/app.h (App holds an OrbitCamera).
#pragma once
#include <cstdint>
#include <optional>

#include "renderer/tile_lod.h"
#include "shared_layout.h"

namespace vksim {

// Orbits `target` at `distance`; yaw about +y, pitch above the xz plane
// (radians). Defaults frame the [-1,1]^2 grid from above at an angle.
struct OrbitCamera {
  float yaw = 0.75f;
  float pitch = 0.65f;
  float distance = 3.8f;
  float targetX = 0.0f, targetY = 0.0f, targetZ = 0.0f;
  float fovY = 0.7854f;  // 45 degrees
};

// Push constants for the mesh pipeline: Vulkan clip space (y down, depth 0..1),
// aspect from width/height, light fixed in world space.
MeshPushConstants makeMeshPushConstants(const OrbitCamera& camera, uint32_t width, uint32_t height);

// What the mesh's level-of-detail choice needs of this view
// (renderer/tile_lod.h): the eye, the frustum and the pixels a radian spans
// at `height` pixels tall; a drawn cell spans at most `cellPixels` pixels,
// and every vertex lies within `heightBound` of y = 0 (world units).
LodView makeLodView(const OrbitCamera& camera, uint32_t width, uint32_t height, float cellPixels,
                    float heightBound);

// Mouse orbit (pixels dragged), wheel zoom (wheel steps), and reset.
void orbitCamera(OrbitCamera& camera, float deltaXPixels, float deltaYPixels);
void zoomCamera(OrbitCamera& camera, float wheelSteps);
void resetCamera(OrbitCamera& camera);

// A point on the y = 0 plane, world units.
struct GroundPoint {
  float x = 0.0f, z = 0.0f;
};

// Where the ray from the eye through window position (cursorX, cursorY)
// meets the y = 0 plane. Window coordinates: origin at the top-left corner,
// x right, y down, in the same units as width and height (GLFW's window
// size). None when the ray is parallel to the plane or meets it behind the
// eye. The caller decides whether the point lies on the grid ([-1, 1]^2).
std::optional<GroundPoint> groundPointUnderCursor(const OrbitCamera& camera, double cursorX, double cursorY,
                                                  uint32_t width, uint32_t height);

}  // namespace vksim
