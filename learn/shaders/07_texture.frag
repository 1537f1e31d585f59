#version 450
// learn/07_texture.cu: the texture CUDA wrote, sampled at level `level` only
// (textureLod names it; the sampler's NEAREST filters keep texels exact).
layout(binding = 0) uniform sampler2D levels;
layout(location = 0) in vec2 uv;
layout(location = 1) flat in int level;
layout(location = 0) out vec4 outColor;

void main() { outColor = textureLod(levels, uv, float(level)); }
