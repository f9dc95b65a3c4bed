#pragma once
// An SMP spinlock: the holder is a CPU; another CPU really spins (and is
// accounted as spinning) until the holder releases it.
#include <systemc>

namespace latsim::kernel {

struct Spinlock {
  explicit Spinlock(const char* n = "lock") : name(n) {}
  const char* name;
  int owner = -1;  // CPU holding it, -1 = free
  sc_core::sc_event released;
  uint64_t acquisitions = 0, contended = 0;
  sc_core::sc_time spin_total;
  // lockstat-like: the longest hold (acquired -> released) and the longest spin.
  sc_core::sc_time held_since, max_hold, max_spin;
  void acquired_at(int cpu, const sc_core::sc_time& now) {
    if (owner < 0) held_since = now;
    owner = cpu;
  }
  void released_at(const sc_core::sc_time& now) {
    if (owner >= 0 && now - held_since > max_hold) max_hold = now - held_since;
    owner = -1;
    released.notify(sc_core::SC_ZERO_TIME);
  }
};

}  // namespace latsim::kernel
