#pragma once
// The video-FIFO machine of seed 000 (Jones & Regehr, MSR-TR-98-29, quoted there):
// a single Pentium II 333 on a 66 MHz front-side bus, an Intel 440BX-class host
// bridge with a PIIX4E-class south bridge on one 33 MHz PCI bus, and a 3Dlabs
// Permedia 2-class graphics card (the AccelStar II of the report).
#include "platform/scenario.h"

namespace latsim::platform::presets {

inline constexpr const char* kPii333Permedia2 = "pii-333-permedia2";

// Sets every PlatformConfig field (sources named, or marked as assumptions).
void pii_333_permedia2(PlatformConfig& platform);

}  // namespace latsim::platform::presets
