// kernel/sched.c (2.6.9) load balancing over one sched_domain spanning every CPU
// (SD_CPU_INIT): idle_balance() -> load_balance_newidle() when a CPU is about to
// go idle, and rebalance_tick() -> load_balance() from the tick, every
// balance_interval ms when idle and busy_factor times less often when busy.
// Simplification: a CPU's load is its nr_running now, not the decayed cpu_load.
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

// set_task_cpu plus the counters: the task's and the destination's migrations.
void Kernel::set_task_cpu(Task* p, int cpu) {
  if (p->cpu == cpu) return;
  p->cpu = cpu;
  p->nr_migrations++;
  pcpu_[size_t(cpu)].migrations++;
  rq_[size_t(cpu)].nr_migrations++;
}

// pull_task: move a queued (not running) task between runqueues, both locked.
void Kernel::pull_task(Task* p, PrioArray* from_array, Runqueue& from, Runqueue& to,
                       const char* parent) {
  fn("dequeue_task", parent, 30, 1);
  shared(&from, 2, true);      // the busiest CPU's array and nr_running
  shared(&p->state, 2, true);  // the task's array, run_list, timestamp
  from_array->dequeue(p);
  from.nr_running--;
  set_task_cpu(p, to.cpu);
  fn("enqueue_task", parent, 30, 1);
  to.active->enqueue(p);
  to.nr_running++;
  fn("resched_task", parent, 20);
  if (p->prio < to.curr->prio) resched_task(to.curr);  // TASK_PREEMPTS_CURR
}

// move_tasks: up to `max_nr` queued tasks that may run on `to`, lowest priority
// first, the expired array before the active one; cache-hot ones (ran within
// cache_hot_time) only when `hot_ok`.
int Kernel::move_tasks(Runqueue& to, Runqueue& from, int max_nr, bool hot_ok, const char* parent) {
  fn("move_tasks", parent, 80, 1);
  const sc_time hot(p_.cache_hot_time_us, sc_core::SC_US);
  int moved = 0;
  for (PrioArray* arr : {from.expired, from.active}) {
    for (int prio = MAX_PRIO - 1; prio >= 0 && moved < max_nr; --prio) {
      for (size_t i = 0; i < arr->queue[prio].size() && moved < max_nr;) {
        Task* p = arr->queue[prio][i];
        const bool can = p != from.curr && (p->cpus_allowed & (1u << to.cpu)) &&
                         (hot_ok || now() - p->last_ran >= hot);
        if (!can) {
          ++i;
          continue;
        }
        fn("find_next_bit", "move_tasks", 20);
        pull_task(p, arr, from, to, "move_tasks");
        ++moved;
      }
    }
    if (moved >= max_nr) break;
  }
  return moved;
}

bool Kernel::idle_balance(int c, Runqueue& rq) {
  fn("load_balance_newidle", "schedule", 60, 1);
  fn("find_busiest_group", "load_balance_newidle", 120, 1);
  Runqueue* busiest = nullptr;
  for (int i = 0; i < ncpus(); ++i) {
    fn("find_next_bit", "find_busiest_group", 20, 1);
    if (i != c) shared(&rq_[size_t(i)], 1, false);  // source_load: its nr_running, cpu_load
    if (i != c && rq_[size_t(i)].nr_running >= 2 &&
        (!busiest || rq_[size_t(i)].nr_running > busiest->nr_running))
      busiest = &rq_[size_t(i)];
  }
  fn("find_busiest_queue", "load_balance_newidle", 60, 1);
  fn("find_next_bit", "find_busiest_queue", 20, 1);
  if (!busiest) return false;
  double_lock_balance(rq, *busiest);
  const bool moved = move_tasks(rq, *busiest, 1, true, "load_balance_newidle") > 0;
  spin_unlock(busiest->lock, {"load_balance", "unlock"});
  return moved;
}

// load_balance: pull from the busiest CPU when it is imbalance_pct above this
// one and a move narrows the gap; after repeated failures (only cache-hot or
// running tasks there) ask its migration thread to push its running task here.
bool Kernel::load_balance(int c, Runqueue& rq, bool idle) {
  fn("load_balance", "rebalance_tick", 60, 1);
  spin_lock(rq.lock, "load_balance");
  fn("find_busiest_group", "load_balance", 120, 1);
  Runqueue* busiest = nullptr;
  for (int i = 0; i < ncpus(); ++i) {
    fn("find_next_bit", "find_busiest_group", 20, 1);
    if (i != c) shared(&rq_[size_t(i)], 1, false);  // source_load: its nr_running, cpu_load
    if (i != c && (!busiest || rq_[size_t(i)].nr_running > busiest->nr_running))
      busiest = &rq_[size_t(i)];
  }
  const int this_load = rq.nr_running, max_load = busiest ? busiest->nr_running : 0;
  if (!busiest || max_load - this_load < 2 ||
      100 * max_load <= p_.balance_imbalance_pct * this_load) {  // out_balanced
    spin_unlock(rq.lock, {"load_balance", "unlock"});
    rq.nr_balance_failed = 0;
    rq.balance_interval_ms = std::min(rq.balance_interval_ms * 2, p_.balance_max_interval_ms);
    return false;
  }
  fn("find_busiest_queue", "load_balance", 60, 1);
  const int imbalance = (max_load - this_load) / 2;
  double_lock_balance(rq, *busiest);
  const bool hot_ok = !idle || rq.nr_balance_failed >= p_.cache_nice_tries;
  const int moved = move_tasks(rq, *busiest, imbalance, hot_ok, "load_balance");
  spin_unlock(busiest->lock, {"load_balance", "unlock"});
  spin_unlock(rq.lock, {"load_balance", "unlock"});
  if (moved) {
    rq.nr_balance_failed = 0;
  } else if (++rq.nr_balance_failed > p_.cache_nice_tries + 2) {
    rq.nr_balance_failed = p_.cache_nice_tries;
    if (!busiest->active_balance && busiest->migration_thread) {
      busiest->active_balance = true;
      busiest->push_cpu = c;
      fn("wake_up_process", "load_balance", 20);
      try_to_wake_up(busiest->migration_thread, "load_balance");
    }
  }
  rq.balance_interval_ms = p_.balance_min_interval_ms;  // we were unbalanced
  return moved > 0;
}

// rebalance_tick: CPU_OFFSET staggers the CPUs over a second of jiffies (counted
// here on the CPU's own tick, which the global jiffies follows).
void Kernel::rebalance_tick(int c, Runqueue& rq, bool idle) {
  // Update our load: rounded up while it rises, so it can reach nr_running.
  const uint64_t load_now = uint64_t(rq.nr_running) * 128;  // SCHED_LOAD_SCALE
  rq.cpu_load = (rq.cpu_load + (load_now > rq.cpu_load ? 1 : 0) + load_now) / 2;
  if (!p_.periodic_balance || ncpus() < 2 || !flavour_.o1_scheduler) return;  // 2.4: one runqueue
  const uint64_t j = pcpu_[size_t(c)].local_ticks + uint64_t(p_.hz * c / ncpus());
  const int ms = rq.balance_interval_ms * (idle ? 1 : p_.balance_busy_factor);
  const uint64_t interval = std::max<uint64_t>(1, uint64_t(ms) * uint64_t(p_.hz) / 1000);
  if (j - rq.last_balance < interval) return;
  rq.last_balance = j;  // 2.6.9 adds the interval; from the first tick that equals j
  load_balance(c, rq, idle);
}

}  // namespace latsim::kernel
