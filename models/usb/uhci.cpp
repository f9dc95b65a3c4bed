#include "models/usb/uhci.h"
#include "models/common/knobs.h"
#include "models/common/register_transport.h"

namespace latsim::usb {

params::Table<UhciParams> uhci_keys() {
  using namespace params;
  return {
      bind(with_source(integer("uhci", 0, 2, "controllers",
                               "UHCI USB controllers on the board, nothing plugged in (uhci_hcd)"),
                       "the author's -Q5 trace of the reference machine (LKML 2004-09-01): "
                       "usb_hcd_irq -> uhci_irq twice on each audio interrupt"),
           &UhciParams::uhci),
      bind(with_source(knobs::intx_irq("irq",
                                       "ISA IRQ / IO-APIC pin the UHCI controllers' INTx# "
                                       "is steered to"),
                       "the same trace: the controllers share the audio's line"),
           &UhciParams::irq),
  };
}

Uhci::Uhci(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  socket.register_b_transport(this, &Uhci::b_transport);
  reset();
}

void Uhci::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  register_transport(*this, p);
}

// Register defaults (UHCI 1.1, 2.1): halted, frame 0, SOFMOD 64, ports empty.
void Uhci::reset() {
  cmd_ = 0;
  sts_ = 0;
  intr_ = 0;
  frnum_ = 0;
  flbase_ = 0;
  sof_ = 0x40;
}

uint16_t Uhci::frame_number() const {
  if (!(cmd_ & USBCMD_RS)) return frnum_;
  const sc_core::sc_time frame(1, sc_core::SC_MS);  // a full-speed USB frame
  const auto frames = uint64_t((sc_core::sc_time_stamp() - running_since_) / frame);
  return uint16_t((frnum_ + frames) & 0x7ff);
}

uint32_t Uhci::read(uint64_t offset, unsigned len) {
  uint32_t v = 0;
  switch (unsigned(offset & (kIoSize - 1))) {
    case USBCMD:
      v = cmd_;
      break;
    case USBSTS:
      status_reads_++;
      v = sts_ | ((cmd_ & USBCMD_RS) ? 0 : USBSTS_HCH);
      break;
    case USBINTR:
      v = intr_;
      break;
    case USBFRNUM:
      v = frame_number();
      break;
    case USBFLBASEADD:
      v = flbase_;
      break;
    case USBSOF:
      v = sof_;
      break;
    case USBPORTSC1:
    case USBPORTSC2:
      v = kPortReserved;  // no device: CCS, PED and the change bits all 0
      break;
    default:
      v = 0;
  }
  return len >= 4 ? v : v & ((1u << (8 * len)) - 1);
}

void Uhci::write(uint64_t offset, unsigned len, uint32_t v) {
  switch (unsigned(offset & (kIoSize - 1))) {
    case USBCMD:
      return write_command(uint16_t(v));
    case USBSTS:
      sts_ &= uint16_t(~(v & 0x1f));  // write 1 to clear; HCHalted is read-only
      return;
    case USBINTR:
      intr_ = uint16_t(v & 0x0f);
      return;
    case USBFRNUM:
      if (!(cmd_ & USBCMD_RS)) frnum_ = uint16_t(v & 0x7ff);  // only while halted
      return;
    case USBFLBASEADD:
      if (len >= 4) flbase_ = v & 0xfffff000u;
      return;
    case USBSOF:
      sof_ = uint8_t(v & 0x7f);
      return;
    default:
      return;  // PORTSC: no device to enable, reset or resume
  }
}

// HCRESET and GRESET reset the registers (the reset completes at once here: nothing
// downstream to reset); Run/Stop starts and freezes the frame counter.
void Uhci::write_command(uint16_t v) {
  if (v & (USBCMD_HCRESET | USBCMD_GRESET)) {
    reset();
    cmd_ = uint16_t(v & USBCMD_GRESET);  // GRESET stays set until software clears it
    return;
  }
  const bool was_running = cmd_ & USBCMD_RS;
  if (was_running && !(v & USBCMD_RS)) frnum_ = frame_number();
  if (!was_running && (v & USBCMD_RS)) running_since_ = sc_core::sc_time_stamp();
  cmd_ = v;
}

}  // namespace latsim::usb
