#pragma once
// The e300 core's time base and decrementer (e300CORERM: "Time Base and Decrementer"):
// DEC counts down at the time-base rate (bus clock / 4 on the MPC5200) and signals the
// decrementer exception (0x900) when it passes from 0 to -1. The core's asynchronous
// exception inputs meet here too: int# (the MPC5200 PIC's output, level) and the
// decrementer, taken external first (e300CORERM: exception priorities). They reach the
// core model through the one interrupt pin it has (`core_irq`, its LINT0 in ExtINT mode);
// acknowledge() is the exception vectoring, the model's INTA. Only the decrementer and the
// time base are timed analytically: one event per expiry.
#include <cstdint>
#include <systemc>
#include "models/irq/irq_line.h"

namespace latsim::cpu {

class E300Decrementer : public sc_core::sc_module, public irq::IrqSink {
 public:
  static constexpr unsigned kExternal = 0x500;     // external interrupt exception vector
  static constexpr unsigned kDecrementer = 0x900;  // decrementer exception vector

  E300Decrementer(sc_core::sc_module_name name, double timebase_mhz);
  E300Decrementer(const E300Decrementer&) = delete;
  E300Decrementer& operator=(const E300Decrementer&) = delete;

  void mtdec(uint32_t v);  // mtspr DEC: count down from v, the exception after v + 1 ticks
  uint32_t mfdec() const;
  uint64_t mftb() const;                            // time-base ticks since reset
  void irq_set(unsigned pin, bool level) override;  // pin 0: int#
  unsigned acknowledge();  // the exception taken: kExternal while int# is asserted
  irq::IrqLine core_irq;   // to the core: an exception is pending
  uint64_t decrementer_exceptions() const { return exceptions_; }

 private:
  sc_core::sc_time ticks(uint64_t n) const;  // exact to the picosecond, rounded once
  uint64_t ticks_at(const sc_core::sc_time& t) const;
  void on_expiry();
  void update() { core_irq.set(int_ || dec_pending_); }

  uint64_t tb_hz_;
  sc_core::sc_time dec_written_;
  uint32_t dec_value_ = 0xffffffff;  // reset: negative, no exception until written
  bool int_ = false, dec_pending_ = false;
  uint64_t exceptions_ = 0;
  sc_core::sc_event expiry_;
};

}  // namespace latsim::cpu
