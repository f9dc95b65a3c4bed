#pragma once
// Seed 001's machine: one Athlon 1 GHz on an MSI MS-6167 (AMD-751 "Irongate" north
// bridge, VIA VT82C686A south bridge), a uniprocessor board whose interrupts reach the
// CPU through the 8259A pair only, PC100 SDRAM, and an IBM DDYS 10 000 rpm disk.
#include "platform/scenario.h"

namespace latsim::platform::presets {

inline constexpr const char* kAthlon1000Irongate = "athlon-1000-irongate";

// Sets every PlatformConfig field (sources named, or marked as assumptions).
void athlon_1000_irongate(PlatformConfig& platform);

}  // namespace latsim::platform::presets
