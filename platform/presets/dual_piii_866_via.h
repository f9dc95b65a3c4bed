#pragma once
// The reference machine of seed 000: dual Pentium III 866 on a VIA Apollo Pro 133A
// (VT82C694X north bridge + VT82C686B south bridge), one 33 MHz PCI bus.
#include "platform/scenario.h"

namespace latsim::platform::presets {

inline constexpr const char* kDualPiii866Via = "dual-piii-866-via";

// The devices' declared defaults: their sources cite CALIBRATION.md or mark assumptions.
void dual_piii_866_via(PlatformConfig& platform);

}  // namespace latsim::platform::presets
