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
};

}  // namespace latsim::kernel
