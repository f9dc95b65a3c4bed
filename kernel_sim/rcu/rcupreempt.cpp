// kernel/rcupreempt.c (2.6.24-rt): rcu_read_lock/unlock count the reader in its task
// (rcu_read_lock_nesting) and, outermost, in this CPU's rcu_flipctr[completed & 1]; the
// grace-period state machine advances at each tick (rcu_check_callbacks_rt -> rcu_try_flip:
// idle -> waitack -> waitzero -> waitmb) and callbacks move through next, two wait stages
// (GP_STAGES) and done, invoked in RCU_SOFTIRQ.
#include "kernel_sim/kernel.h"
#include "kernel_sim/key_binders.h"

namespace latsim::kernel {

params::Table<RcuParams> rcu_keys() {
  using namespace params;
  using P = RcuParams;
  using T = ValueType;
  return {
      bind<P>(with_source(of_type(T::Bool, "trace",
                                  "CONFIG_RCU_TRACE (preemptible-RCU flavours): the boost path's "
                                  "trace points run (2.6.24-rt: armed trace_mark() probes; "
                                  "2.6.25-rt: rcu_trace_boost_*() counters) and the grace-period "
                                  "code's RCU_TRACE_*() counters"),
                          "2.6.24-rt kernel/rcupreempt-boost.c, kernel/rcupreempt_trace.c"),
              &P::trace),
      bind<P>(with_source(of_type(T::Bool, "boost",
                                  "CONFIG_PREEMPT_RCU_BOOST: a reader scheduled out in its read "
                                  "section is listed for boosting and unlisted (rbs_lock, "
                                  "pi_lock, task_setprio) at its outermost rcu_read_unlock"),
                          "2.6.24-rt kernel/rcupreempt-boost.c"),
              &P::boost),
      bind<P>(with_source(integer("preempt_thread_secs", 1, 600, "s",
                                  "krcupreemptd's period: synchronize_rcu (boosting the listed "
                                  "readers) every this many seconds"),
                          "2.6.24-rt kernel/rcupreempt-boost.c rcu_preempt_thread_secs = 3"),
              &P::preempt_thread_secs),
      bind<P>(with_source(integer("marker_probe_cycles", 0, 10000, "cycles",
                                  "an armed trace_mark(): marker_probe_cb (preempt_disable, "
                                  "va_start, the probe's counter increment, preempt_enable)"),
                          "assumption: ~40 instructions on a 603e-class core"),
              &P::marker_probe_cycles),
      bind<P>(with_source(integer("marker_probe_lines", 0, 64, "lines",
                                  "cache lines an armed marker touches: the marker struct, "
                                  "marker_probe_cb's and the probe's code, the counter"),
                          "assumption"),
              &P::marker_probe_lines),
  };
}

namespace {
constexpr int kGpStages = 2;  // 2.6.24 kernel/rcupreempt.c GP_STAGES
}

void Kernel::rcu_init() {
  open_softirq(RCU_SOFTIRQ, [this] { rcu_process_callbacks(); });
  if (!rcu_->p.boost) return;
  Task* t = create_task(
      "krcupreemptd", [this] { krcupreemptd(); }, Policy::Fifo, 1);
  t->mm = 0;  // a kernel thread
}

void Kernel::rcu_trace(RcuCpu& rdp, const char* parent) {
  if (!rcu_->p.trace) return;
  fn("rcupreempt_trace", parent, 6, 1);  // ++rdp->trace.<counter>: a call, one line
  shared(&rdp.stat_line, 1, true);
  rcu_->s.trace_counts++;
}

void Kernel::rcu_read_lock(const char* parent) {
  if (!rcu_) return;
  Task& t = current();
  if (t.rcu_read_lock_nesting > 0) {  // an earlier rcu_read_lock() covers us
    fn("__rcu_read_lock", parent, 8);
    t.rcu_read_lock_nesting++;
    return;
  }
  fn("__rcu_read_lock", parent, 24, 2);
  const bool flags = !irqs_disabled();
  if (flags) local_irq_disable({"__rcu_read_lock", "lock"});
  RcuCpu& rdp = rcu_->cpu[size_t(smp_processor_id())];
  const int idx = int(rcu_->completed & 1);
  shared(&rcu_->ctrl_line, 1, false);
  shared(&rdp.data_line, 1, true);
  rdp.flipctr[size_t(idx)]++;
  t.rcu_read_lock_nesting = 1;
  t.rcu_flipctr_idx = idx;
  rcu_->s.read_sections++;
  if (flags) local_irq_enable({"__rcu_read_lock", "unlock"});
}

void Kernel::rcu_read_unlock(const char* parent) {
  if (!rcu_) return;
  Task& t = current();
  if (t.rcu_read_lock_nesting > 1) {  // still protected by the enclosing rcu_read_lock()
    fn("__rcu_read_unlock", parent, 8);
    t.rcu_read_lock_nesting--;
    return;
  }
  fn("__rcu_read_unlock", parent, 24, 1);
  const bool flags = !irqs_disabled();
  if (flags) local_irq_disable({"__rcu_read_unlock", "lock"});
  RcuCpu& rdp = rcu_->cpu[size_t(smp_processor_id())];
  shared(&rdp.data_line, 1, true);
  t.rcu_read_lock_nesting = 0;
  rdp.flipctr[size_t(t.rcu_flipctr_idx)]--;  // this CPU's: per-CPU sums may go negative
  if (flags) local_irq_enable({"__rcu_read_unlock", "unlock"});
  if (rcu_->p.boost) rcu_preempt_unboost();
}

void Kernel::call_rcu(std::function<void()> func, const char* parent) {
  if (!rcu_) {
    func();  // no grace period modelled on the other flavours: the callback runs now
    return;
  }
  fn("call_rcu_preempt", parent, 40, 1);
  const bool flags = !irqs_disabled();
  if (flags) local_irq_disable({"call_rcu_preempt", "lock"});
  RcuCpu& rdp = rcu_->cpu[size_t(smp_processor_id())];
  rcu_advance_callbacks(rdp);
  rdp.nextlist.push_back(std::move(func));
  if (flags) local_irq_enable({"call_rcu_preempt", "unlock"});
}

// __synchronize_rcu with boosting: rcu_boost_readers, wait for wakeme_after_rcu,
// rcu_unboost_readers.
void Kernel::synchronize_rcu(const char* parent) {
  fn("synchronize_rcu", parent, 40, 1);
  if (!rcu_) return;
  if (rcu_->p.boost) rcu_boost_readers();
  Task* me = &current();
  auto done = std::make_shared<bool>(false);
  call_rcu(
      [this, me, done] {
        fn("wakeme_after_rcu", "rcu_process_callbacks", 40, 1);
        *done = true;
        try_to_wake_up(me, "complete");
      },
      "synchronize_rcu");
  for (;;) {
    set_current_state(TASK_UNINTERRUPTIBLE);
    if (*done) break;
    schedule("wait_for_completion");
  }
  set_current_state(TASK_RUNNING);
  if (rcu_->p.boost) rcu_unboost_readers();
}

// __rcu_advance_callbacks: a flip since this CPU last looked moves each stage on; then
// acknowledge the flip (rcu_flip_flag).
void Kernel::rcu_advance_callbacks(RcuCpu& rdp) {
  if (rdp.completed != rcu_->completed) {
    fn("__rcu_advance_callbacks", "rcu_check_callbacks_rt", 40, 1);
    auto& last = rdp.waitlist[kGpStages - 1];
    if (!last.empty()) rcu_trace(rdp, "__rcu_advance_callbacks");  // move2done
    for (auto& f : last) rdp.donelist.push_back(std::move(f));
    last.clear();
    for (int i = kGpStages - 1; i > 0; --i)
      rdp.waitlist[size_t(i)].swap(rdp.waitlist[size_t(i - 1)]);
    rdp.waitlist[0].swap(rdp.nextlist);
    if (!rdp.waitlist[0].empty()) rcu_trace(rdp, "__rcu_advance_callbacks");  // move2wait
    rdp.completed = rcu_->completed;
  }
  if (!rdp.flip_seen) rdp.flip_seen = true;
}

// rcu_try_flip, under rcu_ctrlblk.fliplock (a trylock: a CPU finding it held skips).
void Kernel::rcu_try_flip() {
  RcuState& r = *rcu_;
  if (r.fliplock.owner >= 0) return;
  const bool flags = spin_lock_irqsave(r.fliplock, "rcu_try_flip");
  fn("rcu_try_flip", "rcu_check_callbacks_rt", 30, 1);
  RcuCpu& me = r.cpu[size_t(smp_processor_id())];
  rcu_trace(me, "rcu_try_flip");
  const auto all = [&r](auto pred) {
    for (const RcuCpu& c : r.cpu)
      if (!pred(c)) return false;
    return true;
  };
  switch (r.state) {
    case RcuFlipState::Idle: {
      const bool none = all([](const RcuCpu& c) {
        return c.nextlist.empty() && c.waitlist[0].empty() && c.waitlist[1].empty();
      });
      if (none) break;  // rcu_try_flip_idle: no callback waits for a grace period
      r.completed++;
      for (RcuCpu& c : r.cpu) c.flip_seen = false;
      r.state = RcuFlipState::WaitAck;
      break;
    }
    case RcuFlipState::WaitAck:
      if (all([](const RcuCpu& c) { return c.flip_seen; })) r.state = RcuFlipState::WaitZero;
      break;
    case RcuFlipState::WaitZero: {
      const size_t old = size_t((r.completed + 1) & 1);  // the index before the flip
      int sum = 0;
      for (const RcuCpu& c : r.cpu) sum += c.flipctr[old];
      if (sum != 0) break;  // a reader that began before the flip is still in its section
      for (RcuCpu& c : r.cpu) c.mb_done = false;
      r.state = RcuFlipState::WaitMb;
      break;
    }
    case RcuFlipState::WaitMb:
      if (all([](const RcuCpu& c) { return c.mb_done; })) {
        r.state = RcuFlipState::Idle;
        r.s.grace_periods++;
      }
      break;
  }
  spin_unlock_irqrestore(r.fliplock, flags, {"rcu_try_flip", "unlock"});
}

// rcu_check_callbacks_rt, from the tick (update_process_times).
void Kernel::rcu_check_callbacks(int c) {
  RcuCpu& rdp = rcu_->cpu[size_t(c)];
  fn("rcu_check_callbacks_rt", "update_process_times", 30, 1);
  rcu_trace(rdp, "rcu_check_callbacks_rt");
  if (!rdp.mb_done) rdp.mb_done = true;  // rcu_check_mb: smp_mb() on this CPU
  if (rcu_->completed == rdp.completed) rcu_try_flip();
  rcu_advance_callbacks(rdp);
  if (!rdp.donelist.empty()) raise_softirq(RCU_SOFTIRQ, "rcu_check_callbacks_rt");
}

// rcu_process_callbacks in RCU_SOFTIRQ: take the done list with interrupts off, invoke.
void Kernel::rcu_process_callbacks() {
  fn("rcu_process_callbacks_rt", "__do_softirq", 40, 1);
  const bool flags = !irqs_disabled();
  if (flags) local_irq_disable({"rcu_process_callbacks_rt", "lock"});
  RcuCpu& rdp = rcu_->cpu[size_t(smp_processor_id())];
  auto list = std::move(rdp.donelist);
  rdp.donelist.clear();
  if (flags) local_irq_enable({"rcu_process_callbacks_rt", "unlock"});
  for (auto& f : list) {
    rcu_trace(rdp, "rcu_process_callbacks_rt");  // rcupreempt_trace_invoke
    rcu_->s.callbacks++;
    f();
  }
}

}  // namespace latsim::kernel
