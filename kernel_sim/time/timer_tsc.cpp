// arch/i386/kernel/timers/timer_tsc.c: mark_offset_tsc() reads the PIT count
// under i8253_lock with port I/O (slow ISA cycles through the PCI bus) and
// detects lost ticks from the TSC. The mcount points mirror the instrumented
// kernel of seed 000 (mark-offset-tsc-mcount.patch).
#include <fmt/format.h>
#include <cmath>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
constexpr uint16_t PIT_MODE = 0x43, PIT_CH0 = 0x40;
constexpr double CLOCK_TICK_RATE = 1193182.0;
}  // namespace

void Kernel::mark_offset_tsc() {
  const char* const me = "mark_offset_tsc";
  const int latch = int((1193182u + unsigned(p_.hz) / 2) / unsigned(p_.hz));
  fn(me, "timer_interrupt", 40);
  mcount(me, "timer_interrupt");
  spin_lock(monotonic_lock_, me);  // write_seqlock(&monotonic_lock)
  mcount(me, "timer_interrupt");
  exec(40);  // rdtsc
  const uint64_t tsc = this_cpu().rdtsc();
  shared(&time_lines_.timer_tsc, 1, true);  // last_tsc_low/high, monotonic_base
  spin_lock(i8253_lock_, me);
  mcount(me, "timer_interrupt");
  outb_p(0x00, PIT_MODE);  // latch the count ASAP
  mcount(me, "timer_interrupt");
  int count = inb_p(PIT_CH0);
  mcount(me, "timer_interrupt");
  count |= inb(PIT_CH0) << 8;
  mcount(me, "timer_interrupt");
  if (count > latch) {  // the PIT lost its programming: reload it
    outb_p(0x34, PIT_MODE);
    outb_p(uint8_t(latch & 0xff), PIT_CH0);
    outb(uint8_t(latch >> 8), PIT_CH0);
    count = latch - 1;
  }
  spin_unlock(i8253_lock_, {me, "unlock"});
  mcount(me, "timer_interrupt");
  // Lost ticks: PIT periods between this interrupt and the last, from the TSC
  // and the PIT count (how long after its period began each handler ran).
  const double period_us = 1e6 / p_.hz;
  const double delay_us = double(latch - count) * 1e6 / CLOCK_TICK_RATE;
  const double since_us = double(tsc - last_tsc_) / this_cpu().mhz() - delay_us + last_delay_us_;
  const long elapsed = std::lround(since_us / period_us);
  last_tsc_ = tsc;
  last_delay_us_ = delay_us;
  exec(60, 1);
  if (elapsed >= 2) {
    LATSIM_DEBUG(time, log_who(), "lost {} tick(s): {:.1f} us since the last", elapsed - 1,
                 since_us);
    jiffies_ += uint64_t(elapsed - 1);
    tstats_.lost_ticks += uint64_t(elapsed - 1);
    if (++lost_in_a_row_ > 100) {
      tstats_.lost_warnings++;
      printk("Losing too many ticks!");
      lost_in_a_row_ = 0;
    }
  } else {
    lost_in_a_row_ = 0;
  }
  mcount(me, "timer_interrupt");
  spin_unlock(monotonic_lock_, {me, "unlock"});
}

}  // namespace latsim::kernel
