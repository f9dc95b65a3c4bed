// kernel/spinlock.c (2.6.9 SMP + preempt): spin with preemption off until the
// other CPU lets go; the irq variants save and disable the interrupt flag. On
// the rt flavour, locks marked sleeping go to the rt_mutex (locks/rtmutex.cpp).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

bool Kernel::spin_until(SpinWait& w, const char* lock, int holder) {
  PerCpu& pc = pcpu_[size_t(smp_processor_id())];
  if (tracer_.tracing()) {  // the holder as the spin begins, for the blame ledger
    const Task* h = holder >= 0 ? rq_[size_t(holder)].curr : nullptr;
    pc.spin_on = {BlameKind::Spin,
                  BlameContext::Kernel,
                  true,  // spin_lock spins with preemption off
                  h ? pcpu_[size_t(holder)].last_fn : "",
                  lock,
                  -1,
                  h ? h->pid : -1,
                  holder};
  }
  ++w.spinners;
  const sc_time from = now();
  const bool released = this_cpu().spin_until(w.released);
  --w.spinners;
  if (obs_) obs_->lock_spin(smp_processor_id(), from, now(), lock, holder);
  return released;
}

void Kernel::lock_acquired(Spinlock& l) {
  if (!l.registered) {
    l.registered = true;
    locks_.push_back(&l);
  }
}

void Kernel::unregister_lock(Spinlock& l) {
  locks_.erase(std::find(locks_.begin(), locks_.end(), &l));
  l.registered = false;
}

void Kernel::destroy_lock(Spinlock& l) {
  if (l.owner >= 0 || l.owner_task || !l.waiters.empty())
    throw std::logic_error(std::string("destroying a held lock: ") + l.name);
  if (l.registered) unregister_lock(l);
  forget(&l, sizeof(Spinlock));
}

// Before Spinlock::released_at: the hold started at held_since.
void Kernel::lock_released(Spinlock& l) {
  l.hold_total += now() - l.held_since;
  l.releases++;
}

std::vector<LockStats> Kernel::lock_stats() const {
  std::vector<LockStats> out;
  for (const Spinlock* l : locks_)
    out.push_back({l->name, l->acquisitions, l->contended, l->releases, l->spin_total,
                   l->hold_total, l->max_hold, l->max_spin});
  return out;
}

// `lock; decb` (spin_lock) or `lock; subl` (read_lock, write_lock) on the lock word. A P6
// does a locked op on a write-back line it holds inside its cache, without LOCK# (Intel
// SDM vol. 3, 8.1.4 "cache locking"): the line comes over the FSB only when another CPU
// wrote it since this one did (an RFO) or it was evicted. Without cache locking (a
// Pentium's LOCK# cycle) every acquisition is a bus transaction.
void Kernel::lock_line(const void* lock) {
  exec(10, p_.cache_locking ? line_fills(lock, 1, true) : 1);
}

void Kernel::spin_lock(Spinlock& l, const char* parent) {
  if (sleeping_lock(l)) return rt_spin_lock(l, parent);
  fn("spin_lock", parent, 20);
  if (&l == &kernel_flag_ && std::string_view(bkl_cause_) == "BKL")
    latency_site(CAUSE_BKL, {bkl_caller_, "lock_kernel"});
  else if (&l == &kernel_flag_)
    latency_site(CAUSE_REACQ_BKL, {"schedule", "reacquire_kernel_lock"});
  else
    latency_site(CAUSE_SPIN_LOCK, {parent, "lock"});
  const int c = smp_processor_id();
  pcpu_[size_t(c)].taking_lock = l.name;  // a section this opens is this lock's
  preempt_disable({"spin_lock", "lock"});
  pcpu_[size_t(c)].taking_lock = "";
  l.acquisitions++;
  if (l.owner >= 0 && l.owner != c) {
    l.contended++;
    const sc_time t0 = now();
    while (l.owner >= 0) {
      if (!spin_until(l.released, l.name, l.owner)) handle_interrupt();
    }
    l.spin_total += now() - t0;
    if (now() - t0 > l.max_spin) l.max_spin = now() - t0;
    LATSIM_DEBUG(locks, log_who(), "{} contended: spun {} ns", l.name, (now() - t0).value() / 1000);
  }
  l.acquired_at(c, now());
  lock_acquired(l);
  lock_line(l.line());
}

void Kernel::spin_unlock(Spinlock& l, const CodeSite& site) {
  if (sleeping_lock(l)) return rt_spin_unlock(l, site);
  lock_released(l);
  l.released_at(now());
  preempt_enable(site);
}

void Kernel::spin_lock_irq(Spinlock& l, const char* parent) {
  if (sleeping_lock(l)) return rt_spin_lock(l, parent);  // -rt: interrupts stay on
  fn("spin_lock_irq", parent, 10);
  irq_lock_caller_ = parent;
  spin_lock_irqsave(l, "spin_lock_irq");
}

void Kernel::spin_unlock_irq(Spinlock& l, const CodeSite& site) {
  if (sleeping_lock(l)) return rt_spin_unlock(l, site);
  lock_released(l);
  l.released_at(now());
  local_irq_enable(site);
  preempt_enable(site);
}

bool Kernel::spin_lock_irqsave(Spinlock& l, const char* parent) {
  if (sleeping_lock(l)) {
    rt_spin_lock(l, parent);
    return this_cpu().irqs_enabled();
  }
  fn("__spin_lock_irqsave", parent, 20);
  const CodeSite site{"__spin_lock_irqsave", "lock"};
  const int c = smp_processor_id();
  const bool flags = this_cpu().irqs_enabled();
  l.acquisitions++;
  const sc_time t0 = now();
  for (;;) {
    pcpu_[size_t(c)].taking_lock = l.name;
    local_irq_disable(site);
    pcpu_[size_t(c)].taking_lock = "";
    if (l.owner < 0 || l.owner == c) break;
    // Contended: spin with interrupts restored, as __spin_lock_irqsave does.
    l.contended++;
    if (flags) local_irq_enable(site);
    while (l.owner >= 0) {
      if (!spin_until(l.released, l.name, l.owner)) handle_interrupt();
    }
  }
  l.spin_total += now() - t0;
  if (now() - t0 > l.max_spin) l.max_spin = now() - t0;
  latency_site(CAUSE_SPIN_LOCK, {irq_lock_caller_ ? irq_lock_caller_ : parent, "lock"});
  irq_lock_caller_ = nullptr;
  preempt_disable(site);
  l.acquired_at(c, now());
  lock_acquired(l);
  lock_line(l.line());
  return flags;
}

void Kernel::spin_unlock_irqrestore(Spinlock& l, bool flags, const CodeSite& site) {
  if (sleeping_lock(l)) return rt_spin_unlock(l, site);
  lock_released(l);
  l.released_at(now());
  if (flags) local_irq_enable(site);
  preempt_enable(site);
}

// kernel/sched.c cond_resched_lock(): drop a lock to let a waiting task run.
void Kernel::cond_resched_lock(Spinlock& l, const char* parent) {
  Task& t = current();
  if (!t.need_resched || (t.preempt_count & ~PREEMPT_ACTIVE) > PREEMPT_OFFSET) return;
  if (sleeping_lock(l)) {
    rt_spin_unlock(l, {"cond_resched_lock", "unlock"});
    cond_resched(parent);
    rt_spin_lock(l, "cond_resched_lock");
    return;
  }
  // _raw_spin_unlock + preempt_enable_no_resched + __cond_resched + spin_lock.
  lock_released(l);
  l.released_at(now());
  sub_preempt_count(PREEMPT_OFFSET, {"cond_resched_lock", "unlock"});
  fn("cond_resched_lock", parent, 20);
  t.preempt_count += PREEMPT_ACTIVE;
  schedule("cond_resched_lock");
  t.preempt_count -= PREEMPT_ACTIVE;
  spin_lock(l, "cond_resched_lock");
}

}  // namespace latsim::kernel
