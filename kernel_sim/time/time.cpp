// arch/i386/kernel/time.c and kernel/timer.c: the PIT tick (jiffies, wall
// time), the per-CPU local tick (process times, timers), and timer expiry.
#include <cmath>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::timer_interrupt(const char* parent) {
  fn("timer_interrupt", parent, 40);
  spin_lock(xtime_lock_, "timer_interrupt");  // write_seqlock(&xtime_lock)
  mark_offset_tsc();
  if (!pic_mode() && p_.timer_ack) {
    // do_timer_interrupt (time.c, CONFIG_X86_IO_APIC): ack IRQ0 in the AEOI-mode 8259A
    // with a poll command so its INT (the NMI watchdog's pin 0 path) drops.
    spin_lock(i8259A_lock_, "timer_interrupt");
    outb(0x0c, 0x20);  // OCW3: poll
    inb(0x20);         // the poll read acts as an interrupt acknowledge
    spin_unlock(i8259A_lock_, {"timer_interrupt", "unlock"});
  }
  do_timer("timer_interrupt");
  if (pic_mode()) {
    // No local APIC timer: 2.4 UP's do_timer runs update_process_times itself.
    auto& pc = pcpu_[size_t(smp_processor_id())];
    pc.local_ticks = uint64_t((now() - pc.tick_epoch) / pc.tick_period);
    update_process_times(pc.irq_from_user, "do_timer");
  }
  spin_unlock(xtime_lock_, {"timer_interrupt", "unlock"});
}

void Kernel::do_timer(const char* parent) {
  jiffies_++;
  tstats_.ticks++;
  LATSIM_DEBUG(time, log_who(), "tick: jiffies {}", jiffies_);
  fn("do_timer", parent, 40, 1);
  shared(&time_lines_.jiffies, 1, true);  // jiffies_64++
  shared(&time_lines_.xtime, 2, true);    // update_times: wall_jiffies, xtime, NTP state
  fn("update_wall_time", "do_timer", 30);
  fn("update_wall_time_one_tick", "update_wall_time", 30);
}

void Kernel::update_process_times(bool user, const char* parent) {
  fn("update_process_times", parent, 30);
  fn("update_one_process", "update_process_times", 40, 1);
  fn("run_local_timers", "update_process_times", 20);
  raise_softirq(TIMER_SOFTIRQ, "update_process_times");
  if (rcu_) rcu_check_callbacks(smp_processor_id());
  scheduler_tick(user);
}

void Kernel::run_timer_softirq() {
  const int c = smp_processor_id();
  fn("run_timer_softirq", "__do_softirq", 60, 1);
  shared(&time_lines_.jiffies, 1, false);  // time_after_eq(jiffies, base->timer_jiffies)
  spin_lock_irq(timer_base_lock(c), "run_timer_softirq");
  timers_[size_t(c)].run_expired(
      pcpu_[size_t(c)].local_ticks,
      [&](std::function<void()>& f) {
        // __run_timers drops the base lock around each timer function.
        spin_unlock_irq(timer_base_lock(c), {"run_timer_softirq", "unlock"});
        fn("process_timeout", "run_timer_softirq", 20);
        f();
        spin_lock_irq(timer_base_lock(c), "run_timer_softirq");
      },
      [&](uint64_t moved) {
        // cascade(): unlink and internal_add_timer each timer of the slot, under
        // the base lock with interrupts off; assumption: ~30 cycles and one cold
        // timer_list line per timer moved.
        fn("cascade", "run_timer_softirq", 20 + 30 * moved, 0, moved);
      });
  spin_unlock_irq(timer_base_lock(c), {"run_timer_softirq", "unlock"});
}

uint64_t Kernel::tick_at_or_after(int cpu, sc_time t) const {
  const auto& pc = pcpu_[size_t(cpu)];
  if (t <= pc.tick_epoch) return 0;
  uint64_t n = uint64_t(std::ceil((t - pc.tick_epoch) / pc.tick_period - 1e-9));
  while (tick_time(cpu, n) < t) ++n;
  return n;
}

sc_core::sc_time Kernel::tick_irq_entry(int cpu, uint64_t n) const {
  const auto& p = pcpu_[size_t(cpu)];
  const uint64_t size = p.tick_irq_log.size();
  const uint64_t first = p.tick_irq_n > size ? p.tick_irq_n - size : 0;
  for (uint64_t i = first; i < p.tick_irq_n; ++i) {
    const auto& e = p.tick_irq_log[i % size];
    if (e.first >= n) return e.second;
  }
  return sc_core::SC_ZERO_TIME;
}

}  // namespace latsim::kernel
