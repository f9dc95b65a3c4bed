#pragma once
// kernel/posix-timers.c: a k_itimer (timer_create SIGEV_THREAD_ID + timer_settime).
// One timer, two expiry paths chosen by the kernel it runs on:
//  - 2.6.9 (no high_res_timers): a jiffies timer_list on the timer wheel of the CPU
//    that armed it; posix_timer_fn runs from the timer softirq;
//  - rt (high_res_timers): an hrtimer; on -rt it is a soft hrtimer, so
//    posix_timer_fn runs in ktimersoftd/N, preemptible, holding it_lock and the
//    siglock (both rt_mutexes there) while it wakes the thread.
// Either way posix_timer_fn queues the preallocated sigqueue under the siglock and
// wakes the thread (signal_wake_up); a periodic timer is rearmed only when the
// thread dequeues the signal (do_schedule_next_timer), on the CPU it then runs
// on; periods already past by then are counted as overruns.
#include <cstdint>
#include <systemc>
#include "kernel_sim/locks/spinlock.h"
#include "kernel_sim/time/hrtimer.h"

namespace latsim::kernel {

class Kernel;
struct Task;

class PosixTimer {
 public:
  // The expiry a dequeued signal stands for.
  struct Expiry {
    int cpu = 0;                 // the CPU whose timer base it fired on
    uint64_t tick = 0;           // jiffies path: the local tick it was queued for
    sc_core::sc_time expires;    // when it was due
    sc_core::sc_time irq_entry;  // hrtimer path: the timer interrupt that expired it
  };

  explicit PosixTimer(Spinlock& siglock) : siglock_(siglock) {}
  PosixTimer(const PosixTimer&) = delete;
  PosixTimer& operator=(const PosixTimer&) = delete;

  // timer_create(CLOCK_MONOTONIC, SIGEV_THREAD_ID) for the calling thread.
  void create(Kernel& k);
  // timer_settime(TIMER_ABSTIME): first expiry at `first`, then every `interval`
  // (0: one shot). On the jiffies path both round up to local ticks.
  void settime(Kernel& k, sc_core::sc_time first, sc_core::sc_time interval);
  // sigwait(): sleep until the timer's signal is queued, dequeue it (which rearms).
  Expiry sigwait(Kernel& k);
  // exit_itimers(): the timer dies with its thread.
  void del(Kernel& k);
  uint64_t overruns() const { return overrun_; }
  // When the pending expiry is due (the one the next sigwait() returns, if not overrun).
  sc_core::sc_time due(Kernel& k) const;
  uint64_t expiries() const { return expiries_; }
  const Spinlock& it_lock() const { return it_lock_; }

 private:
  void arm(Kernel& k);  // add_timer on this CPU's wheel, or hrtimer_start
  void posix_timer_fn(Kernel& k, uint64_t generation, const char* parent);

  Spinlock& siglock_;  // current->sighand->siglock, shared by the process's threads
  Spinlock it_lock_{"timr->it_lock", true};
  Task* task_ = nullptr;
  bool hres_ = false;  // expiry path: hrtimer (true) or jiffies wheel
  // The pending expiry: a local tick on base `cpu_` (jiffies), or a time (hrtimer).
  uint64_t tick_ = 0, incr_ticks_ = 0;
  sc_core::sc_time expires_, interval_;
  Hrtimer hr_;
  uint64_t wheel_id_ = 0;    // its timer_list on the wheel (jiffies path)
  int cpu_ = 0;              // the timer base it is queued on
  uint64_t generation_ = 0;  // a deleted or re-set timer's queued expiry is stale
  bool armed_ = false;
  bool sig_pending_ = false;  // the sigqueue is on the thread's pending list
  Expiry fired_;
  uint64_t overrun_ = 0, expiries_ = 0;
};

}  // namespace latsim::kernel
