// kernel/spinlock.c (2.6.9 SMP + preempt): spin with preemption off until the
// other CPU lets go; the irq variants save and disable the interrupt flag.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::spin_lock(Spinlock& l, const char* parent) {
  fn("spin_lock", parent, 20);
  preempt_disable({"spin_lock", "lock"});
  const int c = smp_processor_id();
  l.acquisitions++;
  if (l.owner >= 0 && l.owner != c) {
    l.contended++;
    const sc_time t0 = now();
    while (l.owner >= 0) {
      if (!this_cpu().spin_until(l.released)) handle_interrupt();
    }
    l.spin_total += now() - t0;
    if (now() - t0 > l.max_spin) l.max_spin = now() - t0;
  }
  l.acquired_at(c, now());
  exec(10, 1);  // the lock's cache line, usually last touched by the other CPU
}

void Kernel::spin_unlock(Spinlock& l, const CodeSite& site) {
  l.released_at(now());
  preempt_enable(site);
}

void Kernel::spin_lock_irq(Spinlock& l, const char* parent) {
  fn("spin_lock_irq", parent, 10);
  spin_lock_irqsave(l, "spin_lock_irq");
}

void Kernel::spin_unlock_irq(Spinlock& l, const CodeSite& site) {
  l.released_at(now());
  local_irq_enable(site);
  preempt_enable(site);
}

bool Kernel::spin_lock_irqsave(Spinlock& l, const char* parent) {
  fn("__spin_lock_irqsave", parent, 20);
  const CodeSite site{"__spin_lock_irqsave", "lock"};
  const int c = smp_processor_id();
  const bool flags = this_cpu().irqs_enabled();
  l.acquisitions++;
  const sc_time t0 = now();
  for (;;) {
    local_irq_disable(site);
    if (l.owner < 0 || l.owner == c) break;
    // Contended: spin with interrupts restored, as __spin_lock_irqsave does.
    l.contended++;
    if (flags) local_irq_enable(site);
    while (l.owner >= 0) {
      if (!this_cpu().spin_until(l.released)) handle_interrupt();
    }
  }
  l.spin_total += now() - t0;
  if (now() - t0 > l.max_spin) l.max_spin = now() - t0;
  preempt_disable(site);
  l.acquired_at(c, now());
  exec(10, 1);
  return flags;
}

void Kernel::spin_unlock_irqrestore(Spinlock& l, bool flags, const CodeSite& site) {
  l.released_at(now());
  if (flags) local_irq_enable(site);
  preempt_enable(site);
}

}  // namespace latsim::kernel
