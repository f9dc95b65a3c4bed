#include "platform/presets/athlon_1000_irongate.h"

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

  // CAL PCI: 33.33 MHz, 32 bits.
  p.pci.mhz = 33.33;
  p.pci.width_bits = 32;
  // Assumption: BIOS value kept (pcibios_set_master only raises values under 16).
  p.pci.latency_timer = 64;
  // Assumption: the AMD-751's arbiter rotates among requesting masters.
  p.pci.arbiter = "rotate";

  // Assumption: no VIA-north-bridge-style CPU holdoff on the AMD-751.
  p.host_bridge.cpu_holdoff = HoldoffPolicy::None;
  p.host_bridge.holdoff_grants = 3;  // unused with holdoff none
  p.host_bridge.posted_write_entries = 4;

  // Assumption: one 8-bit ISA I/O cycle ~1 us through the VT82C686A (CAL ISA).
  p.isa.io_cycle_ns = 1000;
  // Assumption: its IO-APIC (if used) answers at PCI speed; only the VIA board is chosen.
  p.ioapic_bus = "pci";
  p.isa.delayed_transactions = false;

  // A uniprocessor board: no IO-APIC, the 686A's 8259A pair in virtual wire mode.
  p.io_apic = false;

  // The disk is a SCSI drive on an AHA-2940UW (seed 001), not modelled yet: the IDE
  // bus master stands in, at the Ultra Wide bus's 40 MB/s rounded to udma3 (44 MB/s).
  p.ide.udma_mode = 3;
  p.ide.burst_bytes = 16;
  p.ide.prd_fetch_ns = 500;
  // Assumption (IBM Ultrastar 18LZX/36LZX class, datasheet not at hand): 10 000 rpm,
  // 4.9 ms average seek, 36 to 21 MB/s zoned media rate, 18 GB.
  p.disk.rpm = 10000;
  p.disk.avg_seek_ms = 4.9;
  p.disk.track_to_track_ms = 0.5;
  p.disk.outer_mb_s = 36.0;
  p.disk.inner_mb_s = 21.0;
  p.disk.command_overhead_ms = 0.3;
  p.disk.cache_hit_overhead_ms = 0.1;
  p.disk.cache_kb = 4096;
  p.disk.capacity_sectors = 35843670LL;  // 18.35 GB
  p.disk.write_cache = true;

  p.video.card = "none";
}

}  // namespace latsim::platform::presets
