#include "kernel_sim/time/posix_timers.h"
#include <algorithm>
#include <cmath>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// Cycle counts below are assumptions of the order of the paths' length (a few
// hundred instructions each); the locks, the wakeup and the expiry path are modelled.

void PosixTimer::create(Kernel& k) {
  k.fn("sys_timer_create", "syscall_call", 400, 4);
  task_ = &k.current();
  hres_ = k.flavour().high_res_timers;
  // -rt: posix_timer_fn is a soft hrtimer callback (HRTIMER_SOFTIRQ in ktimersoftd).
  hr_.soft = k.flavour().ktimersoftd;
  hr_.function = [this, &k] { posix_timer_fn(k, generation_, "__run_hrtimer"); };
}

void PosixTimer::arm(Kernel& k) {
  cpu_ = k.smp_processor_id();  // add_timer / hrtimer_start queue on this CPU's base
  armed_ = true;
  if (hres_) return k.hrtimer_start(hr_, expires_, "common_timer_set");
  const uint64_t gen = generation_;
  wheel_id_ =
      k.timers(cpu_).add(tick_, [this, &k, gen] { posix_timer_fn(k, gen, "run_timer_softirq"); });
}

sc_core::sc_time PosixTimer::due(Kernel& k) const {
  return hres_ ? expires_ : k.tick_time(cpu_, tick_);
}

void PosixTimer::settime(Kernel& k, sc_core::sc_time first, sc_core::sc_time interval) {
  k.fn("sys_timer_settime", "syscall_call", 200, 2);
  const bool flags = k.spin_lock_irqsave(it_lock_, "sys_timer_settime");
  ++generation_;  // common_timer_set: del_timer / hrtimer_try_to_cancel the old setting
  if (armed_) hres_ ? k.hrtimer_cancel(hr_) : (void)k.timers(cpu_).del(wheel_id_);
  const int cpu = k.smp_processor_id();
  expires_ = first;
  interval_ = interval;
  // The jiffies path rounds up to the tick grid (timespec_to_jiffies).
  tick_ = k.tick_at_or_after(cpu, first);
  incr_ticks_ = interval > sc_core::SC_ZERO_TIME
                    ? std::max<uint64_t>(1, uint64_t(std::llround(interval / k.tick_period())))
                    : 0;
  arm(k);
  k.spin_unlock_irqrestore(it_lock_, flags, {"sys_timer_settime", "unlock"});
}

// posix_timer_fn -> posix_timer_event -> send_sigqueue, with it_lock held.
void PosixTimer::posix_timer_fn(Kernel& k, uint64_t generation, const char* parent) {
  if (generation != generation_ || !armed_) return;  // deleted or re-set meanwhile
  k.fn("posix_timer_fn", parent, 40, 1);
  const bool flags = k.spin_lock_irqsave(it_lock_, "posix_timer_fn");
  armed_ = false;
  ++expiries_;
  fired_ = {cpu_, tick_, due(k), hr_.irq_entry};
  k.fn("posix_timer_event", "posix_timer_fn", 30);
  k.fn("send_sigqueue", "posix_timer_event", 60, 1);
  const bool f2 = k.spin_lock_irqsave(siglock_, "send_sigqueue");
  if (!sig_pending_) {
    sig_pending_ = true;
    k.fn("signal_wake_up", "send_sigqueue", 30);
    k.try_to_wake_up(task_, "signal_wake_up");
  } else {
    ++overrun_;  // still queued: the expiry only counts as an overrun
  }
  k.spin_unlock_irqrestore(siglock_, f2, {"send_sigqueue", "unlock"});
  k.spin_unlock_irqrestore(it_lock_, flags, {"posix_timer_fn", "unlock"});
}

PosixTimer::Expiry PosixTimer::sigwait(Kernel& k) {
  k.fn("sys_rt_sigtimedwait", "syscall_call", 200, 3);
  k.spin_lock_irq(siglock_, "sys_rt_sigtimedwait");
  while (!sig_pending_) {
    k.set_current_state(TASK_INTERRUPTIBLE);
    k.spin_unlock_irq(siglock_, {"sys_rt_sigtimedwait", "unlock"});
    k.schedule("sys_rt_sigtimedwait");
    k.set_current_state(TASK_RUNNING);
    k.spin_lock_irq(siglock_, "sys_rt_sigtimedwait");
  }
  k.fn("dequeue_signal", "sys_rt_sigtimedwait", 120, 2);
  sig_pending_ = false;
  const Expiry e = fired_;
  k.spin_unlock_irq(siglock_, {"dequeue_signal", "unlock"});
  // do_schedule_next_timer -> schedule_next_timer: the next period, on this CPU.
  k.fn("do_schedule_next_timer", "dequeue_signal", 60, 1);
  const bool flags = k.spin_lock_irqsave(it_lock_, "do_schedule_next_timer");
  if (incr_ticks_ && !armed_) {
    if (hres_) {  // hrtimer_forward: skip the periods already gone
      expires_ += interval_;
      while (expires_ <= k.now()) expires_ += interval_, ++overrun_;
    } else {  // periods on the local tick grid
      tick_ += incr_ticks_;
      const uint64_t now_tick = k.local_ticks(k.smp_processor_id());
      while (tick_ <= now_tick) tick_ += incr_ticks_, ++overrun_;
    }
    arm(k);
  }
  k.spin_unlock_irqrestore(it_lock_, flags, {"do_schedule_next_timer", "unlock"});
  k.fn("copy_siginfo_to_user", "sys_rt_sigtimedwait", 80, 1);
  return e;
}

void PosixTimer::del(Kernel& k) {
  k.fn("sys_timer_delete", "syscall_call", 150, 2);
  const bool flags = k.spin_lock_irqsave(it_lock_, "sys_timer_delete");
  ++generation_;
  if (armed_) hres_ ? k.hrtimer_cancel(hr_) : (void)k.timers(cpu_).del(wheel_id_);
  armed_ = false;
  k.spin_unlock_irqrestore(it_lock_, flags, {"sys_timer_delete", "unlock"});
}

}  // namespace latsim::kernel
