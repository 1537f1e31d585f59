#version 450
#extension GL_GOOGLE_include_directive : require
#include "shared_layout.h"

layout(location = kPositionLocation) in vec4 inPosition;
layout(location = kNormalLocation) in vec4 inNormal;

layout(push_constant) uniform PushConstants { MeshPushConstants pc; };

layout(location = 0) out vec3 worldPosition;
layout(location = 1) out vec3 worldNormal;

void main() {
  worldPosition = inPosition.xyz;
  worldNormal = inNormal.xyz;
  gl_Position = pc.viewProjection * vec4(inPosition.xyz, 1.0);
}
