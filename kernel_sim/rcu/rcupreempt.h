#pragma once
// Preemptible RCU of 2.6.24-rt (kernel/rcupreempt.c) with RCU priority boosting
// (kernel/rcupreempt-boost.c): the kernel.rcu.* keys and the state the Kernel's rcu_*
// functions (rcu/rcupreempt.cpp, rcu/rcupreempt_boost.cpp) work on. Only the flavours with
// Flavour::preempt_rcu have it; on the others rcu_read_lock/unlock cost nothing here.
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include "kernel_sim/locks/spinlock.h"
#include "kernel_sim/rcu/rcupreempt_params.h"
#include "kernel_sim/sched/task.h"

namespace latsim::kernel {

struct RcuStats {
  uint64_t read_sections = 0;   // outermost rcu_read_lock calls
  uint64_t boost_called = 0;    // __rcu_preempt_boost: a reader scheduled out
  uint64_t boosted = 0;         // ... whose priority rcu_boost_task raised
  uint64_t unboost_called = 0;  // __rcu_preempt_unboost calls (every outermost unlock)
  uint64_t unboosted = 0;       // ... that took the rbs_lock path (the task was listed)
  uint64_t boost_readers = 0;   // rcu_boost_readers passes that boosted
  uint64_t grace_periods = 0;   // counter flips completed (back to idle)
  uint64_t callbacks = 0;       // RCU callbacks invoked
  uint64_t marker_calls = 0;    // armed trace_mark() probes run (CONFIG_RCU_TRACE, 2.6.24)
  uint64_t trace_counts = 0;    // rcu_trace_boost_*() / RCU_TRACE_*() increments
};

// One CPU's rcu_data and rcu_boost_dat.
struct RcuCpu {
  std::array<int, 2> flipctr{};  // rcu_flipctr[]: readers that began under each index
  long completed = 0;            // rdp->completed
  bool flip_seen = true;         // rcu_flip_flag == rcu_flip_seen
  bool mb_done = true;           // rcu_mb_flag == rcu_mb_done
  // Callbacks by stage: next, wait[0..GP_STAGES-1], done.
  std::deque<std::function<void()>> nextlist, donelist;
  std::array<std::deque<std::function<void()>>, 2> waitlist;
  Spinlock rbs_lock{"rbs_lock"};  // raw_spinlock_t: rcu_boost_dat's lists
  int rbs_prio = MAX_PRIO;        // CPU copy of rcu_boost_prio (MAX_PRIO: none)
  std::deque<Task*> rbs_toboost, rbs_boosted;
  // The structures' cache lines, as the cache models key them.
  char data_line = 0, boost_line = 0, stat_line = 0;
};

enum class RcuFlipState { Idle, WaitAck, WaitZero, WaitMb };

struct RcuState {
  RcuState(const RcuParams& params, int ncpus) : p(params), cpu(size_t(ncpus)) {}
  RcuParams p;
  long completed = 0;  // rcu_ctrlblk.completed
  RcuFlipState state = RcuFlipState::Idle;
  Spinlock fliplock{"rcu_ctrlblk.fliplock"};
  Spinlock boost_wake_lock{"rcu_boost_wake_lock"};
  int boost_prio = MAX_PRIO;  // rcu_boost_prio
  long boost_counter = 0;
  std::deque<RcuCpu> cpu;
  char ctrl_line = 0;  // rcu_ctrlblk's line
  RcuStats s;
};

}  // namespace latsim::kernel
