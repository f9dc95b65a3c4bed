// kernel/rcupreempt-boost.c (2.6.24-rt; 2.6.25-rt the same with counter functions for the
// markers): a reader scheduled out in its read section goes on its CPU's rcu_boost_dat
// list (__rcu_preempt_boost); synchronize_rcu (krcupreemptd every 3 s) raises the listed
// readers to its own priority (rcu_boost_readers); the reader's outermost rcu_read_unlock
// takes itself off the list and gives the priority back (__rcu_preempt_unboost: rbs_lock
// with interrupts off, pi_lock, task_setprio).
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// A boost trace point with CONFIG_RCU_TRACE. 2.6.24-rt: trace_mark(), armed by the trace
// module's probe: marker_probe_cb runs it between preempt_disable and preempt_enable (2.6.24
// kernel/marker.c), so its end is a preemption point. 2.6.25-rt: rcu_trace_boost_<name>(rbd),
// an increment of rbd->rbs_stat_<name>. Without CONFIG_RCU_TRACE neither is compiled in
// (assumption for the markers: CONFIG_MARKERS comes with RCU_TRACE).
void Kernel::rcu_trace_boost(RcuCpu& rbd, const char* marker, const char* parent) {
  const RcuParams& p = rcu_->p;
  if (!p.trace) return;
  if (flavour_.rcu_trace_markers) {
    fn("marker_probe_cb", parent, 10);  // if (unlikely(__mark_name.state)): armed
    preempt_disable({"marker_probe_cb", marker});
    fn("marker_probe_cb", parent, uint64_t(p.marker_probe_cycles), uint64_t(p.marker_probe_lines));
    shared(&rbd.stat_line, 1, true);
    rcu_->s.marker_calls++;
    preempt_enable({"marker_probe_cb", marker});
  } else {
    fn("rcu_trace_boost", parent, 6, 1);
    shared(&rbd.stat_line, 1, true);
    rcu_->s.trace_counts++;
  }
}

// rcu_boost_task: with interrupts off and the task's pi_lock held.
void Kernel::rcu_boost_task(Task* t) {
  RcuCpu& me = rcu_->cpu[size_t(smp_processor_id())];
  rcu_trace_boost(me, "task_boost_called", "rcu_boost_task");
  if (t->rcu_prio < t->prio) {
    rcu_trace_boost(me, "task_boosted", "rcu_boost_task");
    fn("task_setprio", "rcu_boost_task", 80, 2);
    set_task_prio(t, effective_prio(t));
    rcu_->s.boosted++;
  }
}

void Kernel::rcu_preempt_boost() {
  Task& curr = current();
  const int c = smp_processor_id();
  RcuCpu& rbd = rcu_->cpu[size_t(c)];
  fn("__rcu_preempt_boost", "schedule", 20, 1);
  rcu_trace_boost(rbd, "boost_called", "__rcu_preempt_boost");
  rcu_->s.boost_called++;
  if (curr.rcub_entry) return;  // already listed
  const bool flags = !irqs_disabled();
  if (flags) local_irq_disable({"__rcu_preempt_boost", "lock"});
  spin_lock(rbd.rbs_lock, "__rcu_preempt_boost");
  spin_lock(curr.pi_lock, "__rcu_preempt_boost");
  shared(&rbd.boost_line, 1, true);
  curr.rcub_cpu = c;
  rcu_trace_boost(rbd, "try_boost", "__rcu_preempt_boost");
  const int prio = effective_prio(&curr);  // rt_mutex_getprio
  rbd.rbs_toboost.push_back(&curr);
  curr.rcub_entry = true;
  if (prio > rbd.rbs_prio) {  // a synchronize_rcu is boosting: raise this reader too
    rcu_trace_boost(rbd, "boosted", "__rcu_preempt_boost");
    curr.rcu_prio = rbd.rbs_prio;
    rcu_boost_task(&curr);
  }
  spin_unlock(curr.pi_lock, {"__rcu_preempt_boost", "unlock"});
  spin_unlock(rbd.rbs_lock, {"__rcu_preempt_boost", "unlock"});
  if (flags) local_irq_enable({"__rcu_preempt_boost", "unlock"});
}

namespace {
void unlist(RcuCpu& rbd, const Task* t) {
  for (auto* l : {&rbd.rbs_toboost, &rbd.rbs_boosted})
    for (auto it = l->begin(); it != l->end(); ++it)
      if (*it == t) {
        l->erase(it);
        return;
      }
}
}  // namespace

// __rcu_preempt_unboost: every outermost rcu_read_unlock calls it (its first trace point
// runs before the "not boosted" test).
void Kernel::rcu_preempt_unboost() {
  Task& curr = current();
  RcuCpu& me = rcu_->cpu[size_t(smp_processor_id())];
  fn("__rcu_preempt_unboost", "__rcu_read_unlock", 10, 1);
  rcu_trace_boost(me, "unboost_called", "__rcu_preempt_unboost");
  rcu_->s.unboost_called++;
  if (!curr.rcub_entry) return;  // likely: not listed
  const int cpu = curr.rcub_cpu;
  curr.rcub_cpu = -1;
  if (cpu < 0) return;
  RcuCpu& rbd = rcu_->cpu[size_t(cpu)];
  const bool flags = spin_lock_irqsave(rbd.rbs_lock, "__rcu_preempt_unboost");
  if (curr.rcub_entry) {
    fn("list_del_init", "__rcu_preempt_unboost", 12, 1);
    shared(&rbd.boost_line, 1, true);
    unlist(rbd, &curr);
    curr.rcub_entry = false;
    rcu_trace_boost(rbd, "unboosted", "__rcu_preempt_unboost");
    rcu_->s.unboosted++;
    curr.rcu_prio = MAX_PRIO;
    spin_lock(curr.pi_lock, "__rcu_preempt_unboost");
    fn("task_setprio", "__rcu_preempt_unboost", 80, 2);
    set_task_prio(&curr, effective_prio(&curr));
    spin_unlock(curr.pi_lock, {"__rcu_preempt_unboost", "unlock"});
  }
  spin_unlock_irqrestore(rbd.rbs_lock, flags, {"__rcu_preempt_unboost", "unlock"});
}

// rcu_boost_readers: from synchronize_rcu; each listed reader to the caller's priority,
// rcu_boost_wake_lock dropped between readers so a higher booster can take over.
void Kernel::rcu_boost_readers() {
  RcuState& r = *rcu_;
  Task& curr = current();
  bool flags = spin_lock_irqsave(r.boost_wake_lock, "rcu_boost_readers");
  const int prio = effective_prio(&curr);
  RcuCpu& me = r.cpu[size_t(smp_processor_id())];
  rcu_trace_boost(me, "try_boost_readers", "rcu_boost_readers");
  if (prio >= r.boost_prio) {  // already boosted
    spin_unlock_irqrestore(r.boost_wake_lock, flags, {"rcu_boost_readers", "unlock"});
    return;
  }
  r.boost_prio = prio;
  rcu_trace_boost(me, "boost_readers", "rcu_boost_readers");
  r.s.boost_readers++;
  curr.rcu_preempt_counter = ++r.boost_counter;
  bool taken_over = false;
  for (RcuCpu& rbd : r.cpu) {
    spin_lock(rbd.rbs_lock, "__rcu_boost_readers");
    rbd.rbs_prio = prio;
    rbd.rbs_toboost.insert(rbd.rbs_toboost.begin(), rbd.rbs_boosted.begin(),
                           rbd.rbs_boosted.end());  // list_splice_init
    rbd.rbs_boosted.clear();
    while (!rbd.rbs_toboost.empty()) {
      Task* p = rbd.rbs_toboost.front();
      rbd.rbs_toboost.pop_front();
      rbd.rbs_boosted.push_back(p);
      fn("list_move_tail", "__rcu_boost_readers", 12, 1);
      p->rcu_prio = prio;
      spin_lock(p->pi_lock, "__rcu_boost_readers");
      rcu_boost_task(p);
      spin_unlock(p->pi_lock, {"__rcu_boost_readers", "unlock"});
      spin_unlock(rbd.rbs_lock, {"__rcu_boost_readers", "unlock"});
      spin_unlock_irqrestore(r.boost_wake_lock, flags, {"__rcu_boost_readers", "unlock"});
      fn("cpu_relax", "__rcu_boost_readers", 4);
      flags = spin_lock_irqsave(r.boost_wake_lock, "__rcu_boost_readers");
      if (curr.rcu_preempt_counter != r.boost_counter) {
        rcu_trace_boost(rbd, "over_taken", "__rcu_boost_readers");
        taken_over = true;
        break;
      }
      spin_lock(rbd.rbs_lock, "__rcu_boost_readers");
    }
    if (taken_over) break;
    spin_unlock(rbd.rbs_lock, {"__rcu_boost_readers", "unlock"});
  }
  spin_unlock_irqrestore(r.boost_wake_lock, flags, {"rcu_boost_readers", "unlock"});
}

// rcu_unboost_readers: only the global level goes back; readers unboost themselves.
void Kernel::rcu_unboost_readers() {
  RcuState& r = *rcu_;
  const bool flags = spin_lock_irqsave(r.boost_wake_lock, "rcu_unboost_readers");
  RcuCpu& me = r.cpu[size_t(smp_processor_id())];
  rcu_trace_boost(me, "try_unboost_readers", "rcu_unboost_readers");
  if (current().rcu_preempt_counter == r.boost_counter) {
    rcu_trace_boost(me, "unboost_readers", "rcu_unboost_readers");
    r.boost_prio = MAX_PRIO;
    for (RcuCpu& rbd : r.cpu) {
      spin_lock(rbd.rbs_lock, "rcu_unboost_readers");
      rbd.rbs_prio = MAX_PRIO;
      spin_unlock(rbd.rbs_lock, {"rcu_unboost_readers", "unlock"});
    }
  }
  spin_unlock_irqrestore(r.boost_wake_lock, flags, {"rcu_unboost_readers", "unlock"});
}

// krcupreemptd: SCHED_FIFO 1, a synchronize_rcu every rcu_preempt_thread_secs.
void Kernel::krcupreemptd() {
  for (;;) {
    set_current_state(TASK_INTERRUPTIBLE);
    schedule_timeout(uint64_t(rcu_->p.preempt_thread_secs) * uint64_t(p_.hz), "krcupreemptd");
    set_current_state(TASK_RUNNING);
    synchronize_rcu("krcupreemptd");
  }
}

}  // namespace latsim::kernel
