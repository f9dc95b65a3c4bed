#include "platform/presets/dual_piii_866_serverworks.h"
#include "platform/presets/registry.h"

#include "platform/presets/dual_piii_866_via.h"

// Each value names its source, or "assumption" where no measurement of this board
// exists. What is not about the chipset (CPUs, disk) is the VIA reference machine's.
namespace latsim::platform::presets {

void dual_piii_866_serverworks(PlatformConfig& p) {
  dual_piii_866_via(p);  // same CPUs, memory latency and disk
  p.preset = kDualPiii866Serverworks;

  // ServerSet III LE: PCI 2.2, 64-bit/66 MHz. Assumption: the one modelled bus is that
  // segment and every device on it bursts 64 bits (the real OSB4 sits on a 32/33 bus).
  // Assumptions kept from the VIA board: the BIOS leaves latency timers at 64, and the
  // arbiter rotates (PCI 2.2 fairness; no LE arbiter documentation at hand).
  p.pci.mhz = 66.67;
  p.pci.width_bits = 64;
  // The OSB4's USB controller is OHCI, not modelled: no USB handlers.
  p.usb.uhci = 0;

  // Assumption: the CNB30LE serves CPU reads of DRAM concurrently with PCI masters
  // (its PCI side has its own buffers into memory), so it holds the CPU off for
  // nothing but DRAM itself; the VIA 686B holdoff is a VIA quirk (quirk_vialatency).
  p.host_bridge.holdoff = chipset::CpuHoldoff::None;

  // Assumption: the OSB4's ISA bridge runs 8-bit I/O cycles at 8.33 MHz like the 686B.
  p.isa.io_cycle_ns = 1000;
  // Assumption: its IO-APIC (if used) answers at PCI speed; only the VIA board is chosen.
  p.ioapic.bus = "pci";

  // OSB4 IDE (Linux serverworks.c): udma2 is its limit, as the VIA board's; assumption:
  // it posts 16-byte memory-write bursts like the PIIX4/686B.
}

namespace {
const PresetRegistration kRegistration{
    {kDualPiii866Serverworks,
     "dual Pentium III 866, ServerWorks LE (CNB30LE + OSB4): 64-bit/66 MHz PCI, udma2 IDE",
     &dual_piii_866_serverworks}};
}  // namespace

}  // namespace latsim::platform::presets
