#pragma once
// The reference machine's CPUs on a ServerWorks ServerSet III LE-class board
// (CNB30LE north bridge + OSB4 south bridge): 64-bit/66 MHz PCI, OSB4 IDE at udma2.
#include "platform/scenario.h"

namespace latsim::platform::presets {

inline constexpr const char* kDualPiii866Serverworks = "dual-piii-866-serverworks";

// Sets every PlatformConfig field (sources in CALIBRATION.md, or marked as assumptions).
void dual_piii_866_serverworks(PlatformConfig& platform);

}  // namespace latsim::platform::presets
