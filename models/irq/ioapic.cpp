#include "models/irq/ioapic.h"
#include "common/log.h"
#include "models/common/knobs.h"

#include "models/pci/stall_class.h"

namespace latsim::irq {

params::Table<IoApicParams> ioapic_fitted_keys() {
  using namespace params;
  return {
      bind(knobs::fitted("io_apic",
                         "the board has an IO-APIC; false: IRQs through the 8259A pair "
                         "(mask_and_ack_8259A) and the tick from the PIT's IRQ0",
                         "reference machine: a dual-P6 SMP board, IRQs through its IO-APIC"),
           &IoApicParams::fitted),
  };
}

params::Table<IoApicParams> ioapic_keys() {
  using namespace params;
  return {
      bind(with_source(choice("bus", {"pci", "xbus"},
                              "how the IO-APIC window is reached: pci (answers at PCI speed) or "
                              "xbus (82093AA on the bridge's 8-bit X-bus: 4 ISA I/O cycles per "
                              "dword)"),
                       "chosen by O6: the 82093AA's decode gives __modify_IO_APIC_irq 14.1 us, "
                       "the seed's 13-14 (PCI speed: 0.5)"),
           &IoApicParams::bus),
  };
}

IoApic::IoApic(sc_core::sc_module_name name, unsigned id)
    : sc_module(name), socket("socket"), id_((id & 0xF) << 24) {
  socket.register_b_transport(this, &IoApic::b_transport);
  redtbl_.fill(kMask);  // 82093AA reset: every entry masked
}

void IoApic::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t off = p.get_address();
  if (p.get_data_length() != 4 || p.get_streaming_width() < 4) {
    p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);  // registers are dword-accessed
    return;
  }
  if (p.get_byte_enable_ptr()) {
    p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (off != IOREGSEL && off != IOWIN) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  regs_.transport(p, delay);
  delay += access_latency;
  if (xbus_cycle != SC_ZERO_TIME) {
    delay += xbus_cycle * double(kXbusBytes);           // one 8-bit X-bus cycle per byte lane
    pci::declare_stall_class(p, pci::StallClass::Isa);  // the PCI cycle waits for the X-bus
  }
}

uint32_t IoApic::read_window(const RegIo& io) {
  RegIo ind = io;  // the indirect access, at the same time
  return indirect_.read(at_index(regsel_), 4, ind);
}

void IoApic::write_window(uint32_t v, const RegIo& io) {
  RegIo ind = io;  // the indirect access, at the same time
  indirect_.write(at_index(regsel_), 4, v, ind);
}

uint32_t IoApic::read_redtbl(const RegIo& io) {
  const uint64_t e = redtbl_[io.index / 2];
  return (io.index & 1) ? uint32_t(e >> 32) : uint32_t(e);
}

void IoApic::write_redtbl(uint32_t v, const RegIo& io) {
  const unsigned n = io.index / 2;
  uint64_t& e = redtbl_[n];
  if (io.index & 1) {  // high dword: only the destination field (bits 63:56) exists
    e = (e & 0xFFFFFFFFull) | (uint64_t(v & 0xFF000000u) << 32);
    return;
  }
  const uint32_t ro = kDeliveryStatus | kRemoteIrr;  // read-only status bits
  uint32_t lo = (uint32_t(e) & ro) | (v & 0x1FFFF & ~ro);
  if (!(lo & kLevelTrigger)) lo &= ~kRemoteIrr;  // Remote IRR is undefined for edge inputs
  e = (e & ~0xFFFFFFFFull) | lo;
  try_level(n);  // unmasking an asserted level input delivers it
}

void IoApic::irq_set(unsigned pin, bool level) {
  if (pin >= kEntries) return;
  const bool was = pins_[pin];
  pins_[pin] = level;
  const uint32_t lo = uint32_t(redtbl_[pin]);
  if (lo & kLevelTrigger)
    try_level(pin);
  else if (level && !was && !(lo & kMask))
    send(pin);  // edge: delivered on the rising edge; a masked edge is not latched
}

void IoApic::eoi(unsigned vector) {
  for (unsigned n = 0; n < kEntries; ++n) {
    uint64_t& e = redtbl_[n];
    if ((e & kLevelTrigger) && (e & kRemoteIrr) && (e & kVector) == vector) {
      e &= ~uint64_t(kRemoteIrr);  // EOI with a matching vector clears Remote IRR
      try_level(n);                // still asserted: deliver again
    }
  }
}

void IoApic::try_level(unsigned n) {
  uint64_t& e = redtbl_[n];
  if (!(e & kLevelTrigger) || (e & kMask) || (e & kRemoteIrr) || !pins_[n]) return;
  e |= kRemoteIrr;  // set when the local APIC accepts a level interrupt
  send(n);
}

void IoApic::send(unsigned n) {
  const uint64_t e = redtbl_[n];
  const unsigned vector = unsigned(e & kVector);
  const unsigned mode = unsigned((e & kDeliveryMode) >> 8);
  const unsigned dest = unsigned(e >> 56);
  if (mode == 3 || mode == 6) return;  // reserved delivery modes
  ++deliveries_[n];
  if (!bus_) {
    SC_REPORT_WARNING(name(), "IO-APIC delivery with no APIC bus connected");
    return;
  }
  const auto dm = static_cast<DeliveryMode>(mode);
  LATSIM_DEBUG(apic, name(), "pin {} -> vector {:#04x}, {} destination {:#x}, mode {}", n, vector,
               e & kDestModeLogical ? "logical" : "physical", dest, mode);
  if (e & kDestModeLogical)
    bus_->deliver_logical(dest, vector, dm);
  else
    bus_->deliver(dest, vector, dm);
}

}  // namespace latsim::irq
