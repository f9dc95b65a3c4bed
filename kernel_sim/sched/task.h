#pragma once
// task_struct + thread_info, as much as the scheduler and tracer need.
#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <systemc>
#include "kernel_sim/arch/i387.h"
#include "kernel_sim/locks/spinlock.h"

namespace latsim::kernel {

enum class Policy { Normal = 0, Fifo = 1, Rr = 2 };  // SCHED_OTHER/FIFO/RR
enum TaskStateBits : int {
  TASK_RUNNING = 0,
  TASK_INTERRUPTIBLE = 1,
  TASK_UNINTERRUPTIBLE = 2,
  TASK_DEAD = 64
};

constexpr int MAX_RT_PRIO = 100;
constexpr int MAX_PRIO = 140;
constexpr int nice_to_prio(int nice) { return MAX_RT_PRIO + nice + 20; }

// include/asm-i386/hardirq.h (2.6.9): preempt depth 0-7, softirq 8-15, hardirq 16-23.
constexpr uint32_t PREEMPT_OFFSET = 1u << 0;
constexpr uint32_t SOFTIRQ_OFFSET = 1u << 8;
constexpr uint32_t HARDIRQ_OFFSET = 1u << 16;
constexpr uint32_t PREEMPT_ACTIVE = 0x04000000u;

struct PrioArray;

// Thrown in a dead task's thread after its last switch away, to end the thread.
struct TaskExit {};

struct Task {
  int pid = 0;
  std::string comm;
  Policy policy = Policy::Normal;
  int rt_priority = 0;
  int nice = 0;
  int static_prio = nice_to_prio(0);
  int prio = nice_to_prio(0);
  uint32_t cpus_allowed = ~0u;
  int cpu = 0;
  int state = TASK_RUNNING;
  uint32_t preempt_count = 0;  // thread_info->preempt_count
  bool need_resched = false;   // TIF_NEED_RESCHED
  int time_slice = 100;        // ticks
  bool first_time_slice = true;
  PrioArray* array = nullptr;  // runqueue array it is queued on, if any
  bool in_user = false;        // running user code (returns to user mode)
  bool is_idle = false;
  bool started = false;
  sc_core::sc_event resume;  // switched in
  std::function<void()> body;
  std::function<void()> on_exit;
  // Its parent reaps it (wait4): the struct is freed once the task has switched away for
  // the last time, so nothing may refer to it after its exit. Else it stays a zombie.
  bool reaped = false;
  sc_core::sc_time sleep_start;  // when it was last deactivated
  bool slept = false;
  sc_core::sc_time sleep_avg;  // interactivity credit, 0..MAX_SLEEP_AVG
  sc_core::sc_time last_ran;   // when it was last switched in or charged (p->timestamp)
  uint64_t nvcsw = 0, nivcsw = 0;
  int mm = 0;              // its address space (0: a kernel thread, which borrows the last one)
  int lock_depth = -1;     // BKL nesting (-1 = not held)
  int pi_prio = MAX_PRIO;  // priority lent by rt_mutex waiters (MAX_PRIO = none)
  Spinlock siglock{"sighand->siglock", true};
  Spinlock pi_lock{"pi_lock"};  // raw: taken with interrupts off (rcupreempt-boost.c)
  // Preemptible RCU (kernel_sim/rcu/rcupreempt.h): the read-side nesting, the per-CPU
  // counter its outermost rcu_read_lock incremented, and the boost state.
  int rcu_read_lock_nesting = 0;
  int rcu_flipctr_idx = 0;
  int rcub_cpu = -1;             // curr->rcub_rbdp: the CPU whose rcu_boost_dat lists it (-1: none)
  bool rcub_entry = false;       // !list_empty(&curr->rcub_entry): on rbs_toboost or rbs_boosted
  int rcu_prio = MAX_PRIO;       // the priority RCU boosting lends (MAX_PRIO: none)
  long rcu_preempt_counter = 0;  // rcu_boost_readers: which booster this task was
  uint64_t nr_migrations = 0;
  uint64_t cache_footprint = 0;  // lines of its working set refilled after a switch-in
  TaskFpu fpu;                   // its FPU state (arch/i387.cpp)

  bool rt() const { return prio < MAX_RT_PRIO; }
};

}  // namespace latsim::kernel
