// kernel/timer.c (2.6.9) schedule_timeout: a process_timeout timer on this CPU's
// base around schedule(), deleted by del_singleshot_timer_sync after the wake-up.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::schedule_timeout(uint64_t timeout, const char* parent) {
  fn("schedule_timeout", parent, 30);
  const int c = smp_processor_id();
  Task* t = &current();
  // add_timer -> __mod_timer: queued on this CPU's tvec_base under base->lock, irqs off.
  fn("__mod_timer", "schedule_timeout", 30);
  bool flags = spin_lock_irqsave(timer_base_lock(c), "__mod_timer");
  const TimerList::Id id = timers_[size_t(c)].add(
      pcpu_[size_t(c)].local_ticks + timeout, [this, t] { try_to_wake_up(t, "process_timeout"); });
  spin_unlock_irqrestore(timer_base_lock(c), flags, {"__mod_timer", "unlock"});
  schedule("schedule_timeout");
  // del_singleshot_timer_sync -> del_timer: timer->base is the queuing CPU's base, wherever
  // the task woke up (seed 000, -Q5: "del_timer (del_singleshot_timer_sync)" in latencytest).
  fn("del_singleshot_timer_sync", "schedule_timeout", 20);
  fn("del_timer", "del_singleshot_timer_sync", 20);
  flags = spin_lock_irqsave(timer_base_lock(c), "del_timer");
  timers_[size_t(c)].del(id);
  spin_unlock_irqrestore(timer_base_lock(c), flags, {"del_timer", "unlock"});
}

}  // namespace latsim::kernel
