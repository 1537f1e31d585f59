#include "app/ui/camera.h"

#include <algorithm>
#include <cmath>

#define GLM_FORCE_DEPTH_ZERO_TO_ONE
#include <glm/glm.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace vksim {
namespace {
constexpr float kOrbitRadiansPerPixel = 0.005f;
constexpr float kMinPitch = -1.5f, kMaxPitch = 1.5f;  // short of the poles, where lookAt degenerates
constexpr float kMinDistance = 0.5f, kMaxDistance = 20.0f;

glm::vec3 eyePosition(const OrbitCamera& camera) {
  const float c = std::cos(camera.pitch);
  return glm::vec3(camera.targetX, camera.targetY, camera.targetZ) +
         camera.distance * glm::vec3(c * std::sin(camera.yaw), std::sin(camera.pitch), c * std::cos(camera.yaw));
}

glm::mat4 viewProjectionMatrix(const OrbitCamera& camera, uint32_t width, uint32_t height) {
  const float aspect = height == 0 ? 1.0f : float(width) / float(height);
  const glm::mat4 view =
      glm::lookAt(eyePosition(camera), glm::vec3(camera.targetX, camera.targetY, camera.targetZ), glm::vec3(0, 1, 0));
  glm::mat4 projection = glm::perspective(camera.fovY, aspect, 0.05f, 100.0f);
  projection[1][1] *= -1.0f;  // Vulkan's clip space has y pointing down
  return projection * view;
}
}  // namespace

MeshPushConstants makeMeshPushConstants(const OrbitCamera& camera, uint32_t width, uint32_t height) {
  const glm::vec3 eye = eyePosition(camera);
  const glm::mat4 viewProjection = viewProjectionMatrix(camera, width, height);

  MeshPushConstants constants{};
  for (int c = 0; c < 4; ++c)
    constants.viewProjection.columns[c] = {viewProjection[c][0], viewProjection[c][1], viewProjection[c][2],
                                           viewProjection[c][3]};
  const glm::vec3 light = glm::normalize(glm::vec3(-0.45f, 0.75f, -0.4f));
  constants.lightDirection = {light.x, light.y, light.z, 0.0f};
  constants.cameraPosition = {eye.x, eye.y, eye.z, 1.0f};
  return constants;
}

LodView makeLodView(const OrbitCamera& camera, uint32_t width, uint32_t height, float cellPixels,
                    float heightBound) {
  const glm::vec3 eye = eyePosition(camera);
  const glm::mat4 viewProjection = viewProjectionMatrix(camera, width, height);
  LodView view;
  view.eye = {eye.x, eye.y, eye.z};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) view.viewProjection[size_t(c * 4 + r)] = viewProjection[c][r];
  view.pixelsPerRadian = 0.5f * float(height) / std::tan(0.5f * camera.fovY);
  view.cellPixels = cellPixels;
  view.heightBound = heightBound;
  return view;
}

void orbitCamera(OrbitCamera& camera, float deltaXPixels, float deltaYPixels) {
  camera.yaw -= deltaXPixels * kOrbitRadiansPerPixel;
  camera.pitch = std::clamp(camera.pitch + deltaYPixels * kOrbitRadiansPerPixel, kMinPitch, kMaxPitch);
}

void zoomCamera(OrbitCamera& camera, float wheelSteps) {
  camera.distance = std::clamp(camera.distance * std::pow(0.9f, wheelSteps), kMinDistance, kMaxDistance);
}

void resetCamera(OrbitCamera& camera) { camera = OrbitCamera{}; }

std::optional<GroundPoint> groundPointUnderCursor(const OrbitCamera& camera, double cursorX, double cursorY,
                                                  uint32_t width, uint32_t height) {
  if (width == 0 || height == 0) return std::nullopt;
  // Window y grows downwards, and so does Vulkan's clip-space y (the
  // projection is flipped), so the window maps to NDC without a sign change.
  const float ndcX = float(2.0 * cursorX / width - 1.0);
  const float ndcY = float(2.0 * cursorY / height - 1.0);
  const glm::mat4 inverse = glm::inverse(viewProjectionMatrix(camera, width, height));
  glm::vec4 nearPoint = inverse * glm::vec4(ndcX, ndcY, 0.0f, 1.0f);  // depth 0..1 (GLM_FORCE_DEPTH_ZERO_TO_ONE)
  glm::vec4 farPoint = inverse * glm::vec4(ndcX, ndcY, 1.0f, 1.0f);
  nearPoint /= nearPoint.w;
  farPoint /= farPoint.w;
  const glm::vec3 origin(nearPoint), direction = glm::vec3(farPoint) - glm::vec3(nearPoint);
  if (std::abs(direction.y) < 1e-7f) return std::nullopt;
  const float t = -origin.y / direction.y;
  if (t < 0.0f) return std::nullopt;
  const glm::vec3 hit = origin + t * direction;
  return GroundPoint{hit.x, hit.z};
}

}  // namespace vksim
