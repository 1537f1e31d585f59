// The overlay's widgets, one collapsing section each, inside one ImGui
// window. Used by app/overlay.cpp between ImGui::NewFrame and ImGui::Render.
#pragma once

namespace vksim {

struct App;

// Builds the "vkcuda-sim" window: sync mode and schedule, simulation,
// camera and window, statistics, devices, scenes, help. Controls never change
// resources directly: they ask through requestSyncMode and app/input.h.
void drawOverlayWindow(App& app);

}  // namespace vksim
