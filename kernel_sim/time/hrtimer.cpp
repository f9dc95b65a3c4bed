// kernel/time/hrtimer.c + tick-sched.c (high_res_timers): the local APIC timer
// is one-shot and always programmed for the earliest queued hrtimer; the
// periodic tick itself is an hrtimer (tick_sched_timer).
#include <cmath>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// tick_program_event -> lapic_next_event: TMICT counts the bus clock / 16.
void Kernel::hrtimer_program(int c) {
  auto& q = hrtimer_q_[size_t(c)];
  if (q.empty()) return;
  if (!p_.local_apic) return decrementer_set_next_event(q.begin()->first.first);
  const double delta_us = (q.begin()->first.first - now()).to_seconds() * 1e6;
  const double count = std::ceil(std::max(delta_us, 0.0) * p_.apic_bus_mhz / 16.0);
  this_cpu().apic_write(0x380, uint32_t(std::max(count, 1.0)));
}

void Kernel::hrtimer_start(Hrtimer& t, sc_time expires, const char* parent) {
  fn("hrtimer_start", parent, 80, 1);
  const int c = smp_processor_id();
  const bool f = spin_lock_irqsave(hrtimer_lock_[size_t(c)], "hrtimer_start");
  if (t.cpu >= 0) hrtimer_q_[size_t(t.cpu)].erase({t.expires, t.seq});
  t.expires = expires;
  t.seq = ++hrtimer_seq_;
  t.cpu = c;
  auto& q = hrtimer_q_[size_t(c)];
  const bool first = q.empty() || std::make_pair(expires, t.seq) < q.begin()->first;
  q.emplace(std::make_pair(expires, t.seq), &t);
  if (first) hrtimer_program(c);  // hrtimer_reprogram
  spin_unlock_irqrestore(hrtimer_lock_[size_t(c)], f, {"hrtimer_start", "unlock"});
}

void Kernel::hrtimer_cancel(Hrtimer& t) {
  if (t.cpu < 0) return;
  hrtimer_q_[size_t(t.cpu)].erase({t.expires, t.seq});
  t.cpu = -1;
}

// hrtimer_nanosleep (clock_nanosleep, TIMER_ABSTIME): a hard hrtimer whose
// callback, hrtimer_wakeup, wakes the sleeper from the interrupt itself. Without
// high_res_timers the sleep ends at a tick of the timer wheel instead.
sc_time Kernel::clock_nanosleep(sc_time abs, const char* parent) {
  fn("sys_clock_nanosleep", parent, 300, 3);
  Task* me = &current();
  if (!flavour_.high_res_timers) {
    const int cpu = smp_processor_id();
    sleep_until_tick(cpu, tick_at_or_after(cpu, abs), "do_nanosleep");
    return sc_core::SC_ZERO_TIME;
  }
  fn("hrtimer_nanosleep", "sys_clock_nanosleep", 60, 1);
  bool fired = false;
  Hrtimer t;
  t.function = [this, me, &fired] {
    fn("hrtimer_wakeup", "__run_hrtimer", 30);
    fired = true;
    try_to_wake_up(me, "hrtimer_wakeup");
  };
  set_current_state(TASK_INTERRUPTIBLE);
  hrtimer_start(t, abs, "do_nanosleep");
  while (!fired) {
    schedule("do_nanosleep");
    if (!fired) set_current_state(TASK_INTERRUPTIBLE);
  }
  set_current_state(TASK_RUNNING);
  return t.irq_entry;
}

// Called from smp_apic_timer_interrupt in hardirq context.
void Kernel::hrtimer_interrupt(const char* parent) {
  const int c = smp_processor_id();
  fn("hrtimer_interrupt", parent, 80, 1);
  auto& q = hrtimer_q_[size_t(c)];
  spin_lock(hrtimer_lock_[size_t(c)], "hrtimer_interrupt");
  while (!q.empty() && q.begin()->first.first <= now()) {
    Hrtimer* t = q.begin()->second;
    q.erase(q.begin());
    t->cpu = -1;
    t->irq_entry = pcpu_[size_t(c)].timer_irq_entry;
    if (t->soft) {  // -rt: HRTIMER_SOFTIRQ expires it in ktimersoftd
      pcpu_[size_t(c)].hrtimer_soft.push_back(t);
      raise_softirq(HRTIMER_SOFTIRQ, "hrtimer_interrupt");
      continue;
    }
    spin_unlock(hrtimer_lock_[size_t(c)], {"__run_hrtimer", "unlock"});
    fn("__run_hrtimer", "hrtimer_interrupt", 40);
    t->function();
    spin_lock(hrtimer_lock_[size_t(c)], "__run_hrtimer");
  }
  hrtimer_program(c);
  spin_unlock(hrtimer_lock_[size_t(c)], {"hrtimer_interrupt", "unlock"});
}

// HRTIMER_SOFTIRQ (hrtimer_run_softirq): the soft timers that expired.
void Kernel::run_hrtimer_softirq() {
  const int c = smp_processor_id();
  fn("hrtimer_run_softirq", "__do_softirq", 40, 1);
  auto& soft = pcpu_[size_t(c)].hrtimer_soft;
  while (!soft.empty()) {
    Hrtimer* t = soft.front();
    soft.pop_front();
    fn("__run_hrtimer", "hrtimer_run_softirq", 40);
    t->function();
  }
}

// tick_sched_timer: the periodic tick's work, then forward to the next tick.
void Kernel::tick_sched_timer(int c) {
  auto& pc = pcpu_[size_t(c)];
  pc.local_ticks = pc.hres_tick;
  fn("tick_sched_timer", "__run_hrtimer", 40);
  if (!p_.pit && c == 0) {  // no IRQ 0: tick_do_update_jiffies64 on tick_do_timer_cpu
    spin_lock(xtime_lock_, "tick_do_update_jiffies64");
    do_timer("tick_do_update_jiffies64");
    spin_unlock(xtime_lock_, {"tick_do_update_jiffies64", "unlock"});
  }
  fn("profile_tick", "tick_sched_timer", 60, 1);
  fn("profile_hit", "tick_sched_timer", 60, 1);
  update_process_times(pc.irq_from_user, "tick_sched_timer");
  Hrtimer& t = pc.tick_timer;
  do {
    pc.hres_tick++;
  } while (tick_time(c, pc.hres_tick) <= now());  // hrtimer_forward over missed ticks
  t.expires = tick_time(c, pc.hres_tick);
  t.seq = ++hrtimer_seq_;
  t.cpu = c;
  hrtimer_q_[size_t(c)].emplace(std::make_pair(t.expires, t.seq), &t);
}

void Kernel::tick_setup_sched_timer(int c) {
  auto& pc = pcpu_[size_t(c)];
  pc.hres_tick = 1;
  pc.tick_timer.function = [this, c] { tick_sched_timer(c); };
  hrtimer_start(pc.tick_timer, tick_time(c, 1), "tick_setup_sched_timer");
}

}  // namespace latsim::kernel
