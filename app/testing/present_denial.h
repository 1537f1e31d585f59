// The test facility VKSIM_DENY_PRESENT (docs/testing.md): a
// windowed run on lavapipe then meets a device that cannot present to the
// window, as a laptop's NVIDIA GPU does without NVIDIA's offload variables.
#pragma once
#include "renderer/display_check.h"

namespace vksim {

// "1" makes every Vulkan device answer that it cannot present to the window,
// as the NVIDIA GPU of a laptop whose X server runs on the other GPU does, so
// that the exit-3 line for it can be checked on lavapipe. Unset, empty or
// "0": off; anything else is refused with exit 2 (checkEnvironmentSwitches,
// app/main.cpp), like the switches of base/config.h.
inline constexpr const char* kDenyPresentVariable = "VKSIM_DENY_PRESENT";

// `support` as it is, or, with VKSIM_DENY_PRESENT=1, "cannot present" with a
// detail that names the variable (so that no one mistakes it for a driver's
// answer).
PresentSupport applyPresentDenial(PresentSupport support);

}  // namespace vksim
