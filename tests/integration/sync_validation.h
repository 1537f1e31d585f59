// The validation layer with synchronization validation for the app runs that
// a test makes in its own process (ctest already sets VKSIM_VALIDATION=1).
#pragma once
#include <cstdlib>

namespace vksim {

inline void enableSynchronizationValidation() {
  setenv("VKSIM_VALIDATION", "1", 1);
  setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT", 1);
}

}  // namespace vksim
