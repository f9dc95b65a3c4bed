#pragma once
// An SMP spinlock: the holder is a CPU; another CPU really spins (and is
// accounted as spinning) until the holder releases it. On the rt flavour a lock
// marked `sleeping` is an rt_mutex instead: the holder is a task, waiters sleep
// and boost the holder's priority (priority inheritance).
#include <deque>
#include <systemc>
#include "kernel_sim/locks/spin_wait.h"

namespace latsim::kernel {

struct Task;

struct Spinlock {
  explicit Spinlock(const char* n = "lock", bool sleeping_on_rt = false)
      : name(n), sleeping(sleeping_on_rt) {}
  const char* name;
  bool sleeping = false;  // spinlock_t that PREEMPT_RT turns into an rt_mutex (not raw_spinlock_t)
  int owner = -1;         // CPU holding it, -1 = free
  // The lock word's cache line, as the cache models key it: not the Spinlock's own address,
  // which is also that of a structure the lock starts (rq, kmem_cache) keyed for its lines.
  const void* line() const { return &owner; }
  Task* owner_task = nullptr;  // rt_mutex owner (rt flavour, sleeping locks)
  std::deque<Task*> waiters;   // rt_mutex waiters
  SpinWait released;
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
    released.release();
  }
  // Hold totals (per-lock metrics) beside the maxima above.
  sc_core::sc_time hold_total;
  uint64_t releases = 0;
  bool registered = false;  // listed in Kernel::lock_stats()
};

// Everything a report needs about one lock.
struct LockStats {
  const char* name;
  uint64_t acquisitions, contended, releases;
  sc_core::sc_time spin_total, hold_total, hold_max, spin_max;
};

}  // namespace latsim::kernel
