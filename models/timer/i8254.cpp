#include "models/timer/i8254.h"
#include "common/log.h"
#include "models/common/knobs.h"

namespace latsim::timer {

params::Table<I8254Params> i8254_keys() {
  using namespace params;
  return {
      bind(knobs::fitted("pit",
                         "the board has an 8254 PIT (the IRQ 0 tick, the boot-time "
                         "calibration); false: no PIT, the tick is the per-CPU timer",
                         "reference machine: a PC, its 8254 in the VT82C686B"),
           &I8254Params::fitted),
  };
}

namespace {

constexpr uint64_t kPsPerSecond = 1000000000000ULL;

uint32_t from_bcd(uint16_t v) {
  return (v & 0xF) + 10 * ((v >> 4) & 0xF) + 100 * ((v >> 8) & 0xF) + 1000 * ((v >> 12) & 0xF);
}

uint16_t to_bcd(uint32_t v) {
  return uint16_t((v % 10) | ((v / 10 % 10) << 4) | ((v / 100 % 10) << 8) |
                  ((v / 1000 % 10) << 12));
}

}  // namespace

I8254::I8254(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  socket.register_b_transport(this, &I8254::b_transport);
  ch_[0].line = &out0;
  SC_HAS_PROCESS(I8254);
  SC_METHOD(on_edge0);
  sensitive << ch_[0].edge;
  dont_initialize();
  SC_METHOD(on_edge1);
  sensitive << ch_[1].edge;
  dont_initialize();
  SC_METHOD(on_edge2);
  sensitive << ch_[2].edge;
  dont_initialize();
}

sc_time I8254::tick_time(uint64_t k) {
  // Each tick time is rounded on its own, so no error accumulates over a long run.
  unsigned __int128 num = (unsigned __int128)k * kPsPerSecond + kClockHz / 2;
  return ps(uint64_t(num / kClockHz));
}

uint64_t I8254::ticks_at(const sc_time& t) {
  uint64_t k = uint64_t((unsigned __int128)to_ps(t) * kClockHz / kPsPerSecond);
  while (tick_time(k + 1) <= t) ++k;
  while (k > 0 && tick_time(k) > t) --k;
  return k;
}

// ---- register interface -------------------------------------------------------------

void I8254::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  const uint64_t off = p.get_address();
  if (p.get_data_length() != 1 || p.get_streaming_width() < 1) {
    p.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (p.get_byte_enable_ptr()) {
    p.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (off > kControl) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  regs_.transport(p, delay);
  delay += access_latency;
}

void I8254::write_counter(unsigned ch, uint8_t v, const sc_time& t) {
  Channel& c = ch_[ch];
  if (c.mode != 0 && c.mode != 2 && c.mode != 3) return;  // unmodelled mode: counter idle
  switch (c.rw) {
    case 1:
      return load_count(c, v, t);
    case 2:
      return load_count(c, uint16_t(v << 8), t);
    default:
      if (!c.write_msb) {
        c.lsb = v;
        c.write_msb = true;
        if (c.mode == 0 && c.armed) {  // mode 0: writing the first byte disables counting
          c.held_value = uint16_t(value_at(c, ticks_at(t)));
          c.held = true;
          if (c.line) c.line->set(false);
          schedule(c, t);
        }
        return;
      }
      c.write_msb = false;
      return load_count(c, uint16_t(c.lsb | (v << 8)), t);
  }
}

void I8254::control_word(uint8_t v, const sc_time& t) {
  const unsigned sc = v >> 6;
  if (sc == 3) {  // read-back command: bit5 = /COUNT, bit4 = /STATUS, bits 3-1 select
    for (unsigned i = 0; i < 3; ++i) {
      if (!(v & (2u << i))) continue;
      if (!(v & 0x10)) latch_status(ch_[i], t);
      if (!(v & 0x20)) latch_count(ch_[i], t);
    }
    return;
  }
  Channel& c = ch_[sc];
  const unsigned rw = (v >> 4) & 3;
  if (rw == 0) return latch_count(c, t);  // counter latch command
  // A control word resets the counter's control logic and waits for a new count.
  c.rw = rw;
  c.mode = (v >> 1) & 7;
  if (c.mode >= 6) c.mode -= 4;  // X10 = mode 2, X11 = mode 3
  c.bcd = v & 1;
  c.armed = c.held = c.has_next = false;
  c.write_msb = c.read_msb = false;
  c.count_latched = c.status_latched = false;
  if (c.mode != 0 && c.mode != 2 && c.mode != 3)
    SC_REPORT_WARNING(name(), "8254 modes 1, 4, 5 are not modelled: counter left idle");
  // OUT is low after a mode 0 control word, high for modes 2/3; the wire carries
  // modes 2/3 as one pulse per rising edge, so it rests low.
  if (c.line) c.line->set(false);
  LATSIM_DEBUG(pit, name(), "counter {} mode {}{}", sc, c.mode, c.bcd ? " BCD" : "");
  schedule(c, t);
}

void I8254::load_count(Channel& c, uint16_t raw, const sc_time& t) {
  uint32_t n = c.bcd ? from_bcd(raw) : raw;
  if (n == 0) n = modulus(c);        // 0 is the maximum count
  if (c.mode != 0 && n == 1) n = 2;  // count of 1 is illegal in modes 2/3
  LATSIM_DEBUG(pit, name(), "counter {} loaded with {}", &c - ch_.data(), n);
  const uint64_t kt = ticks_at(t);
  const Run fresh{kt + 1, n};           // loaded on the next CLK pulse
  if (c.has_next && kt >= c.next.k0) {  // the pending count has already been loaded
    c.run = c.next;
    c.has_next = false;
  }
  if (c.mode == 0 || !c.armed || kt < c.run.k0) {
    c.run = fresh;  // mode 0 restarts from the new count; modes 2/3 start counting
    c.has_next = false;
    if (c.mode == 0 && c.line) c.line->set(false);
  } else {
    // Modes 2/3: a new count does not disturb the current period; it is loaded at
    // its end (for mode 3 the datasheet says the end of the half-cycle: simplified).
    const uint64_t period = (kt - c.run.k0) / c.run.n;
    c.next = Run{c.run.k0 + (period + 1) * c.run.n, n};
    c.has_next = true;
  }
  c.armed = true;
  c.held = false;
  schedule(c, t);
}

void I8254::latch_count(Channel& c, const sc_time& t) {
  if (c.count_latched) return;  // a second latch before readout is ignored
  const uint32_t v = value_at(c, ticks_at(t));
  c.latch = c.bcd ? to_bcd(v) : uint16_t(v);
  c.count_latched = true;
  c.read_msb = false;
}

void I8254::latch_status(Channel& c, const sc_time& t) {
  if (c.status_latched) return;
  const uint64_t k = ticks_at(t);
  c.status = uint8_t((out_at(c, k) << 7) | (null_count_at(c, k) << 6) | (c.rw << 4) |
                     (c.mode << 1) | (c.bcd ? 1 : 0));
  c.status_latched = true;
}

uint8_t I8254::read_counter(Channel& c, const sc_time& t) {
  if (c.status_latched) {  // a latched status byte is read before a latched count
    c.status_latched = false;
    return c.status;
  }
  uint16_t v = c.latch;
  if (!c.count_latched) {
    const uint32_t now = value_at(c, ticks_at(t));
    v = c.bcd ? to_bcd(now) : uint16_t(now);
  }
  bool msb = c.rw == 2;
  bool done = c.rw != 3;
  if (c.rw == 3) {
    msb = c.read_msb;
    done = c.read_msb;
    c.read_msb = !c.read_msb;
  }
  if (done) c.count_latched = false;  // the latch holds until the count is read out
  return msb ? uint8_t(v >> 8) : uint8_t(v);
}

// ---- analytic counter ---------------------------------------------------------------

const I8254::Run& I8254::run_at(const Channel& c, uint64_t k) const {
  return (c.has_next && k >= c.next.k0) ? c.next : c.run;
}

uint32_t I8254::value_at(const Channel& c, uint64_t k) const {
  const uint32_t m = modulus(c);
  if (c.held) return c.held_value;
  if (!c.armed) return 0;
  const Run& r = run_at(c, k);
  if (k < r.k0) return r.n % m;  // written but not loaded yet
  const uint64_t p = k - r.k0;
  const uint64_t n = r.n;
  switch (c.mode) {
    case 0:  // decrements past terminal count and wraps
      return uint32_t((n + m - p % m) % m);
    case 2:  // n, n-1, ..., 1, reload
      return uint32_t((n - p % n) % m);
    default: {  // mode 3: decrements by two; odd counts load n-1 (datasheet)
      const uint64_t r_ = p % n;
      const uint64_t half = (n + 1) / 2;
      const uint64_t j = r_ < half ? r_ : r_ - half;
      return uint32_t(((n & 1) ? n - 1 - 2 * j : n - 2 * j) % m);
    }
  }
}

bool I8254::out_at(const Channel& c, uint64_t k) const {
  if (!c.armed || c.held) return c.mode != 0;  // mode 0 waits low; modes 2/3 idle high
  const Run& r = run_at(c, k);
  if (k < r.k0) return c.mode != 0;
  const uint64_t p = k - r.k0;
  switch (c.mode) {
    case 0:
      return p >= r.n;  // high at terminal count, stays high
    case 2:
      return p % r.n != r.n - 1;  // low for the one clock at count 1
    default:
      return p % r.n < (r.n + 1) / 2;  // mode 3: high (n+1)/2, low n/2 clocks
  }
}

bool I8254::null_count_at(const Channel& c, uint64_t k) const {
  return !c.armed || c.held || k < c.run.k0 || (c.has_next && k < c.next.k0);
}

bool I8254::rising_edge_at(const Channel& c, uint64_t k) const {
  if (!c.armed || c.held) return false;
  if (c.has_next && k == c.next.k0) return true;  // end of the period before the new count
  const Run& r = run_at(c, k);
  if (k <= r.k0) return false;
  const uint64_t p = k - r.k0;
  return c.mode == 0 ? p == r.n : p % r.n == 0;
}

uint64_t I8254::next_edge_after(const Channel& c, uint64_t k) const {
  if (!c.armed || c.held) return 0;
  const Run& r = (c.has_next && k < c.next.k0) ? c.run : run_at(c, k);
  if (c.mode == 0) {
    const uint64_t e = r.k0 + r.n;
    return e > k ? e : 0;
  }
  if (k < r.k0) return r.k0 + r.n;
  return r.k0 + ((k - r.k0) / r.n + 1) * r.n;
}

// ---- OUT edges ----------------------------------------------------------------------

void I8254::schedule(Channel& c, const sc_time& t) {
  c.edge.cancel();
  if (!c.line) return;  // nobody listens: OUT is computed on demand
  const uint64_t e = next_edge_after(c, ticks_at(t));
  if (e) c.edge.notify(tick_time(e) - sc_core::sc_time_stamp());
}

void I8254::on_edge(unsigned ch) {
  Channel& c = ch_[ch];
  const sc_time now = sc_core::sc_time_stamp();
  const uint64_t k = ticks_at(now);
  const bool edge = rising_edge_at(c, k);
  if (c.has_next && k >= c.next.k0) {  // the pending count is loaded on this clock
    c.run = c.next;
    c.has_next = false;
  }
  if (edge && c.line) {
    LATSIM_TRACE(pit, name(), "counter {} OUT rising edge", ch);
    if (c.mode == 0)
      c.line->set(true);  // mode 0: OUT stays high after terminal count
    else
      c.line->pulse();  // modes 2/3: one rising edge per period
  }
  schedule(c, now);
}

bool I8254::out(unsigned ch) const {
  return out_at(ch_.at(ch), ticks_at(sc_core::sc_time_stamp()));
}

uint16_t I8254::count(unsigned ch) const {
  const Channel& c = ch_.at(ch);
  const uint32_t v = value_at(c, ticks_at(sc_core::sc_time_stamp()));
  return c.bcd ? to_bcd(v) : uint16_t(v);
}

}  // namespace latsim::timer
