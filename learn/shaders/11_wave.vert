#version 450
// learn/11_whole_sample.cu: one vertex as the CUDA kernel wrote it, a position
// already in clip space (x, y in [-1, 1], y down) and an RGBA8 colour.
layout(location = 0) in vec2 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vertexColor;

void main() {
  gl_Position = vec4(position, 0.0, 1.0);
  vertexColor = color;
}
