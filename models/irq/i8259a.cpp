#include "models/irq/i8259a.h"
#include "common/log.h"

namespace latsim::irq {

I8259A::I8259A(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  socket.register_b_transport(this, &I8259A::b_transport);
}

void I8259A::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t off = p.get_address();
  if (p.get_data_length() != 1 || p.get_streaming_width() < 1) {
    p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (p.get_byte_enable_ptr()) {
    p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (off > 1) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  regs_.transport(p, delay);
  delay += access_latency;
}

uint32_t I8259A::read_a0(const RegIo&) {
  if (poll_) return poll();  // the RD pulse after a poll command returns the poll word, any A0
  return read_isr_ ? ISR : IRR;
}

uint32_t I8259A::read_imr(const RegIo&) {
  if (poll_) return poll();
  return IMR;
}

void I8259A::write_a0(uint32_t v, const RegIo&) {
  if (v & 0x10) return icw1(uint8_t(v));  // D4 = 1 starts initialization
  if (v & 0x08) return ocw3(uint8_t(v));  // D4:D3 = 01
  return ocw2(uint8_t(v));                // D4:D3 = 00
}

void I8259A::write_a1(uint32_t v, const RegIo&) {
  switch (init_step_) {
    case WantIcw2:
      ICW2 = uint8_t(v);
      init_step_ = !single() ? WantIcw3 : (ICW1 & 0x01) ? WantIcw4 : Ready;
      break;
    case WantIcw3:
      ICW3 = uint8_t(v);
      init_step_ = (ICW1 & 0x01) ? WantIcw4 : Ready;
      break;
    case WantIcw4:
      ICW4 = uint8_t(v);
      if (!(v & 0x01)) SC_REPORT_WARNING(name(), "8259A MCS-80/85 mode is not modelled");
      init_step_ = Ready;
      break;
    case Ready:
      IMR = v;  // OCW1
      break;
  }
  if (init_step_ == Ready) initialized_ = true;
  update_int();
}

void I8259A::icw1(uint8_t v) {
  ICW1 = v;
  // Datasheet ICW1 side effects: edge-sense latch reset, IMR cleared, IR7 lowest
  // priority, special mask mode cleared, status read set to IRR, ICW4 zero if IC4=0.
  IRR = level_mode() ? pins_ : 0;
  IMR = 0;
  lowest_ = 7;
  special_mask_ = false;
  read_isr_ = false;
  poll_ = false;
  rotate_aeoi_ = false;
  if (!(v & 0x01)) ICW4 = 0;
  init_step_ = WantIcw2;
  update_int();
}

void I8259A::ocw2(uint8_t v) {
  const unsigned level = v & 7;
  switch (v >> 5) {  // R, SL, EOI
    case 1:          // non-specific EOI: clears the highest-priority ISR bit
    case 5: {        // rotate on non-specific EOI: that IR becomes lowest priority
      const int s = highest(ISR);
      if (s >= 0) {
        ISR &= uint8_t(~(1u << s));
        if ((v >> 5) == 5) lowest_ = unsigned(s);
      }
      break;
    }
    case 3:
      ISR &= uint8_t(~(1u << level));
      break;  // specific EOI
    case 7:   // rotate on specific EOI
      ISR &= uint8_t(~(1u << level));
      lowest_ = level;
      break;
    case 6:
      lowest_ = level;
      break;  // set priority command
    case 4:
      rotate_aeoi_ = true;
      break;
    case 0:
      rotate_aeoi_ = false;
      break;
    default:
      break;  // 2: no operation
  }
  update_int();
}

void I8259A::ocw3(uint8_t v) {
  if (v & 0x40) special_mask_ = v & 0x20;  // ESMM enables the SMM bit
  if (v & 0x04) poll_ = true;
  if (v & 0x02) read_isr_ = v & 0x01;  // RR enables the RIS bit
  update_int();
}

void I8259A::irq_set(unsigned pin, bool level) {
  if (pin > 7) return;
  const uint8_t bit = uint8_t(1u << pin);
  const bool was = pins_ & bit;
  pins_ = level ? (pins_ | bit) : (pins_ & ~bit);
  if (level_mode())
    IRR = level ? (IRR | bit) : (IRR & ~bit);  // level mode: IRR follows the input
  else if (level && !was)
    IRR |= bit;  // edge mode: the edge-sense latch sets IRR on a rising edge
  if (level != was) LATSIM_DEBUG(apic, name(), "IR{} {}", pin, level ? "raised" : "lowered");
  update_int();
}

int I8259A::highest(uint8_t bits) const {
  int best = -1;
  for (unsigned ir = 0; ir < 8; ++ir)
    if ((bits & (1u << ir)) && (best < 0 || rank(ir) < rank(unsigned(best)))) best = int(ir);
  return best;
}

int I8259A::deliverable() const {
  const int ir = highest(IRR & ~IMR);
  if (ir < 0) return -1;
  // Special mask mode: masked in-service levels no longer inhibit lower priorities.
  const int s = highest(special_mask_ ? (ISR & ~IMR) : ISR);
  if (s < 0 || rank(unsigned(ir)) < rank(unsigned(s))) return ir;
  // Special fully nested mode: a slave may interrupt its own in-service cascade IR.
  if (ir == s && sfnm() && is_cascade(unsigned(ir))) return ir;
  return -1;
}

void I8259A::acknowledge(unsigned ir) {
  const uint8_t bit = uint8_t(1u << ir);
  if (!level_mode()) IRR &= uint8_t(~bit);  // the acknowledge resets the edge-sense latch
  if (!aeoi())
    ISR |= bit;
  else if (rotate_aeoi_)
    lowest_ = ir;  // rotate in AEOI mode: serviced IR becomes lowest priority
}

unsigned I8259A::inta() {
  const int ir = deliverable();
  unsigned vector;
  if (ir < 0) {
    vector = vector_base() | 7;  // request gone before INTA: spurious IR7, ISR untouched
  } else {
    acknowledge(unsigned(ir));
    vector = is_cascade(unsigned(ir)) ? slaves_[ir]->inta() : (vector_base() | unsigned(ir));
  }
  intr.set(false);  // INT drops during the INTA cycle; rises again if more is pending
  update_int();
  return vector;
}

uint8_t I8259A::poll() {
  poll_ = false;
  const int ir = deliverable();
  if (ir < 0) return 0x00;
  acknowledge(unsigned(ir));  // a poll read acts as an interrupt acknowledge
  intr.set(false);
  update_int();
  return uint8_t(0x80 | ir);
}

void I8259A::update_int() { intr.set(initialized() && deliverable() >= 0); }

void I8259A::set_slave(unsigned ir, I8259A& slave) {
  sc_assert(ir < 8 && &slave != this);
  slaves_[ir] = &slave;
}

}  // namespace latsim::irq
