#include "platform/presets/pii_333_permedia2.h"

// Each value names its source: the seed ("seed 000"), a section of CALIBRATION.md
// ("CAL <section>"), a driver source, or "assumption" where none is at hand.
namespace latsim::platform::presets {

void pii_333_permedia2(PlatformConfig& p) {
  p.preset = kPii333Permedia2;
  // Assumption: the PIIX4-class south bridge's UHCI does not share a line in use
  // (seed 000's video report shows no USB): no USB handlers.
  p.usb.uhci = 0;

  // seed 000: "a 333MHz Pentium II"; one CPU.
  p.cpu.count = 1;
  p.cpu.mhz = 333.0;
  // Pentium II 333 (Deschutes): 5 x 66.67 MHz front-side bus.
  p.cpu.fsb_mhz = 66.67;
  // Assumption: 440BX with PC66 SDRAM, a little slower than the PIII's 174 ns (CAL CPU).
  p.cpu.dram_latency_ns = 180;

  // CAL PCI: 33.33 MHz, 30 ns clock.
  p.pci.mhz = 33.33;
  // Assumption: BIOS value kept (pcibios_set_master only raises values under 16).
  p.pci.latency_timer = 64;
  // Assumption: the PIIX4's arbiter rotates among requesting masters.
  p.pci.arbiter = "rotate";

  // Assumption: the 440BX has no VIA-style CPU holdoff; the CPU waits only for PCI.
  p.host_bridge.cpu_holdoff = HoldoffPolicy::None;
  p.host_bridge.holdoff_grants = 3;  // unused with holdoff none
  // Assumption: a 4-dword CPU-to-PCI posted-write buffer, as the VIA default.
  p.host_bridge.posted_write_entries = 4;

  // Assumption: one 8-bit ISA I/O cycle ~1 us at 8.33 MHz through the PIIX4.
  p.isa.io_cycle_ns = 1000;
  // Assumption: its IO-APIC (if used) answers at PCI speed; only the VIA board is chosen.
  p.ioapic_bus = "pci";

  // PIIX4E: Ultra DMA/33 (udma2).
  p.ide.udma_mode = 2;
  // CAL IDE: PIIX4 bus-master IDE memory writes are 4-dword bursts.
  p.ide.burst_bytes = 16;
  // Assumption: one PRD read from DRAM between scatter-gather entries.
  p.ide.prd_fetch_ns = 500;

  // Assumption: the disk of the dual-PIII preset (120GXP class); the seed names none.
  p.disk.rpm = 7200;
  p.disk.avg_seek_ms = 8.5;
  p.disk.track_to_track_ms = 1.2;
  p.disk.outer_mb_s = 44.0;
  p.disk.inner_mb_s = 22.0;
  p.disk.command_overhead_ms = 0.3;
  p.disk.cache_hit_overhead_ms = 0.1;
  p.disk.cache_kb = 2048;
  p.disk.capacity_sectors = 58168LL * 16 * 63;

  // seed 000: "AccelStar II AGP video board (based on the 3D Labs Permedia 2)".
  p.video.card = "permedia2";
  // XFree86 glint_driver.c: FIFOSize = 256 for PERMEDIA2 (the seed's reply: "a
  // 256-entry fifo").
  p.video.fifo_entries = 256;
  // FIFODiscon resets to 0: a full FIFO inserts wait states (pm2fb only sets it with
  // CONFIG_FB_PM2_FIFO_DISCONNECT); the card behaves as a pre-2.1 target.
  p.video.pci = "2.0";
  // Permedia 2 core clock 83 MHz (3Dlabs spec, vintage3d.org review): one register
  // load per clock, one filled fragment per clock; assumption: 10 clocks per Render.
  constexpr double kCoreMhz = 83.0;
  p.video.register_load_ns = 1000.0 / kCoreMhz;
  p.video.render_setup_ns = 10 * 1000.0 / kCoreMhz;
  p.video.fill_ns_per_pixel = 1000.0 / kCoreMhz;
  // A copy reads and writes every pixel through the one 64-bit SGRAM port, which
  // display refresh shares (32 bpp, 1024x768 at 75 Hz: 236 MB/s of 664 MB/s). It
  // moves a burst of source, then the same burst to the destination (another SGRAM
  // row), so each burst pays a page miss: precharge + activate + CAS latency, 3 clocks
  // each for PC100-class SGRAM. Assumption, fitted to O12's 25-30 ms freeze: bursts
  // of 8 qwords (SGRAM burst length 8): 2.125 clocks a pixel, 39.7 ns with refresh.
  constexpr double kBytesPerPixel = 4, kSgramMBs = kCoreMhz * 8;
  constexpr double kRefreshMBs = 1024 * 768 * kBytesPerPixel * 75 / 1e6;
  constexpr double kBurstBytes = 64, kPageMissClocks = 3 + 3 + 3;
  // Clocks per pixel: read + write at 8 bytes a clock, plus a read and a write page
  // miss per burst of kBurstBytes / kBytesPerPixel pixels.
  constexpr double kClocksPerPixel =
      2 * kBytesPerPixel / 8 + 2 * kPageMissClocks / (kBurstBytes / kBytesPerPixel);
  constexpr double kShareLeft = 1 - kRefreshMBs / kSgramMBs;  // refresh takes the rest
  p.video.copy_ns_per_pixel = kClocksPerPixel * 1000.0 / kCoreMhz / kShareLeft;
}

}  // namespace latsim::platform::presets
