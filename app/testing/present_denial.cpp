#include "app/testing/present_denial.h"

#include <cstdlib>
#include <string>

namespace vksim {

PresentSupport applyPresentDenial(PresentSupport support) {
  // checkEnvironmentSwitches (app/main.cpp) refused anything but 0 and 1.
  const char* value = std::getenv(kDenyPresentVariable);
  if (value == nullptr || std::string(value) != "1") return support;
  PresentSupport denied;
  denied.detail = std::string(kDenyPresentVariable) +
                  "=1 (a test facility) answers for the driver: no queue family can present to it";
  return denied;
}

}  // namespace vksim
