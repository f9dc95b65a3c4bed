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
};

}  // namespace latsim::kernel
