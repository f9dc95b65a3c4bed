#pragma once
// kernel/sched.c: per-CPU runqueue with active/expired priority arrays (O(1)).
#include <bitset>
#include <deque>
#include "kernel_sim/locks/spinlock.h"
#include "kernel_sim/sched/task.h"

namespace latsim::kernel {

struct PrioArray {
  int nr_active = 0;
  std::bitset<MAX_PRIO> bitmap;
  std::deque<Task*> queue[MAX_PRIO];

  void enqueue(Task* p);
  void enqueue_head(Task* p);
  void dequeue(Task* p);
  int first() const;  // sched_find_first_bit, MAX_PRIO if empty
};

struct Runqueue {
  Spinlock lock{"rq->lock"};
  int cpu = 0;
  int nr_running = 0;
  Task* curr = nullptr;
  Task* idle = nullptr;
  PrioArray arrays[2];
  PrioArray* active = &arrays[0];
  PrioArray* expired = &arrays[1];
  uint64_t nr_switches = 0;
  uint64_t expired_timestamp = 0;  // jiffies when the first task expired (0 = none)
  uint64_t nr_migrations = 0;      // tasks that moved onto this CPU (wakeup or balance)
  // 2.6.9 SMP: the migration thread and its requests; active balance asks it to
  // push the task that was running here to push_cpu.
  Task* migration_thread = nullptr;
  std::deque<struct MigrationReq*> migration_queue;
  bool active_balance = false;
  int push_cpu = 0;
  // The one sched_domain (SD_CPU_INIT) spanning the CPUs, as rebalance_tick keeps it.
  uint64_t last_balance = 0;    // jiffies
  int balance_interval_ms = 1;  // min_interval .. max_interval, doubled while balanced
  int nr_balance_failed = 0;
  // scheduler_tick's sched_clock(); "now" for task_hot() in try_to_wake_up (2.6.9).
  sc_core::sc_time timestamp_last_tick;
  // rebalance_tick: (cpu_load + nr_running * SCHED_LOAD_SCALE) / 2 at every tick.
  uint64_t cpu_load = 0;
};

// migration_req_t: move `task` to `dest_cpu`, then complete `done` (the requester sleeps).
struct MigrationReq {
  Task* task = nullptr;
  int dest_cpu = 0;
  bool done = false;
  Task* waiter = nullptr;
};

}  // namespace latsim::kernel
