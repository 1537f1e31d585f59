#version 450
#extension GL_GOOGLE_include_directive : require
#include "shared_layout.h"

layout(location = kPositionLocation) in vec4 inPosition;
layout(location = kNormalLocation) in vec4 inNormal;

layout(push_constant) uniform PushConstants { MeshPushConstants pc; };

layout(location = 0) out vec3 worldPosition;
layout(location = 1) out vec3 worldNormal;
layout(location = 2) out vec2 surfaceUv;

void main() {
  worldPosition = inPosition.xyz;
  worldNormal = inNormal.xyz;
  // Vertex i sits at x = -1 + 2i/(grid-1); its texel's centre is at
  // u = (i + 0.5)/grid. Interpolated across a triangle, the same mapping
  // holds between vertices, so the texture lies on the grid texel for vertex.
  float grid = max(pc.surface.y, 2.0);
  surfaceUv = ((inPosition.xz + 1.0) * 0.5 * (grid - 1.0) + 0.5) / grid;
  gl_Position = pc.viewProjection * vec4(inPosition.xyz, 1.0);
}
