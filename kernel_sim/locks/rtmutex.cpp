// kernel/locking/rtmutex.c as PREEMPT_RT uses it for spinlock_t: the holder is a
// task; a contender sleeps (TASK_UNINTERRUPTIBLE) queued by priority and lends
// the holder its priority until the unlock (priority inheritance).
#include <algorithm>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

bool Kernel::sleeping_lock(const Spinlock& l) const {
  return l.sleeping && flavour_.preempt_rt_full;
}

// rt_mutex_setprio: requeue a task at its new priority.
void Kernel::set_task_prio(Task* p, int prio) {
  if (p->prio == prio) return;
  PrioArray* arr = p->array;
  if (arr) arr->dequeue(p);
  p->prio = prio;
  if (arr) arr->enqueue(p);
  Runqueue& rq = rq_[size_t(p->cpu)];
  if (arr && rq.curr != p && p->prio < rq.curr->prio) resched_task(rq.curr);
}

void Kernel::rt_spin_lock(Spinlock& l, const char* parent) {
  fn("rt_spin_lock", parent, 30);
  Task& me = current();
  l.acquisitions++;
  if (l.owner_task && l.owner_task != &me) {
    l.contended++;
    const sc_time t0 = now();
    while (l.owner_task) {
      fn("rt_spin_lock_slowlock", "rt_spin_lock", 60, 1);
      fn("task_blocks_on_rt_mutex", "rt_spin_lock_slowlock", 60, 1);
      if (std::find(l.waiters.begin(), l.waiters.end(), &me) == l.waiters.end())
        l.waiters.push_back(&me);
      Task* owner = l.owner_task;
      if (!owner) break;  // released while the slow path ran: take it (no wake-up was due)
      if (me.prio < owner->prio) {  // rt_mutex_adjust_prio_chain: boost the holder
        owner->pi_prio = std::min(owner->pi_prio, me.prio);
        set_task_prio(owner, me.prio);
      }
      set_current_state(TASK_UNINTERRUPTIBLE);
      schedule("rt_spin_lock_slowlock");
    }
    auto it = std::find(l.waiters.begin(), l.waiters.end(), &me);
    if (it != l.waiters.end()) l.waiters.erase(it);
    l.spin_total += now() - t0;  // time blocked
  }
  l.owner_task = &me;
  l.acquired_at(me.cpu, now());
  lock_acquired(l);
}

void Kernel::rt_spin_unlock(Spinlock& l, const CodeSite& site) {
  fn("rt_spin_unlock", site.fn, 30);
  Task& me = current();
  lock_released(l);
  l.owner_task = nullptr;
  l.released_at(now());
  // rt_mutex_adjust_prio: give back a borrowed priority (keep what other held
  // locks' waiters still lend).
  int lend = MAX_PRIO;
  for (const Spinlock* h : locks_)
    if (h != &l && h->owner_task == &me)
      for (const Task* w : h->waiters) lend = std::min(lend, w->prio);
  me.pi_prio = lend;
  set_task_prio(&me, effective_prio(&me));
  if (!l.waiters.empty()) {  // wakeup_next_waiter: the highest-priority one
    auto top = std::min_element(l.waiters.begin(), l.waiters.end(),
                                [](const Task* a, const Task* b) { return a->prio < b->prio; });
    Task* w = *top;
    l.waiters.erase(top);
    try_to_wake_up(w, "wakeup_next_waiter");
  }
  if (me.need_resched) preempt_schedule("rt_spin_unlock");
}

}  // namespace latsim::kernel
