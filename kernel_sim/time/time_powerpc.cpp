// arch/powerpc/kernel/time.c (2.6.24): the e300's decrementer as the per-CPU clock event
// (decrementer_clockevent, one-shot only) at the time-base rate; timer_interrupt runs its
// event handler: hrtimer_interrupt with high-resolution timers, else tick_handle_periodic,
// which programs the next tick itself. Jiffies advance on CPU0 (tick_do_timer_cpu).
#include <algorithm>
#include <cmath>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
constexpr uint32_t DECREMENTER_MAX = 0x7fffffff;  // time.c: the largest positive DEC
constexpr uint64_t kMinDeltaTicks = 2;            // min_delta_ns = clockevent_delta2ns(2, ...)
}  // namespace

// time_init: tb_ticks_per_jiffy = ppc_tb_freq / HZ; register_decrementer_clockevent.
void Kernel::init_decrementer_clockevent() {
  const int c = smp_processor_id();
  auto& pc = pcpu_[size_t(c)];
  const double tb_hz = p_.timebase_mhz * 1e6;
  const double per_jiffy = std::floor(tb_hz / p_.hz);
  pc.tick_period = sc_time(per_jiffy / tb_hz, sc_core::SC_SEC);
  pc.tick_epoch = now();
  if (!flavour_.high_res_timers) decrementer_set_next_event(tick_time(c, 1));
}

// clockevents_program_event: (expires - now) in whole time-base ticks (mult/shift
// truncates), at least min_delta; decrementer_set_next_event: set_dec(evt), a mtspr.
void Kernel::decrementer_set_next_event(sc_time expires) {
  fn("decrementer_set_next_event", "clockevents_program_event", 20);
  const double delta = expires > now() ? (expires - now()).to_seconds() : 0.0;
  const auto ticks = uint64_t(std::floor(delta * p_.timebase_mhz * 1e6));
  this_cpu().mtdec(uint32_t(std::min<uint64_t>(std::max(ticks, kMinDeltaTicks), DECREMENTER_MAX)));
}

void Kernel::ppc_timer_interrupt() {
  const int c = smp_processor_id();
  auto& pc = pcpu_[size_t(c)];
  const char* interrupted = pc.last_fn;
  pc.apic_timer_irqs++;  // the local timer interrupts (metrics' per-CPU tick count)
  pc.timer_irq_entry = now();
  pc.tick_irq_log[pc.tick_irq_n++ % pc.tick_irq_log.size()] = {
      uint64_t((now() - pc.tick_epoch) / pc.tick_period + 1e-6), now()};  // 1 ns: rounding
  fn("timer_interrupt", interrupted, 60, 1);
  this_cpu().mtdec(DECREMENTER_MAX);  // set_dec: no further exception until programmed
  irq_enter({"timer_interrupt", "irq_enter"});
  if (flavour_.high_res_timers) {
    hrtimer_interrupt("timer_interrupt");
  } else {
    // tick_handle_periodic -> tick_periodic, then the next tick programmed (one-shot device).
    fn("tick_handle_periodic", "timer_interrupt", 40);
    pc.local_ticks = uint64_t((now() - pc.tick_epoch) / pc.tick_period);
    if (c == 0) {
      spin_lock(xtime_lock_, "tick_periodic");  // write_seqlock(&xtime_lock)
      do_timer("tick_periodic");
      spin_unlock(xtime_lock_, {"tick_periodic", "unlock"});
    }
    update_process_times(pc.irq_from_user, "tick_periodic");
    fn("profile_tick", "tick_periodic", 60, 1);
    decrementer_set_next_event(tick_time(c, pc.local_ticks + 1));
  }
  irq_exit({"timer_interrupt", "irq_exit"});
}

}  // namespace latsim::kernel
