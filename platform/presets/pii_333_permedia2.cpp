#include "platform/presets/pii_333_permedia2.h"
#include "platform/presets/registry.h"

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

  // PCI as the reference machine's (CAL PCI: 33.33 MHz). Assumptions: the BIOS latency
  // timer kept (pcibios_set_master only raises values under 16), the PIIX4's arbiter
  // rotates among requesting masters, a 4-dword CPU-to-PCI posted-write buffer.

  // Assumption: the 440BX has no VIA-style CPU holdoff; the CPU waits only for PCI.
  p.host_bridge.holdoff = chipset::CpuHoldoff::None;

  // Assumption: one 8-bit ISA I/O cycle ~1 us at 8.33 MHz through the PIIX4.
  p.isa.io_cycle_ns = 1000;
  // Assumption: its IO-APIC (if used) answers at PCI speed; only the VIA board is chosen.
  p.ioapic.bus = "pci";

  // PIIX4E: Ultra DMA/33 (udma2) and, CAL IDE, 4-dword memory-write bursts, as the
  // reference machine's. Assumption: one PRD read from DRAM between entries.
  p.ide.prd_fetch_ns = 500;
  // Assumption: the disk of the dual-PIII preset (120GXP class); the seed names none.

  // seed 000: "AccelStar II AGP video board (based on the 3D Labs Permedia 2)".
  // Its declared FIFO (256 entries, the seed's reply: "a 256-entry fifo") and PCI 2.0
  // wait states while full (FIFODiscon at its reset value) are the card's defaults.
  p.video.card = "permedia2";
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

namespace {
const PresetRegistration kRegistration{
    {kPii333Permedia2,
     "single Pentium II 333, 440BX-class host bridge, PIIX4-class IDE, Permedia 2-class "
     "video card with a 256-entry command FIFO (seed 000, video FIFO)",
     &pii_333_permedia2}};
}  // namespace

}  // namespace latsim::platform::presets
