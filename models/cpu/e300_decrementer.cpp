#include "models/cpu/e300_decrementer.h"
#include <cmath>
#include "models/common/time.h"

namespace latsim::cpu {
namespace {
constexpr uint64_t kPsPerSecond = 1000000000000ULL;  // sc_time resolution: 1 ps
}  // namespace

E300Decrementer::E300Decrementer(sc_core::sc_module_name name, double timebase_mhz)
    : sc_module(name), tb_hz_(uint64_t(std::llround(timebase_mhz * 1e6))) {
  SC_HAS_PROCESS(E300Decrementer);
  SC_METHOD(on_expiry);
  sensitive << expiry_;
  dont_initialize();
}

sc_core::sc_time E300Decrementer::ticks(uint64_t n) const {
  const unsigned __int128 num = (unsigned __int128)n * kPsPerSecond + tb_hz_ / 2;
  return ps(uint64_t(num / tb_hz_));
}

uint64_t E300Decrementer::ticks_at(const sc_core::sc_time& t) const {
  const unsigned __int128 num = (unsigned __int128)t.value() * tb_hz_;
  return uint64_t(num / kPsPerSecond);
}

void E300Decrementer::mtdec(uint32_t v) {
  dec_value_ = v;
  dec_written_ = sc_core::sc_time_stamp();
  expiry_.cancel();
  if (!(v & 0x80000000u)) expiry_.notify(ticks(uint64_t(v) + 1));  // a negative DEC waits
}

uint32_t E300Decrementer::mfdec() const {
  const uint64_t n = ticks_at(sc_core::sc_time_stamp() - dec_written_);
  return uint32_t(dec_value_ - uint32_t(n));
}

uint64_t E300Decrementer::mftb() const { return ticks_at(sc_core::sc_time_stamp()); }

void E300Decrementer::on_expiry() {
  exceptions_++;
  dec_pending_ = true;
  update();
}

void E300Decrementer::irq_set(unsigned pin, bool level) {
  if (pin != 0) return;
  int_ = level;
  update();
}

// Taking the decrementer exception clears its condition; int# stays until the PIC drops
// it. The pin is re-driven so the core sees a condition still present as pending again.
unsigned E300Decrementer::acknowledge() {
  const unsigned v = int_ ? kExternal : kDecrementer;
  if (!int_) dec_pending_ = false;
  core_irq.set(false);
  update();
  return v;
}

}  // namespace latsim::cpu
