#include "platform/presets/dual_piii_866_via.h"

// Each value names its source: a section of CALIBRATION.md ("CAL <section>"),
// or "assumption" where no measurement of this machine exists.
namespace latsim::platform::presets {

void dual_piii_866_via(PlatformConfig& p) {
  p.preset = kDualPiii866Via;

  // CAL reference machine: "Dual Pentium III 866 MHz".
  p.cpu.count = 2;
  // CAL reference machine: Pentium III 866 MHz.
  p.cpu.mhz = 866.0;
  // CAL CPU and memory: lmbench main-memory latency 174 ns (PIII-class, 790 MHz).
  p.cpu.dram_latency_ns = 174;
  // CAL CPU and memory: FSB 133 MHz x 8 bytes.
  p.cpu.fsb_mhz = 133.0;

  // CAL PCI: 33.33 MHz, 30 ns clock; north and south bridge share this one bus.
  p.pci.mhz = 33.33;
  // CAL PCI: pcibios_set_master sets 64 if the BIOS left < 16; assumption: it did.
  p.pci.latency_timer = 64;
  // CAL PCI: quirk_vialatency sets north-bridge reg 0x76 to rotate priority every grant.
  p.pci.arbiter = "rotate";
  // CAL PCI: 32-bit AD bus, 4 bytes per data phase.
  p.pci.width_bits = 32;

  // CAL observations O4: one 4 KB scatter-gather entry per ~70 us CPU stall.
  p.host_bridge.cpu_holdoff = HoldoffPolicy::SgEntry;
  // CAL PCI: VIA 8363/8371/8361 + 686B hold the CPU off for 3 bus-master requests.
  p.host_bridge.holdoff_grants = 3;

  // Assumption: VIA 694X-class north bridges post a few dwords (4-8); no datasheet at hand.
  p.host_bridge.posted_write_entries = 4;

  // FITTED to O5 (mark_offset_tsc -> do_timer 14-15 us: its 7 ISA cycles, with the
  // timer_ack poll). Seed 000's 2305 us trace agrees where the bus was free: outb_p,
  // inb_p, inb steps of +0.003/+0.004/+0.002 ms for 2, 2 and 1 cycles. (Was 1 us.)
  p.isa.io_cycle_ns = 1700;
  // CHOSEN by O6 between the two decodes (no VT82C686B timing at hand): the 82093AA's
  // (datasheet 3.0: CS# from the PIIX3, 8-bit X-bus data, 4 ISA cycles per dword) gives
  // __modify_IO_APIC_irq 14.1 us with the cycle above, the seed's 13-14; PCI speed 0.5.
  p.ioapic_bus = "xbus";

  // CAL reference machine: "IDE system disk with bus-master DMA at udma2".
  p.ide.udma_mode = 2;
  // CAL IDE: PIIX4 memory writes are 4-dword bursts; assumption: the 686B is alike.
  p.ide.burst_bytes = 16;
  // Fitted to O1 (scenarios/CALIBRATION.md): the gap the IDE master leaves between
  // scatter-gather entries, 4 PCI clocks (its next PRD prefetched during the entry).
  // Under one DRAM access (174 ns), a CPU gets one FSB transaction per entry, as the
  // seed's ~70 us steps of a miss or two each show; 500 ns let three through.
  p.ide.prd_fetch_ns = 120;

  // CAL IDE: IBM Deskstar 120GXP, 7200 rpm; assumption: the ~30 GB disk is of this class.
  p.disk.rpm = 7200;
  // CAL IDE: 120GXP average read seek 8.2-8.5 ms.
  p.disk.avg_seek_ms = 8.5;
  // Assumption (120GXP class).
  p.disk.track_to_track_ms = 1.2;
  // CAL IDE: ~44 MB/s outer zone (derived from the 120GXP timing table).
  p.disk.outer_mb_s = 44.0;
  // CAL IDE: ~22 MB/s inner zone (derived likewise).
  p.disk.inner_mb_s = 22.0;
  // CAL IDE: 120GXP command overhead 0.3 ms on a cache miss.
  p.disk.command_overhead_ms = 0.3;
  // CAL IDE: 120GXP command overhead 0.1 ms on a cache hit.
  p.disk.cache_hit_overhead_ms = 0.1;
  // Assumption: a 2 MB drive buffer used as read look-ahead.
  p.disk.cache_kb = 2048;
  // CAL reference machine: geometry 58168/16/63 (~30 GB).
  p.disk.capacity_sectors = 58168LL * 16 * 63;

  // Assumption: the 686B steers the RTL8139's INTA# to IRQ 11 (no seed shows it).
  p.nic.irq = 11;
  // RTL8139C datasheet: 100BASE-TX, 2 KB transmit FIFO.
  p.nic.wire_mbit_s = 100.0;
  p.nic.tx_fifo_bytes = 2048;
  // Assumption: arbitration, address, turnaround and one idle clock per burst.
  p.nic.burst_overhead_clocks = 4;

  // Seed 000: "/proc/irq/10/Ensoniq AudioPCI".
  p.sound.irq = 10;
  // AC'97 2.x: BIT_CLK 12.288 MHz.
  p.sound.bit_clk_hz = 12288000;
  // CAL O8, the author's prepare traces: 5 of 6 SRC waits 1-16 us (models/sound/es1371_src.h).
  p.sound.src_busy_frames = 1;
  // Assumption: one 8-dword memory-read burst refills half the 16-dword DAC FIFO share.
  p.sound.dac_fetch_longwords = 8;
  // Assumption: as for the NIC.
  p.sound.burst_overhead_clocks = 4;

  // The 686B's two UHCI functions, sharing the audio's line: the author's -Q5 trace of
  // this machine (LKML 2004-09-01) runs usb_hcd_irq -> uhci_irq twice, then
  // snd_audiopci_interrupt, on each audio interrupt.
  p.usb.uhci = 2;
  p.usb.irq = 10;

  // Seed 000's reports name no graphics card: none fitted (its FIFO is idle anyway).
  p.video = VideoConfig{};
}

}  // namespace latsim::platform::presets
