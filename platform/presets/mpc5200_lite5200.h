#pragma once
// Seed 002's machine: a Lite5200B-class board, Freescale MPC5200B: one e300 (603e-class)
// PowerPC core with 16 KiB instruction and 16 KiB data L1 caches and no L2, the XLB to DDR
// SDRAM, the FEC 100 Mbit Ethernet fed by the BestComm DMA engine, the on-chip interrupt
// controller, PCI. The CPU model is the Pentium III one with the e300's clock and caches:
// its cycles and cache-line misses, not the PowerPC pipeline. The devices the kernel drives
// stand in for the MPC5200's own, as this file says for each.
#include "platform/scenario.h"

namespace latsim::platform::presets {

inline constexpr const char* kMpc5200Lite5200 = "mpc5200-lite5200";

// Sets every PlatformConfig field (sources named, or marked as assumptions).
void mpc5200_lite5200(PlatformConfig& platform);

}  // namespace latsim::platform::presets
