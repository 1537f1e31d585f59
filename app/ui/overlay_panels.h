// The overlay's widgets, one collapsing section each, inside one ImGui
// window: sync mode and schedule, simulation, camera and window, statistics,
// record, devices, scenes, help.
//
// Layering: ABOVE app/app.h (the widgets read and change the whole App). The
// ImGui context, its backends and event forwarding are app/ui/overlay.h,
// below app/app.h; only the run loops include this header (app/main.cpp,
// and app/capture/bench.cpp for the bench's --overlay rows). runFrame
// (app/frame_loop.cpp) reaches buildOverlayAhead through
// App::whileRenderRuns, without including it.
#pragma once
#include "app/app.h"

namespace vksim {

// At the frame boundary, before runFrame records the frame: builds the
// ImGui frame that its render draws, unless buildOverlayAhead built it during
// the frame before (then it only clears app.overlay.builtAhead). Building:
// starts an ImGui frame, builds the "vkcuda-sim" window (when the overlay is
// visible) and ends the frame with ImGui::Render, so that recordOverlay has
// its draw data. Controls never change resources directly: they ask through
// requestSyncMode and app/ui/controls.h, or Simulation::setParams for the
// parameters that need no new resources. No-op without an overlay.
void buildOverlay(App& app);

// During frame k, once its render is submitted and before the host waits for
// that render's signal and steps the simulation (runFrame calls it where the
// host takes turns with the simulation: not on the host-ordered copy path
// nor on the render-queue path): when buildOverlay was called at frame
// k's boundary, builds the ImGui frame that render k+1 draws, as buildOverlay
// would, and sets app.overlay.builtAhead. The
// widgets then run while the GPU renders, not between sim k's handover and
// render k+1's submission, where the host's work delays the next render on
// the routes whose host waits for the simulation's turn. The schedule table
// still names frame k+1 (its waits and signals as planned once sim k is
// handed over); the statistics are one frame older (frame k-1's frame time
// and GPU times, the step count before sim k). They read the input of frame k's boundary, as a build at
// that boundary did, and what they change lands as it did for the
// simulation's parameters (from sim k), the sync mode (from frame k+1), a
// capture (from frame k) and the boundary requests; pause, the camera and
// the level of detail, read when frame k began, take effect one frame later
// (frame k+1). No-op without an overlay.
void buildOverlayAhead(App& app);

}  // namespace vksim
