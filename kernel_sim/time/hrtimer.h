#pragma once
// kernel/time/hrtimer.c: per-CPU high-resolution timers ordered by expiry,
// fired from the local APIC timer in one-shot mode (clockevents). A hard timer
// runs in the interrupt (tick_sched_timer, hrtimer_wakeup of a sleeper); a soft
// one (posix_timer_fn on -rt) is deferred to HRTIMER_SOFTIRQ, i.e. ktimersoftd.
#include <cstdint>
#include <functional>
#include <map>
#include <systemc>
#include <utility>

namespace latsim::kernel {

struct Task;

struct Hrtimer {
  sc_core::sc_time expires;
  std::function<void()> function;
  bool soft = false;
  int cpu = -1;  // base it is queued on, -1 = inactive
  uint64_t seq = 0;
  sc_core::sc_time irq_entry;  // entry of the timer interrupt that last expired it
};

using HrtimerQueue = std::map<std::pair<sc_core::sc_time, uint64_t>, Hrtimer*>;

}  // namespace latsim::kernel
