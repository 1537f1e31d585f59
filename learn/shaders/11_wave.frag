#version 450
// learn/11_whole_sample.cu: the vertex colour, interpolated across the cell.
layout(location = 0) in vec4 vertexColor;
layout(location = 0) out vec4 outColor;

void main() { outColor = vertexColor; }
