// The overlay's widgets, one collapsing section each, inside one ImGui
// window: sync mode and schedule, simulation, camera and window, statistics,
// record, devices, scenes, help.
//
// Layering: ABOVE app/app.h (the widgets read and change the whole App). The
// ImGui context, its backends and event forwarding are app/ui/overlay.h,
// below app/app.h; only the run loops include this header (app/main.cpp,
// and app/capture/bench.cpp for the bench's --overlay rows).
#pragma once
#include "app/app.h"

namespace vksim {

// Once per frame at the frame boundary, before runFrame records it: starts an
// ImGui frame, builds the "vkcuda-sim" window (when the overlay is visible)
// and ends the frame with ImGui::Render, so that recordOverlay has its draw
// data. Controls never change resources directly: they ask through
// requestSyncMode and app/ui/controls.h, or Simulation::setParams for the
// parameters that need no new resources. No-op without an overlay.
void buildOverlay(App& app);

}  // namespace vksim
