#include <gtest/gtest.h>

#include <cmath>

#include "app/ui/camera.h"

namespace vksim {
namespace {

// Projects a world point to window coordinates (origin top-left, y down).
bool toWindow(const OrbitCamera& camera, float x, float y, float z, uint32_t width, uint32_t height,
              double* wx, double* wy) {
  const auto& m = makeMeshPushConstants(camera, width, height).viewProjection.columns;
  const float cx = m[0].x * x + m[1].x * y + m[2].x * z + m[3].x;
  const float cy = m[0].y * x + m[1].y * y + m[2].y * z + m[3].y;
  const float cw = m[0].w * x + m[1].w * y + m[2].w * z + m[3].w;
  if (cw <= 0) return false;
  *wx = (cx / cw + 1.0) * 0.5 * width;
  *wy = (cy / cw + 1.0) * 0.5 * height;
  return true;
}

TEST(CameraPick, WindowCentreHitsTheTarget) {
  const OrbitCamera camera;
  const auto point = groundPointUnderCursor(camera, 640, 360, 1280, 720);
  ASSERT_TRUE(point);
  EXPECT_NEAR(point->x, 0.0f, 1e-4f);
  EXPECT_NEAR(point->z, 0.0f, 1e-4f);
}

TEST(CameraPick, InvertsTheProjectionForPointsOnTheGrid) {
  OrbitCamera camera;
  camera.yaw = -2.1f;
  camera.pitch = 0.9f;
  camera.distance = 2.5f;
  for (float x : {-0.9f, -0.3f, 0.4f, 0.8f})
    for (float z : {-0.7f, 0.0f, 0.6f}) {
      double wx = 0, wy = 0;
      ASSERT_TRUE(toWindow(camera, x, 0.0f, z, 800, 600, &wx, &wy));
      const auto point = groundPointUnderCursor(camera, wx, wy, 800, 600);
      ASSERT_TRUE(point);
      EXPECT_NEAR(point->x, x, 1e-3f);
      EXPECT_NEAR(point->z, z, 1e-3f);
    }
}

TEST(CameraPick, AboveTheHorizonMissesThePlane) {
  OrbitCamera camera;
  camera.pitch = 0.1f;  // nearly level: the top of the window looks at the sky
  EXPECT_FALSE(groundPointUnderCursor(camera, 640, 0, 1280, 720));
  EXPECT_FALSE(groundPointUnderCursor(camera, 640, 360, 0, 0));
}

}  // namespace
}  // namespace vksim
