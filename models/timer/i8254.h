#pragma once
// Intel 8254 Programmable Interval Timer: three 16-bit down counters clocked at
// CLOCK_TICK_RATE (1193182 Hz). Counts are derived analytically from the input
// clock tick index; only OUT edges that someone listens to cost an sc_event.
//
// The input clock is a free-running oscillator whose tick k is at
// round(k * 1e12 / 1193182) ps (exact, no accumulated rounding). GATE inputs
// are tied high (ch0/ch1 on a PC; ch2's gate via port 0x61 is assumed enabled),
// modes 1, 4 and 5 are not modelled (they leave the counter idle with a warning).
#include <tlm_utils/simple_target_socket.h>
#include <array>
#include <cstdint>
#include <systemc>
#include <tlm>
#include "common/params.h"
#include "models/common/register_bank.h"
#include "models/common/time.h"
#include "models/irq/irq_line.h"

namespace latsim::timer {

// Whether the board has the 8254 (platform.pit): a PC's IRQ 0 tick and boot calibration.
struct I8254Params {
  bool fitted = true;  // false: nothing drives IRQ 0; the tick is a per-CPU timer
};
params::Table<I8254Params> i8254_keys();

class I8254 : public sc_core::sc_module {
 public:
  static constexpr uint64_t kClockHz = 1193182;  // CLOCK_TICK_RATE
  static constexpr unsigned kControl = 3;        // port 0x43: control word register

  tlm_utils::simple_target_socket<I8254> socket;
  irq::IrqLine out0;  // OUT0 -> IRQ0 (rising edge per period in modes 2/3)
  sc_time access_latency = SC_ZERO_TIME;

  explicit I8254(sc_core::sc_module_name name);
  I8254(const I8254&) = delete;
  I8254& operator=(const I8254&) = delete;

  // Register access at the current simulated time; offset 0-2 = counters, 3 = control.
  uint8_t read(unsigned offset) { return uint8_t(regs_.read(offset, 1)); }
  void write(unsigned offset, uint8_t v) { regs_.write(offset, 1, v); }

  // Analytic views (no side effects), e.g. for port 0x61 bit 5 (OUT2) or tests.
  bool out(unsigned ch) const;        // OUT pin level now
  uint16_t count(unsigned ch) const;  // counting element now (as it would be latched)

  // Input clock tick k happens at this time; the inverse gives the last tick at or before t.
  static sc_time tick_time(uint64_t k);
  static uint64_t ticks_at(const sc_time& t);

 private:
  // One programmed counting run: initial count n loaded on tick k0 (datasheet: the
  // count is loaded on the CLK pulse after it is written).
  struct Run {
    uint64_t k0 = 0;
    uint32_t n = 0;  // 1..65536 (binary) or 1..10000 (BCD), 0 written = maximum
  };
  struct Channel {
    unsigned rw = 3, mode = 0;  // RW1:RW0, M2:M0 from the control word
    bool bcd = false;
    bool armed = false;  // a valid count has been loaded since the control word
    bool held = false;   // mode 0: first byte of a new count written, counting disabled
    uint16_t held_value = 0;
    Run run;
    bool has_next = false;  // modes 2/3: new count takes effect at the end of the period
    Run next;
    bool write_msb = false, read_msb = false;  // the LSB/MSB flip-flops (independent)
    uint8_t lsb = 0;
    bool count_latched = false, status_latched = false;
    uint16_t latch = 0;
    uint8_t status = 0;
    irq::IrqLine* line = nullptr;  // only channels with a wire schedule edges
    sc_core::sc_event edge;
  };

  using Reg = Register<I8254>;
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  uint32_t read_counter_port(const RegIo& io) { return read_counter(ch_[io.index], io.at); }
  void write_counter_port(uint32_t v, const RegIo& io) {
    write_counter(io.index, uint8_t(v), io.at);
  }
  void write_control_port(uint32_t v, const RegIo& io) { control_word(uint8_t(v), io.at); }
  void write_counter(unsigned ch, uint8_t v, const sc_time& t);
  void control_word(uint8_t v, const sc_time& t);
  void latch_count(Channel& c, const sc_time& t);
  void latch_status(Channel& c, const sc_time& t);
  void load_count(Channel& c, uint16_t raw, const sc_time& t);
  uint8_t read_counter(Channel& c, const sc_time& t);

  const Run& run_at(const Channel& c, uint64_t k) const;
  uint32_t value_at(const Channel& c, uint64_t k) const;  // binary count element
  bool out_at(const Channel& c, uint64_t k) const;
  bool null_count_at(const Channel& c, uint64_t k) const;
  bool rising_edge_at(const Channel& c, uint64_t k) const;
  uint64_t next_edge_after(const Channel& c, uint64_t k) const;  // 0 = none
  uint32_t modulus(const Channel& c) const { return c.bcd ? 10000 : 65536; }

  void schedule(Channel& c, const sc_time& t);
  void on_edge(unsigned ch);
  void on_edge0() { on_edge(0); }
  void on_edge1() { on_edge(1); }
  void on_edge2() { on_edge(2); }

  std::array<Channel, 3> ch_;
  // Counters are sampled when the (possibly annotated) ISA cycle reaches the chip; the
  // control word register is write-only, so reading it leaves the bus floating.
  RegisterBank<I8254> regs_{this, 0xff};
  Reg counter_ = Reg(regs_, "Counter", {0, 1, 3}, RegAccess::RW, 0, &I8254::read_counter_port,
                     &I8254::write_counter_port);
  Reg control_ = Reg(regs_, "Control Word", {kControl, 1}, RegAccess::WO, 0, nullptr,
                     &I8254::write_control_port);
};

}  // namespace latsim::timer
