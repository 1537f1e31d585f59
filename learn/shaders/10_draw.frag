#version 450
// learn/10_frames_in_flight.cu (as step 6): the vertex colour, unchanged (all three corners agree).
layout(location = 0) in vec4 vertexColor;
layout(location = 0) out vec4 outColor;

void main() { outColor = vertexColor; }
