#pragma once
// Intel 8259A Programmable Interrupt Controller (one chip; a PC has a master and a
// slave cascaded on the master's IR2). 8086 mode only; the buffered-mode pins and
// the PC's ELCR edge/level override registers are not modelled.
#include <tlm_utils/simple_target_socket.h>
#include <array>
#include <cstdint>
#include <systemc>
#include <tlm>
#include "models/common/register_bank.h"
#include "models/common/time.h"
#include "models/irq/irq_line.h"

namespace latsim::irq {

class I8259A : public sc_core::sc_module, public IrqSink {
 public:
  tlm_utils::simple_target_socket<I8259A> socket;
  IrqLine intr;  // INT pin: to the CPU (master) or to the master's IR2 (slave)
  sc_time access_latency = SC_ZERO_TIME;

  explicit I8259A(sc_core::sc_module_name name);
  I8259A(const I8259A&) = delete;
  I8259A& operator=(const I8259A&) = delete;

  // Register access: offset = A0 (0: ICW1/OCW2/OCW3, IRR/ISR/poll; 1: ICW2-4/OCW1, IMR).
  uint8_t read(unsigned offset) { return uint8_t(regs_.read(offset, 1)); }
  void write(unsigned offset, uint8_t v) { regs_.write(offset, 1, v); }

  // IR0-IR7 input pins.
  void irq_set(unsigned pin, bool level) override;

  // The INTA sequence: returns the vector put on the bus (the slave's for a cascade IR).
  unsigned inta();

  // Master only: a slave's INT is wired to `ir` (also needs ICW3 bit `ir`).
  void set_slave(unsigned ir, I8259A& slave);

  uint8_t irr() const { return IRR; }
  uint8_t isr() const { return ISR; }
  uint8_t imr() const { return IMR; }
  uint8_t vector_base() const { return ICW2 & 0xF8; }
  bool initialized() const { return initialized_ && init_step_ == Ready; }

 private:
  enum InitStep { Ready, WantIcw2, WantIcw3, WantIcw4 };
  using Reg = Register<I8259A>;

  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint32_t read_a0(const RegIo& io);
  uint32_t read_imr(const RegIo& io);
  void write_a0(uint32_t v, const RegIo& io);
  void write_a1(uint32_t v, const RegIo& io);
  void icw1(uint8_t v);
  void ocw2(uint8_t v);
  void ocw3(uint8_t v);
  int rank(unsigned ir) const { return int((ir + 7 - lowest_) & 7); }  // 0 = highest
  int highest(uint8_t bits) const;  // highest-priority set bit, -1 if none
  int deliverable() const;          // IR that INT is raised for, -1 if none
  void acknowledge(unsigned ir);    // common part of INTA and poll
  uint8_t poll();
  void update_int();
  bool is_cascade(unsigned ir) const { return !single() && (ICW3 & (1u << ir)) && slaves_[ir]; }
  bool single() const { return ICW1 & 0x02; }
  bool level_mode() const { return ICW1 & 0x08; }
  bool aeoi() const { return ICW4 & 0x02; }
  bool sfnm() const { return ICW4 & 0x10; }

  // Datasheet registers. Ports decode by A0 and, for writes, by the data bits (ICW1 has
  // D4 = 1, OCW3 D4:D3 = 01) and the initialization sequence (ICW2-4 before OCW1).
  RegisterBank<I8259A> regs_{this, 0xff};
  Reg irr_isr_ = Reg(regs_, "IRR/ISR", {0, 1}, RegAccess::RO, 0, &I8259A::read_a0);
  Reg icw1_ocw23_ =
      Reg(regs_, "ICW1/OCW2/OCW3", {0, 1}, RegAccess::WO, 0, nullptr, &I8259A::write_a0);
  Reg IMR = Reg(regs_, "IMR", {1, 1}, RegAccess::RO, 0, &I8259A::read_imr);
  Reg icw24_ocw1_ = Reg(regs_, "ICW2-4/OCW1", {1, 1}, RegAccess::WO, 0, nullptr, &I8259A::write_a1);
  uint8_t IRR = 0, ISR = 0;  // read through OCW3's register select
  uint8_t ICW1 = 0, ICW2 = 0, ICW3 = 0, ICW4 = 0;
  uint8_t pins_ = 0;     // current IR input levels
  unsigned lowest_ = 7;  // lowest-priority IR (rotation state); IR0 highest at reset
  InitStep init_step_ = Ready;
  bool initialized_ = false;  // INT stays low until the first ICW sequence completes
  bool read_isr_ = false;     // OCW3 RR/RIS: next A0=0 read returns ISR instead of IRR
  bool poll_ = false;         // OCW3 P: next read is a poll
  bool special_mask_ = false;
  bool rotate_aeoi_ = false;
  std::array<I8259A*, 8> slaves_{};
};

}  // namespace latsim::irq
