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
};

using HrtimerQueue = std::map<std::pair<sc_core::sc_time, uint64_t>, Hrtimer*>;

// A POSIX interval timer on an hrtimer (timer_create SIGEV_SIGNAL + timer_settime);
// the jiffies-based 2.6.9 one is time/posix_timers.h.
struct HrPosixTimer {
  Task* owner = nullptr;
  Hrtimer hr;
  sc_core::sc_time interval;
  bool sig_queued = false;  // its sigqueue entry is pending on the owner
  uint64_t overruns = 0, expiries = 0;
  uint64_t lowres_id = 0;  // on the timer wheel without high_res_timers
};

}  // namespace latsim::kernel
