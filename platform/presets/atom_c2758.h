#pragma once
// Seed 003's board: a Supermicro A1SRi-2758F, Intel Atom C2758 (Avoton,
// Silvermont cores): 8 cores at 2.4 GHz, no hyper-threading, an SoC whose legacy
// block still has the 8254 PIT, 8259A pair and IO-APIC. The CPU model is the
// Pentium III one: only the core clock, caches and memory latency change.
#include "platform/scenario.h"

namespace latsim::platform::presets {

inline constexpr const char* kAtomC2758 = "atom-c2758";

// Sets every PlatformConfig field (sources named, or marked as assumptions).
void atom_c2758(PlatformConfig& platform);

}  // namespace latsim::platform::presets
