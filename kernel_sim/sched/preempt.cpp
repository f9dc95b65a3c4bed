// preempt_count and the interrupt flag, with the VP tracer's hooks: a critical
// section opens when preemption or interrupts go off and closes when both are on.
#include <string_view>
#include "kernel_sim/kernel.h"
#include "kernel_sim/trace/kernel_blame.h"

namespace latsim::kernel {

bool Kernel::critical(int c) {
  const Task* t = rq_[size_t(c)].curr;
  return (t->preempt_count & ~PREEMPT_ACTIVE) != 0 || !cpus_[size_t(c)]->irqs_enabled();
}

void Kernel::critical_check(int c, bool was, const CodeSite& site) {
  const bool now_critical = critical(c);
  if (blame_ && was != now_critical) blame_->section_edge(c, now_critical);
  if (!was && now_critical) {
    const Task* t = rq_[size_t(c)].curr;
    const auto& pc = pcpu_[size_t(c)];
    const char* parent = std::string_view(site.fn) == pc.last_fn ? pc.last_parent : pc.last_fn;
    tracer_.begin(c, now(), site, parent, t->preempt_count, task_info(*t), pc.taking_lock);
  } else if (was && !now_critical) {
    tracer_.end(c, now(), site, task_info(*rq_[size_t(c)].curr));
  }
  if (obs_ && was != now_critical) obs_->critical_edge(c, now(), now_critical, site);
}

void Kernel::add_preempt_count(uint32_t v, const CodeSite& site) {
  const int c = smp_processor_id();
  const bool was = critical(c);
  Task& t = current();
  const bool from_zero = (t.preempt_count & ~PREEMPT_ACTIVE) == 0;
  t.preempt_count += v;
  if (obs_ && from_zero && (t.preempt_count & ~PREEMPT_ACTIVE) != 0)
    obs_->preempt_toggle(c, now(), true, site);
  if (pstats_) {
    // preempt_lock_start: only the raise from 0 starts a section (latency_start).
    const std::string_view point = site.point;
    const int cause = pstats_pending_                                ? pstats_cause_
                      : point == "irq_enter" || point == "nmi_enter" ? int(CAUSE_ENTRY)
                                                                     : int(CAUSE_SPIN_LOCK);
    if (from_zero)
      pstats_->start(c, now(), source_line(pstats_pending_ ? pstats_site_ : site), cause);
    pstats_pending_ = false;
  }
  critical_check(c, was, site);
}

void Kernel::sub_preempt_count(uint32_t v, const CodeSite& site) {
  const int c = smp_processor_id();
  const bool was = critical(c);
  Task& t = current();
  const bool was_zero = (t.preempt_count & ~PREEMPT_ACTIVE) == 0;
  t.preempt_count -= v;
  if (obs_ && !was_zero && (t.preempt_count & ~PREEMPT_ACTIVE) == 0)
    obs_->preempt_toggle(c, now(), false, site);
  // preempt_lock_stop: the count back at 0 ends the section (latency_end).
  if (pstats_ && (t.preempt_count & ~PREEMPT_ACTIVE) == 0)
    pstats_->end(c, now(), source_line(site));
  critical_check(c, was, site);
}

void Kernel::preempt_enable(const CodeSite& site) {
  sub_preempt_count(PREEMPT_OFFSET, site);
  if (current().need_resched) preempt_schedule(site.fn);
}

void Kernel::local_irq_disable(const CodeSite& site) {
  const int c = smp_processor_id();
  const bool was = critical(c);
  cpus_[size_t(c)]->set_irqs_enabled(false);
  critical_check(c, was, site);
}

void Kernel::local_irq_enable(const CodeSite& site) {
  const int c = smp_processor_id();
  const bool was = critical(c);
  cpus_[size_t(c)]->set_irqs_enabled(true);
  critical_check(c, was, site);
}

// kernel/sched.c: preempt_schedule() returns at once if preempt_count != 0 or
// interrupts are off; else it marks PREEMPT_ACTIVE and calls schedule().
void Kernel::preempt_schedule(const char* parent) {
  if (!p_.kernel_preemption) return;
  Task& t = current();
  if (t.preempt_count != 0 || irqs_disabled()) return;
  do {
    fn("preempt_schedule", parent, 30);
    t.preempt_count += PREEMPT_ACTIVE;
    // The 2001 patch's preempt_schedule also raises the count (ctx_sw_off) around schedule().
    if (pstats_) preempt_disable({"preempt_schedule", "lock"});
    schedule("preempt_schedule");
    if (pstats_) preempt_enable_no_resched({"preempt_schedule", "unlock"});
    t.preempt_count -= PREEMPT_ACTIVE;
  } while (t.need_resched);
}

// The same from the interrupt return path, entered with interrupts off.
void Kernel::preempt_schedule_irq() {
  Task& t = current();
  do {
    t.preempt_count += PREEMPT_ACTIVE;
    if (pstats_) preempt_disable({"preempt_schedule", "lock"});
    local_irq_enable({"preempt_schedule", "lock"});
    schedule("preempt_schedule_irq");
    local_irq_disable({"preempt_schedule", "unlock"});
    if (pstats_) preempt_enable_no_resched({"preempt_schedule", "unlock"});
    t.preempt_count -= PREEMPT_ACTIVE;
  } while (t.need_resched);
}

// cond_resched(): a voluntary preemption point (the VP patch adds many).
void Kernel::cond_resched(const char* parent) {
  Task& t = current();
  if (!t.need_resched || t.preempt_count != 0) return;
  fn("cond_resched", parent, 20);
  t.preempt_count += PREEMPT_ACTIVE;
  schedule("cond_resched");
  t.preempt_count -= PREEMPT_ACTIVE;
}

}  // namespace latsim::kernel
