#include "sim/sim_types.h"

namespace vksim {

// The names double as the command-line spellings and the report fields, so
// they stay lower-case single words.
const char* toString(ModelKind model) {
  switch (model) {
    case ModelKind::sinewave:
      return "sinewave";
    case ModelKind::ripple:
      return "ripple";
  }
  return "unknown";
}

const char* toString(SyncMode mode) {
  switch (mode) {
    case SyncMode::timeline:
      return "timeline";
    case SyncMode::binary:
      return "binary";
  }
  return "unknown";
}

}  // namespace vksim
