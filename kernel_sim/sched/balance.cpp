// kernel/sched.c: idle_balance() -> load_balance_newidle(), run under rq->lock
// with interrupts off when a CPU is about to go idle.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::double_lock_balance(Runqueue& a, Runqueue& b) {
  fn("double_lock_balance", "load_balance_newidle", 30);
  // Take the second lock in address (CPU) order to avoid ABBA deadlock.
  if (b.cpu < a.cpu) {
    spin_unlock(a.lock, {"load_balance", "unlock"});
    spin_lock(b.lock, "double_lock_balance");
    spin_lock(a.lock, "double_lock_balance");
  } else {
    spin_lock(b.lock, "double_lock_balance");
  }
}

bool Kernel::idle_balance(int c, Runqueue& rq) {
  fn("load_balance_newidle", "schedule", 60, 1);
  fn("find_busiest_group", "load_balance_newidle", 120, 1);
  Runqueue* busiest = nullptr;
  for (int i = 0; i < ncpus(); ++i) {
    fn("find_next_bit", "find_busiest_group", 20, 1);
    if (i != c && rq_[size_t(i)].nr_running >= 2 &&
        (!busiest || rq_[size_t(i)].nr_running > busiest->nr_running))
      busiest = &rq_[size_t(i)];
  }
  fn("find_busiest_queue", "load_balance_newidle", 60, 1);
  fn("find_next_bit", "find_busiest_queue", 20, 1);
  if (!busiest) return false;
  double_lock_balance(rq, *busiest);
  fn("move_tasks", "load_balance_newidle", 80, 1);
  bool moved = false;
  // Pull one queued (not running) task that may run here, lowest priority first
  // from the expired array as move_tasks does.
  for (PrioArray* arr : {busiest->expired, busiest->active}) {
    for (int prio = MAX_PRIO - 1; prio >= 0 && !moved; --prio) {
      for (Task* p : arr->queue[prio]) {
        if (p == busiest->curr || !(p->cpus_allowed & (1u << c))) continue;
        fn("find_next_bit", "move_tasks", 20);
        fn("dequeue_task", "move_tasks", 30, 1);
        arr->dequeue(p);
        busiest->nr_running--;
        p->cpu = c;
        rq.nr_migrations++;
        fn("enqueue_task", "move_tasks", 30, 1);
        rq.active->enqueue(p);
        rq.nr_running++;
        fn("resched_task", "move_tasks", 20);
        moved = true;
        break;
      }
    }
    if (moved) break;
  }
  spin_unlock(busiest->lock, {"load_balance", "unlock"});
  return moved;
}

}  // namespace latsim::kernel
