#include "sim/sim_types.h"

#include <cstddef>

namespace vksim {
namespace {

template <class T, size_t N>
const char* nameIn(const NamedValue<T> (&table)[N], T value) {
  for (const NamedValue<T>& entry : table)
    if (entry.value == value) return entry.name;
  return "unknown";
}

}  // namespace

const char* toString(ModelKind model) {
  return nameIn(kModelNames, model);
}

const char* toString(SyncMode mode) {
  return nameIn(kSyncModeNames, mode);
}

}  // namespace vksim
