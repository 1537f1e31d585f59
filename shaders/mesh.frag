#version 450
#extension GL_GOOGLE_include_directive : require
#include "shared_layout.h"

layout(push_constant) uniform PushConstants { MeshPushConstants pc; };
layout(set = kSurfaceTextureSet, binding = kSurfaceTextureBinding) uniform sampler2D surfaceTexture;

layout(location = 0) in vec3 worldPosition;
layout(location = 1) in vec3 worldNormal;
layout(location = 2) in vec2 surfaceUv;
layout(location = 0) out vec4 outColor;

void main() {
  vec3 n = normalize(worldNormal);
  // Both faces lit: the camera may orbit below the surface.
  if (!gl_FrontFacing) n = -n;
  vec3 l = normalize(pc.lightDirection.xyz);
  vec3 v = normalize(pc.cameraPosition.xyz - worldPosition);
  vec3 h = normalize(l + v);
  // The base colour: the simulation's surface texture (height colour and
  // foam, sampled trilinearly, so distant and grazing parts read the smaller
  // mip levels), or, with the texture off, a water colour that brightens with
  // height so that the waves read even where the lighting is flat.
  vec3 base = pc.surface.x > 0.5
                  ? texture(surfaceTexture, surfaceUv).rgb
                  : mix(vec3(0.05, 0.22, 0.45), vec3(0.35, 0.75, 0.95), clamp(worldPosition.y * 6.0 + 0.5, 0.0, 1.0));
  float diffuse = max(dot(n, l), 0.0);
  float specular = pow(max(dot(n, h), 0.0), 60.0);
  vec3 color = base * (0.25 + 0.75 * diffuse) + vec3(0.5) * specular;
  outColor = vec4(color, 1.0);
}
