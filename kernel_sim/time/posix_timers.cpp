#include "kernel_sim/time/posix_timers.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// Cycle counts below are assumptions of the order of the 2.6.9 paths' length
// (a few hundred instructions each); the locks and the wakeup are modelled.

void PosixTimer::create(Kernel& k) {
  k.fn("sys_timer_create", "syscall_call", 400, 4);
  task_ = &k.current();
}

void PosixTimer::add_timer(Kernel& k) {
  cpu_ = k.smp_processor_id();  // add_timer queues on this CPU's tvec_base
  armed_ = true;
  const uint64_t gen = generation_;
  k.timers(cpu_).add(expires_, [this, &k, gen] { posix_timer_fn(k, gen); });
}

void PosixTimer::settime(Kernel& k, uint64_t first, uint64_t incr) {
  k.fn("sys_timer_settime", "syscall_call", 200, 2);
  const bool flags = k.spin_lock_irqsave(it_lock_, "sys_timer_settime");
  ++generation_;  // del_timer of a previous setting
  expires_ = first;
  incr_ = incr;
  add_timer(k);
  k.spin_unlock_irqrestore(it_lock_, flags, {"sys_timer_settime", "unlock"});
}

void PosixTimer::posix_timer_fn(Kernel& k, uint64_t generation) {
  if (generation != generation_ || !armed_) return;  // deleted or re-set meanwhile
  k.fn("posix_timer_fn", "run_timer_softirq", 40, 1);
  const bool flags = k.spin_lock_irqsave(it_lock_, "posix_timer_fn");
  armed_ = false;
  fired_ = {cpu_, expires_};
  k.fn("posix_timer_event", "posix_timer_fn", 30);
  k.fn("send_sigqueue", "posix_timer_event", 60, 1);
  const bool f2 = k.spin_lock_irqsave(siglock_, "send_sigqueue");
  if (!sig_pending_) {
    sig_pending_ = true;
    k.fn("signal_wake_up", "send_sigqueue", 30);
    k.try_to_wake_up(task_, "signal_wake_up");
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
    k.spin_lock_irq(siglock_, "sys_rt_sigtimedwait");
  }
  k.fn("dequeue_signal", "sys_rt_sigtimedwait", 120, 2);
  sig_pending_ = false;
  const Expiry e = fired_;
  k.spin_unlock_irq(siglock_, {"dequeue_signal", "unlock"});
  // do_schedule_next_timer -> schedule_next_timer: the next period, on this CPU.
  k.fn("do_schedule_next_timer", "dequeue_signal", 60, 1);
  const bool flags = k.spin_lock_irqsave(it_lock_, "do_schedule_next_timer");
  if (incr_ && !armed_) {
    expires_ += incr_;
    const uint64_t now_tick = k.local_ticks(k.smp_processor_id());
    while (expires_ <= now_tick) {  // periods already gone: it_overrun
      expires_ += incr_;
      ++overrun_;
    }
    add_timer(k);
  }
  k.spin_unlock_irqrestore(it_lock_, flags, {"do_schedule_next_timer", "unlock"});
  k.fn("copy_siginfo_to_user", "sys_rt_sigtimedwait", 80, 1);
  return e;
}

void PosixTimer::del(Kernel& k) {
  k.fn("sys_timer_delete", "syscall_call", 150, 2);
  const bool flags = k.spin_lock_irqsave(it_lock_, "sys_timer_delete");
  ++generation_;
  armed_ = false;
  k.spin_unlock_irqrestore(it_lock_, flags, {"sys_timer_delete", "unlock"});
}

}  // namespace latsim::kernel
