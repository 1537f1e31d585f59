#version 450
// learn/07_texture.cu: quad i (instance i) shows mip level i. The quads
// stand side by side across the 448 x 64 target, one 64 x 64 square per
// level, 7 levels (kLevels there). No vertex buffer: the corners come from
// gl_VertexIndex (two triangles, six vertices).
layout(location = 0) out vec2 uv;
layout(location = 1) flat out int level;

const float kLevels = 7.0;
const vec2 kCorners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(1, 0), vec2(1, 1), vec2(0, 1));

void main() {
  uv = kCorners[gl_VertexIndex];
  level = gl_InstanceIndex;
  gl_Position = vec4((float(gl_InstanceIndex) + uv.x) / kLevels * 2.0 - 1.0, uv.y * 2.0 - 1.0, 0.0, 1.0);
}
