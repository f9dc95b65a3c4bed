// kernel/time/posix-timers.c (hrtimer-based, -rt era), kernel/signal.c, hrtimer nanosleep: the two
// ways cyclictest waits. clock_nanosleep arms a hard hrtimer whose callback
// (hrtimer_wakeup) wakes the sleeper from the interrupt. A POSIX timer's
// callback (posix_timer_fn) queues a signal under the owner's siglock and
// wakes it; on -rt it runs in ktimersoftd/N (soft hrtimer), and the interval
// timer is re-armed when the task dequeues the signal (do_schedule_next_timer).
// Without high_res_timers both fall back to the jiffies timer wheel.
#include <cmath>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

uint64_t Kernel::tick_at_or_after(int cpu, sc_time t) const {
  const auto& pc = pcpu_[size_t(cpu)];
  if (t <= pc.tick_epoch) return 0;
  uint64_t n = uint64_t(std::ceil((t - pc.tick_epoch) / pc.tick_period - 1e-9));
  while (tick_time(cpu, n) < t) ++n;
  return n;
}

void Kernel::clock_nanosleep(sc_time abs, const char* parent) {
  fn("sys_clock_nanosleep", parent, 300, 3);
  Task* me = &current();
  if (!p_.high_res_timers) {
    const int cpu = smp_processor_id();
    return sleep_until_tick(cpu, tick_at_or_after(cpu, abs), "do_nanosleep");
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
}

void Kernel::posix_timer_arm(HrPosixTimer& t, sc_time expires, const char* parent) {
  if (p_.high_res_timers) return hrtimer_start(t.hr, expires, parent);
  const int cpu = smp_processor_id();
  t.hr.expires = expires;
  timers_[size_t(cpu)].add(tick_at_or_after(cpu, expires), [this, &t] { posix_timer_fn(t); });
}

void Kernel::timer_settime(HrPosixTimer& t, sc_time first, sc_time interval, const char* parent) {
  fn("sys_timer_settime", parent, 200, 2);
  t.owner = &current();
  t.interval = interval;
  t.hr.soft = p_.flavour == "rt";  // -rt: posix timers expire in softirq context
  t.hr.function = [this, &t] { posix_timer_fn(t); };
  posix_timer_arm(t, first, "common_timer_set");
}

// posix_timer_fn -> posix_timer_event -> send_sigqueue.
void Kernel::posix_timer_fn(HrPosixTimer& t) {
  fn("posix_timer_fn", "__run_hrtimer", 40, 1);
  t.expiries++;
  Task* owner = t.owner;
  fn("send_sigqueue", "posix_timer_fn", 80, 1);
  const bool f = spin_lock_irqsave(owner->siglock, "send_sigqueue");
  if (t.sig_queued) {
    t.overruns++;  // still pending: counted as an overrun, no second signal
  } else {
    t.sig_queued = true;
    fn("signal_wake_up", "send_sigqueue", 40);
    if (owner->state == TASK_INTERRUPTIBLE) try_to_wake_up(owner, "signal_wake_up");
  }
  spin_unlock_irqrestore(owner->siglock, f, {"send_sigqueue", "unlock"});
}

// sigwait(): sys_rt_sigtimedwait dequeues the timer's signal under siglock and
// re-arms the interval timer on this CPU; it sleeps while none is queued.
void Kernel::sigwait(HrPosixTimer& t, const char* parent) {
  fn("sys_rt_sigtimedwait", parent, 200, 2);
  Task& me = current();
  for (;;) {
    spin_lock_irq(me.siglock, "sys_rt_sigtimedwait");
    if (t.sig_queued) break;
    set_current_state(TASK_INTERRUPTIBLE);
    spin_unlock_irq(me.siglock, {"sys_rt_sigtimedwait", "unlock"});
    schedule("sys_rt_sigtimedwait");
    set_current_state(TASK_RUNNING);
  }
  fn("dequeue_signal", "sys_rt_sigtimedwait", 60, 1);
  t.sig_queued = false;
  if (t.interval > sc_core::SC_ZERO_TIME) {  // do_schedule_next_timer: hrtimer_forward
    sc_time next = t.hr.expires + t.interval;
    while (next <= now()) next += t.interval, t.overruns++;
    spin_unlock_irq(me.siglock, {"sys_rt_sigtimedwait", "unlock"});
    posix_timer_arm(t, next, "do_schedule_next_timer");
    return;
  }
  spin_unlock_irq(me.siglock, {"sys_rt_sigtimedwait", "unlock"});
}

}  // namespace latsim::kernel
