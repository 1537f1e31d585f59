#version 450
// learn/10_frames_in_flight.cu (as step 6): one vertex as the CUDA kernel wrote it, a position in
// pixels of the 256 x 256 target (kTarget there) and an RGBA8 colour.
layout(location = 0) in vec2 pixel;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vertexColor;

void main() {
  gl_Position = vec4(pixel / 128.0 - 1.0, 0.0, 1.0);  // pixels to [-1, 1]; Vulkan's y points down
  vertexColor = color;
}
