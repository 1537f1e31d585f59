#include <gtest/gtest.h>

#include <cmath>

#include "app/ui/camera.h"

namespace vksim {
namespace {

// Applies the column-major viewProjection to a world point, returning clip coordinates.
Float4 project(const MeshPushConstants& constants, float x, float y, float z) {
  const auto& m = constants.viewProjection.columns;
  return {m[0].x * x + m[1].x * y + m[2].x * z + m[3].x, m[0].y * x + m[1].y * y + m[2].y * z + m[3].y,
          m[0].z * x + m[1].z * y + m[2].z * z + m[3].z, m[0].w * x + m[1].w * y + m[2].w * z + m[3].w};
}

TEST(Camera, TargetProjectsToScreenCentreInsideDepthRange) {
  const OrbitCamera camera;
  const Float4 clip = project(makeMeshPushConstants(camera, 1280, 720), 0, 0, 0);
  EXPECT_NEAR(clip.x / clip.w, 0.0f, 1e-5f);
  EXPECT_NEAR(clip.y / clip.w, 0.0f, 1e-5f);
  EXPECT_GT(clip.z / clip.w, 0.0f);
  EXPECT_LT(clip.z / clip.w, 1.0f);
}

TEST(Camera, GridCornersAreVisibleFromTheDefaultView) {
  const OrbitCamera camera;
  const MeshPushConstants constants = makeMeshPushConstants(camera, 1280, 720);
  for (float x : {-1.0f, 1.0f})
    for (float z : {-1.0f, 1.0f}) {
      const Float4 clip = project(constants, x, 0, z);
      EXPECT_LT(std::fabs(clip.x / clip.w), 1.0f) << x << "," << z;
      EXPECT_LT(std::fabs(clip.y / clip.w), 1.0f) << x << "," << z;
    }
}

TEST(Camera, PointAboveTheTargetIsHigherOnScreenInVulkanClipSpace) {
  const MeshPushConstants constants = makeMeshPushConstants(OrbitCamera{}, 800, 600);
  const Float4 centre = project(constants, 0, 0, 0);
  const Float4 above = project(constants, 0, 0.3f, 0);
  EXPECT_LT(above.y / above.w, centre.y / centre.w);  // Vulkan: y grows downwards
}

TEST(Camera, ZoomAndOrbitStayClampedAndResetRestores) {
  OrbitCamera camera;
  for (int i = 0; i < 200; ++i) zoomCamera(camera, 1.0f);
  EXPECT_GE(camera.distance, 0.5f);
  for (int i = 0; i < 200; ++i) orbitCamera(camera, 0.0f, 100.0f);
  EXPECT_LE(camera.pitch, 1.5f);
  resetCamera(camera);
  EXPECT_FLOAT_EQ(camera.distance, OrbitCamera{}.distance);
  EXPECT_FLOAT_EQ(camera.pitch, OrbitCamera{}.pitch);
}

}  // namespace
}  // namespace vksim
