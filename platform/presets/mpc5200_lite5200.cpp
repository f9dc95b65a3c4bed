#include "platform/presets/mpc5200_lite5200.h"
#include "platform/presets/registry.h"

// Each value names its source: the MPC5200B user's manual (MPC5200BUM), the e300 core
// reference manual (e300CORERM), seed 002, or "assumption" where none is at hand.
namespace latsim::platform::presets {

void mpc5200_lite5200(PlatformConfig& p) {
  p.preset = kMpc5200Lite5200;

  // One e300 core. Assumption: 396 MHz core and 132 MHz XLB, the Lite5200B's usual setting
  // (33 MHz SYS_XTAL, XLB = 4 x, core = 3 x XLB); not verified against a datasheet here.
  // The core model is the PIII's (cycles, cache-line misses); the e300's own pipeline timing
  // is not modelled.
  p.cpu.count = 1;
  p.cpu.mhz = 396.0;
  // The XLB clock stands where the FSB's is. No local APIC: the tick is the e300's
  // decrementer, counting the time base at XLB / 4 (e300CORERM: time base; MPC5200BUM).
  p.cpu.fsb_mhz = 132.0;
  p.cpu.local_apic = false;
  p.cpu.timebase_divider = 4;
  // e300CORERM: 16 KiB instruction + 16 KiB data L1, 4-way, 32-byte lines; no L2. The
  // model's one cache level for refill misses gets both (32 KiB), lines of 32 bytes.
  p.cpu.l2_kb = 32;
  // Assumption: a load miss from the e300 over the XLB to DDR SDRAM at 132 MHz (CL 2.5,
  // the SDRAM controller's arbitration) ~ 150 ns; no lmbench figure for this board at hand.
  p.cpu.dram_latency_ns = 150;

  // No bus-master holdoff of the core on the XLB arbiter is modelled (assumption: the
  // BestComm's and PCI's XLB masters share the bus with the core, no VIA-style holdoff).
  p.host_bridge.holdoff = chipset::CpuHoldoff::None;
  // MPC5200BUM: PCI 2.2, 33 MHz, 32 bits: as the reference machine's PCI model.

  // The MPC5200's own interrupt controller (MPC5200BUM: Interrupt Controller), its registers
  // on the on-chip IPB, here a PCI-speed target (assumption); no IO-APIC.
  p.mpc52xx_pic.fitted = true;
  p.ioapic.fitted = false;
  // The MPC5200 has no ISA, no 8254 and no 8259A: nothing drives IRQ 0. Assumption:
  // IPB-speed cycles for the legacy ports the model still decodes.
  p.pit.fitted = false;
  p.isa.io_cycle_ns = 100;
  // USB is OHCI on the MPC5200 (not modelled); no sound, no video.
  p.usb.uhci = 0;

  // eth0 is the FEC, its FIFOs moved by BestComm tasks over the XLB (models/net/mpc52xx_fec,
  // models/dma/bestcomm; the kernel's fec_mpc52xx). The RTL8139 stays on PCI, unopened.
  p.fec.fitted = true;
}

namespace {
const PresetRegistration kRegistration{
    {kMpc5200Lite5200,
     "Lite5200B-class MPC5200B board: one e300 core at 396 MHz, 16+16 KiB L1 and no L2, "
     "132 MHz XLB and DDR, FEC with BestComm, the MPC5200 PIC, the decrementer tick (seed 002)",
     &mpc5200_lite5200}};
}  // namespace

}  // namespace latsim::platform::presets
