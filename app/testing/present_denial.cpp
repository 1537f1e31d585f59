#include "app/testing/present_denial.h"

#include <string>

#include "base/config.h"

namespace vksim {

PresentSupport applyPresentDenial(PresentSupport support) {
  if (!environmentSwitch(kDenyPresentVariable)) return support;
  PresentSupport denied;
  denied.detail = std::string(kDenyPresentVariable) +
                  "=1 (a test facility) answers for the driver: no queue family can present to it";
  return denied;
}

}  // namespace vksim
