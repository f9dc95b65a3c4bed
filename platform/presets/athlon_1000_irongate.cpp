#include "platform/presets/athlon_1000_irongate.h"
#include "platform/presets/registry.h"

// Each value names its source: the seed ("seed 001"), CALIBRATION.md ("CAL"), or
// "assumption" where none is at hand.
namespace latsim::platform::presets {

void athlon_1000_irongate(PlatformConfig& p) {
  p.preset = kAthlon1000Irongate;
  // Assumption: no USB handler on the sound's line (seed 001's tables show none).
  p.usb.uhci = 0;

  // seed 001: "Athlon II 1 GHz (0.18 um)", one CPU. The core model is the PIII's
  // (cycles, cache-line misses); the Athlon's own pipeline timing is not modelled.
  p.cpu.count = 1;
  p.cpu.mhz = 1000.0;
  // EV6 bus: 100 MHz clock, data on both edges (the AMD-751's 200 MT/s).
  p.cpu.fsb_mhz = 100.0;
  // Assumption: PC100 CL2 behind the AMD-751, a little slower than the PIII board's
  // 174 ns (CAL CPU); no lmbench figure for this board at hand.
  p.cpu.dram_latency_ns = 180;

  // PCI as the reference machine's (CAL PCI: 33.33 MHz, 32 bits). Assumptions: the BIOS
  // latency timer kept (pcibios_set_master only raises values under 16), the AMD-751's
  // arbiter rotates among requesting masters.

  // Assumption: no VIA-north-bridge-style CPU holdoff on the AMD-751.
  p.host_bridge.holdoff = chipset::CpuHoldoff::None;

  // Assumption: one 8-bit ISA I/O cycle ~1 us through the VT82C686A (CAL ISA).
  p.isa.io_cycle_ns = 1000;
  // Assumption: its IO-APIC (if used) answers at PCI speed; only the VIA board is chosen.
  p.ioapic.bus = "pci";

  // A uniprocessor board: no IO-APIC, the 686A's 8259A pair in virtual wire mode.
  p.ioapic.fitted = false;

  // seed 001: "IBM DDYS 18 GB U160 (on AHA-2940UW)": the disk behind an AIC-7880 on a
  // 40 MB/s Ultra Wide bus (the U160 drive runs at the adapter's rate).
  p.disk.adapter = "aic7xxx";
  // Assumption (IBM Ultrastar 18LZX/36LZX class, datasheet not at hand): 10 000 rpm,
  // 4.9 ms average seek, 36 to 21 MB/s zoned media rate, 18 GB; command overheads and
  // write cache as the reference drive's.
  p.disk.rpm = 10000;
  p.disk.avg_seek_ms = 4.9;
  p.disk.track_to_track_ms = 0.5;
  p.disk.outer_mb_s = 36.0;
  p.disk.inner_mb_s = 21.0;
  p.disk.cache_kb = 4096;
  p.disk.capacity_sectors = 35843670LL;  // 18.35 GB
}

namespace {
const PresetRegistration kRegistration{
    {kAthlon1000Irongate,
     "single Athlon 1 GHz, AMD-751 + VT82C686A, 8259A interrupts only (no IO-APIC), "
     "10 000 rpm SCSI disk on an AHA-2940UW (AIC-7880, Ultra Wide, 40 MB/s; seed 001, dbench)",
     &athlon_1000_irongate}};
}  // namespace

}  // namespace latsim::platform::presets
