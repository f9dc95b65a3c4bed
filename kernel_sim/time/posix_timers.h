#pragma once
// kernel/posix-timers.c (2.6.9): a k_itimer runs on a jiffies timer_list of the
// CPU that armed it. On expiry posix_timer_fn (timer softirq) queues the timer's
// preallocated sigqueue to its thread (SIGEV_THREAD_ID) under the process's
// siglock and wakes it (signal_wake_up); a periodic timer is rearmed only when
// the thread dequeues the signal (do_schedule_next_timer), on the CPU it then
// runs on; expiries already past by then are counted as overruns.
#include <cstdint>
#include "kernel_sim/locks/spinlock.h"

namespace latsim::kernel {

class Kernel;
struct Task;

class PosixTimer {
 public:
  // The expiry a dequeued signal stands for: the tick on the base it fired from.
  struct Expiry {
    int cpu = 0;
    uint64_t tick = 0;
  };

  explicit PosixTimer(Spinlock& siglock) : siglock_(siglock) {}
  PosixTimer(const PosixTimer&) = delete;
  PosixTimer& operator=(const PosixTimer&) = delete;

  // timer_create(CLOCK_MONOTONIC, SIGEV_THREAD_ID) for the calling thread.
  void create(Kernel& k);
  // timer_settime(TIMER_ABSTIME): first expiry at local tick `first`, then every `incr`.
  void settime(Kernel& k, uint64_t first, uint64_t incr);
  // sigwait(): sleep until the timer's signal is queued, dequeue it (which rearms).
  Expiry sigwait(Kernel& k);
  // exit_itimers(): the timer dies with its thread.
  void del(Kernel& k);
  uint64_t overruns() const { return overrun_; }

 private:
  void add_timer(Kernel& k);
  void posix_timer_fn(Kernel& k, uint64_t generation);

  Spinlock& siglock_;  // current->sighand->siglock, shared by the process's threads
  Spinlock it_lock_{"timr->it_lock"};
  Task* task_ = nullptr;
  uint64_t expires_ = 0, incr_ = 0;
  int cpu_ = 0;              // the timer base it is queued on
  uint64_t generation_ = 0;  // a deleted or re-set timer's queued expiry is stale
  bool armed_ = false;
  bool sig_pending_ = false;  // the sigqueue is on the thread's pending list
  Expiry fired_;
  uint64_t overrun_ = 0;
};

}  // namespace latsim::kernel
