// kernel/softirq.c with the VP patch: with softirq_preemption every softirq
// runs in ksoftirqd/N, a normal task the scheduler can preempt.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::raise_softirq(int nr, const char* parent) {
  fn("raise_softirq", parent, 20);
  __raise_softirq_irqoff(nr);
  if (!in_interrupt()) wakeup_softirqd(smp_processor_id(), "raise_softirq");
}

void Kernel::__raise_softirq_irqoff(int nr) {
  LATSIM_DEBUG(softirq, log_who(), "raise softirq {}", nr);
  pcpu_[size_t(smp_processor_id())].softirq_pending |= 1u << nr;
}

namespace {
// -rt: the timer softirqs belong to ktimersoftd/N, the rest to ksoftirqd/N.
constexpr uint32_t kTimerSoftirqs = (1u << TIMER_SOFTIRQ) | (1u << HRTIMER_SOFTIRQ);
}  // namespace

void Kernel::wakeup_softirqd(int c, const char* parent) {
  if (Task* kt = pcpu_[size_t(c)].ktimersoftd) {
    if ((pcpu_[size_t(c)].softirq_pending & kTimerSoftirqs) && kt->state != TASK_RUNNING) {
      fn("wake_up_process", parent, 20);
      try_to_wake_up(kt, "wake_up_process");
    }
    if (!(pcpu_[size_t(c)].softirq_pending & ~kTimerSoftirqs)) return;
  }
  Task* t = pcpu_[size_t(c)].ksoftirqd;
  if (!t || t->state == TASK_RUNNING) return;
  fn("wake_up_process", parent, 20);
  try_to_wake_up(t, "wake_up_process");
}

void Kernel::do_softirq(const char* parent) {
  const int c = smp_processor_id();
  if (in_interrupt() || !pcpu_[size_t(c)].softirq_pending) return;
  fn("do_softirq", parent, 30);
  if (p_.softirq_preemption) {
    fn("__do_softirq", "do_softirq", 20);
    wakeup_softirqd(c, "do_softirq");
    return;
  }
  const bool flags = this_cpu().irqs_enabled();
  local_irq_disable({"do_softirq", "lock"});
  __do_softirq("do_softirq");
  if (flags) local_irq_enable({"do_softirq", "unlock"});
}

// Run the pending handlers with interrupts on, at most 10 rounds (MAX_SOFTIRQ_RESTART).
void Kernel::__do_softirq(const char* parent, uint32_t mask, bool softirq_count) {
  fn("__do_softirq", parent, 30);
  if (softirq_count) add_preempt_count(SOFTIRQ_OFFSET, {"__do_softirq", "lock"});
  if (obs_) obs_->softirq_entry(smp_processor_id(), now());
  for (int restart = 10; restart > 0; --restart) {
    auto& pc = pcpu_[size_t(smp_processor_id())];
    const uint32_t pending = pc.softirq_pending & mask;
    if (!pending) break;
    pc.softirq_pending &= ~mask;
    (&current() == pc.ksoftirqd ? sstats_.ksoftirqd_runs : sstats_.inline_runs)++;
    local_irq_enable({"__do_softirq", "lock"});
    LATSIM_DEBUG(softirq, log_who(), "run pending {:#x} {}", pending,
                 &current() == pc.ksoftirqd ? "in ksoftirqd" : "inline");
    for (int nr = 0; nr < NR_SOFTIRQS; ++nr) {
      if (!(pending & (1u << nr)) || !softirq_vec_[size_t(nr)]) continue;
      if (obs_) obs_->softirq_action_entry(smp_processor_id(), now(), unsigned(nr));
      softirq_vec_[size_t(nr)]();
      if (obs_) obs_->softirq_action_exit(smp_processor_id(), now(), unsigned(nr));
    }
    local_irq_disable({"__do_softirq", "lock"});
  }
  if (obs_) obs_->softirq_exit(smp_processor_id(), now());
  if (softirq_count) sub_preempt_count(SOFTIRQ_OFFSET, {"__do_softirq", "unlock"});
  const int c = smp_processor_id();
  if (pcpu_[size_t(c)].softirq_pending & mask) wakeup_softirqd(c, "__do_softirq");
}

void Kernel::ksoftirqd(int c) {
  const uint32_t mask = pcpu_[size_t(c)].ktimersoftd ? ~kTimerSoftirqs : ~0u;
  for (;;) {
    set_current_state(TASK_INTERRUPTIBLE);
    while (!(pcpu_[size_t(c)].softirq_pending & mask)) {
      schedule("ksoftirqd");
      set_current_state(TASK_INTERRUPTIBLE);
    }
    set_current_state(TASK_RUNNING);
    // Threaded softirqs (VP softirq_preemption, -rt) run preemptible, without the
    // softirq count: seed 000's rtl8139_poll trace has count 00000001 under
    // net_rx_action, from rx_lock; -rt's softirq threads likewise (as ktimersoftd).
    const bool preemptible = p_.softirq_preemption;
    while (pcpu_[size_t(c)].softirq_pending & mask) {
      if (!preemptible) preempt_disable({"ksoftirqd", "lock"});
      local_irq_disable({"ksoftirqd", "lock"});
      __do_softirq("ksoftirqd", mask, !preemptible);
      local_irq_enable({"ksoftirqd", "unlock"});
      if (!preemptible) preempt_enable({"ksoftirqd", "unlock"});
      cond_resched("ksoftirqd");
    }
  }
}

}  // namespace latsim::kernel

namespace latsim::kernel {

// -rt ktimersoftd/N (kernel/softirq.c run_ksoftirqd for the timer softirqs): the
// handlers run preemptible, interrupts on, no softirq count: a woken higher
// priority task preempts the thread in the middle of a timer callback.
void Kernel::ktimersoftd(int c) {
  auto& pc = pcpu_[size_t(c)];
  for (;;) {
    set_current_state(TASK_INTERRUPTIBLE);
    while (!(pc.softirq_pending & kTimerSoftirqs)) {
      schedule("ktimersoftd");
      set_current_state(TASK_INTERRUPTIBLE);
    }
    set_current_state(TASK_RUNNING);
    while (pc.softirq_pending & kTimerSoftirqs) {
      fn("run_ksoftirqd", "smpboot_thread_fn", 30);
      local_irq_disable({"run_ksoftirqd", "lock"});
      // Read with interrupts off: a timer interrupt inside run_ksoftirqd may have
      // raised HRTIMER_SOFTIRQ since the loop test, and clearing it unread loses it.
      const uint32_t pending = pc.softirq_pending & kTimerSoftirqs;
      pc.softirq_pending &= ~kTimerSoftirqs;
      local_irq_enable({"run_ksoftirqd", "unlock"});
      for (int nr = 0; nr < NR_SOFTIRQS; ++nr)
        if ((pending & (1u << nr)) && softirq_vec_[size_t(nr)]) softirq_vec_[size_t(nr)]();
      cond_resched("ktimersoftd");
    }
  }
}

}  // namespace latsim::kernel
