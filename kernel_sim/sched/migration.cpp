// kernel/sched.c (2.6.9, CONFIG_SMP): migration/N, a SCHED_FIFO 99 thread per CPU.
// A task that is running or queued cannot change CPU from outside: set_cpus_allowed
// queues a request to its CPU's migration thread and sleeps until it is done; the
// periodic balancer asks it to push away the task it could not pull (active balance).
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// __migrate_task: the task is not running now (this thread is); move it if it is
// still on `src` and may run on `dest`.
void Kernel::migrate_task_now(Task* p, int src, int dest) {
  fn("__migrate_task", "migration_thread", 60, 1);
  Runqueue& from = rq_[size_t(src)];
  Runqueue& to = rq_[size_t(dest)];
  spin_lock(from.lock, "__migrate_task");
  double_lock_balance(from, to);
  if (p->cpu == src && (p->cpus_allowed & (1u << dest))) {
    if (p->array && from.curr != p)
      pull_task(p, p->array, from, to, "__migrate_task");
    else if (!p->array)
      set_task_cpu(p, dest);  // asleep: it wakes up there
  }
  spin_unlock(to.lock, {"__migrate_task", "unlock"});
  spin_unlock(from.lock, {"__migrate_task", "unlock"});
}

// active_load_balance: push one task of this (busiest) CPU to push_cpu.
void Kernel::active_load_balance(Runqueue& busiest, int push_cpu) {
  fn("active_load_balance", "migration_thread", 60, 1);
  Runqueue& target = rq_[size_t(push_cpu)];
  spin_lock(busiest.lock, "active_load_balance");
  double_lock_balance(busiest, target);
  move_tasks(target, busiest, 1, true, "active_load_balance");
  spin_unlock(target.lock, {"active_load_balance", "unlock"});
  spin_unlock(busiest.lock, {"active_load_balance", "unlock"});
}

void Kernel::migration_thread(int c) {
  Runqueue& rq = rq_[size_t(c)];
  for (;;) {
    set_current_state(TASK_INTERRUPTIBLE);
    spin_lock_irq(rq.lock, "migration_thread");
    if (rq.active_balance) {
      rq.active_balance = false;
      spin_unlock_irq(rq.lock, {"migration_thread", "unlock"});
      set_current_state(TASK_RUNNING);
      active_load_balance(rq, rq.push_cpu);
      continue;
    }
    if (rq.migration_queue.empty()) {
      spin_unlock_irq(rq.lock, {"migration_thread", "unlock"});
      schedule("migration_thread");
      continue;
    }
    MigrationReq* req = rq.migration_queue.front();
    rq.migration_queue.pop_front();
    spin_unlock_irq(rq.lock, {"migration_thread", "unlock"});
    set_current_state(TASK_RUNNING);
    migrate_task_now(req->task, c, req->dest_cpu);
    req->done = true;  // complete(&req->done)
    fn("complete", "migration_thread", 30);
    try_to_wake_up(req->waiter, "complete");
  }
}

// sched_setaffinity -> set_cpus_allowed: a sleeping task just changes CPU; a running
// or queued one is moved by its CPU's migration thread while the caller waits
// (wait_for_completion), which is how a task moves itself.
void Kernel::set_cpus_allowed(Task* p, uint32_t mask) {
  fn("set_cpus_allowed", "sys_sched_setaffinity", 60);
  Runqueue& rq = rq_[size_t(p->cpu)];
  const bool f = spin_lock_irqsave(rq.lock, "set_cpus_allowed");
  p->cpus_allowed = mask;
  if (mask & (1u << p->cpu))
    return spin_unlock_irqrestore(rq.lock, f, {"set_cpus_allowed", "unlock"});
  int dest = 0;
  while (!(mask & (1u << dest))) ++dest;  // any_online_cpu(new_mask)
  if (!p->array && rq.curr != p) {        // migrate_task: not queued, not running
    set_task_cpu(p, dest);
    return spin_unlock_irqrestore(rq.lock, f, {"set_cpus_allowed", "unlock"});
  }
  MigrationReq req;
  req.task = p;
  req.dest_cpu = dest;
  req.waiter = &current();
  rq.migration_queue.push_back(&req);
  spin_unlock_irqrestore(rq.lock, f, {"set_cpus_allowed", "unlock"});
  fn("wake_up_process", "set_cpus_allowed", 20);
  try_to_wake_up(rq.migration_thread, "set_cpus_allowed");
  while (!req.done) {  // wait_for_completion
    set_current_state(TASK_UNINTERRUPTIBLE);
    if (!req.done) schedule("wait_for_completion");
  }
  set_current_state(TASK_RUNNING);
}

}  // namespace latsim::kernel
