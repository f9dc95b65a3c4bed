#include "models/usb/uhci.h"
#include "common/log.h"
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

pci::PciIdentity Uhci::pci_identity() {
  pci::PciIdentity id;  // VT82C686B functions 2 and 3
  id.vendor_id = 0x1106;
  id.device_id = 0x3038;
  id.revision_id = 0x1a;
  id.class_code = 0x0c0300;  // USB, UHCI
  id.command_bits = pci::PciConfig::IO_SPACE | pci::PciConfig::BUS_MASTER;
  id.interrupt_pin = 4;
  id.bars[4] = {kIoSize, true};
  return id;
}

void Uhci::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  register_transport(*this, p);
}

void Uhci::reset() { regs_.reset(); }

uint16_t Uhci::frame_number() const {
  if (!(cmd_ & USBCMD_RS)) return frnum_;
  const sc_core::sc_time frame(1, sc_core::SC_MS);  // a full-speed USB frame
  const auto frames = uint64_t((sc_core::sc_time_stamp() - running_since_) / frame);
  return uint16_t((frnum_ + frames) & 0x7ff);
}

uint32_t Uhci::read(uint64_t offset, unsigned len) {
  return regs_.read(unsigned(offset & (kIoSize - 1)), len);
}

void Uhci::write(uint64_t offset, unsigned len, uint32_t v) {
  regs_.write(unsigned(offset & (kIoSize - 1)), len, v);
}

uint32_t Uhci::read_status(const RegIo&) {
  status_reads_++;
  return sts_ | ((cmd_ & USBCMD_RS) ? 0 : USBSTS_HCH);
}

void Uhci::write_frnum(uint32_t v, const RegIo&) {
  if (!(cmd_ & USBCMD_RS)) frnum_ = v & 0x7ff;  // only while halted
}

void Uhci::write_flbase(uint32_t v, const RegIo& io) {
  if (io.lane == 0 && io.len >= 4) flbase_.apply(v, io);  // written as a whole dword only
}

// HCRESET and GRESET reset the registers (the reset completes at once here: nothing
// downstream to reset); Run/Stop starts and freezes the frame counter.
void Uhci::write_command(uint32_t v, const RegIo&) {
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
