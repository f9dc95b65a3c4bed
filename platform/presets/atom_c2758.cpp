#include "platform/presets/atom_c2758.h"
#include "platform/presets/registry.h"

#include "platform/presets/dual_piii_866_via.h"

// Each value names its source (Intel Atom C2000 product brief / ark, Supermicro
// A1SRi-2758F page cited by seed 003), or "assumption" where none is at hand.
// Devices seed 003 does not exercise (disk, NIC, sound) are the reference
// machine's, so that every key has a value; no O13 figure depends on them.
namespace latsim::platform::presets {

void atom_c2758(PlatformConfig& p) {
  dual_piii_866_via(p);
  p.preset = kAtomC2758;
  // The SoC's USB is EHCI, not modelled: no USB handlers (seed 003 shows none).
  p.usb.uhci = 0;

  // Intel ark, Atom C2758: 8 cores, 8 threads, 2.40 GHz base (no turbo on C2758).
  p.cpu.count = 8;
  p.cpu.mhz = 2400.0;
  // Assumption (guess): ~100 ns load-to-use DRAM latency, DDR3-1600 on the SoC's
  // own controller; no lmbench figure for this part at hand.
  p.cpu.dram_latency_ns = 100;
  // Assumption (guess): the local APIC timer counts a 100 MHz base clock (what
  // calibrate_APIC_clock would find); Avoton has no front-side bus.
  p.cpu.fsb_mhz = 100.0;
  // Silvermont: 1 MiB L2 per two-core module. Assumption: the model's private L2
  // gets half of it per core.
  p.cpu.l2_kb = 512;

  // Assumption: the SoC's fabric does not hold the cores off memory while a PCIe
  // master writes (no VIA-style holdoff); legacy I/O still goes through the LPC
  // bridge at ISA-like cycle times (the 8254 of the legacy block).
  p.host_bridge.holdoff = chipset::CpuHoldoff::None;
  p.isa.io_cycle_ns = 1000;
  // Assumption: its IO-APIC (if used) answers at PCI speed; only the VIA board is chosen.
  p.ioapic.bus = "pci";
  // The SATA/PCIe devices are modelled as the reference machine's PCI devices.
}

namespace {
const PresetRegistration kRegistration{
    {kAtomC2758,
     "Atom C2758 (Avoton, Supermicro A1SRi-2758F): 8 cores at 2.4 GHz, PIT/8259A/IO-APIC "
     "legacy block (seed 003, rt cyclictest)",
     &atom_c2758}};
}  // namespace

}  // namespace latsim::platform::presets
