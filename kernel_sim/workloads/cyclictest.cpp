#include "kernel_sim/workloads/cyclictest.h"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace latsim::kernel {

void Cyclictest::start(Kernel& k) {
  Task* t = k.create_task(
      "cyclictest", [this, &k] { run(k); }, Policy::Fifo, prio_);
  s_.pid = t->pid;
}

void Cyclictest::run(Kernel& k) {
  const uint64_t step = std::max<uint64_t>(
      1, uint64_t(std::llround(interval_us_ * 1e-6 / k.tick_period().to_seconds())));
  int cpu = k.smp_processor_id();
  uint64_t tick = k.local_ticks(cpu) + 2;
  for (;;) {
    // clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next)
    k.fn("sys_clock_nanosleep", "syscall_call", 300, 3);
    const sc_core::sc_time next = k.tick_time(cpu, tick);
    k.sleep_until_tick(cpu, tick, "do_nanosleep");
    k.fn("sys_clock_gettime", "syscall_call", 150, 1);
    const int64_t diff =
        int64_t(std::floor((k.now().to_seconds() - next.to_seconds()) * 1e6));  // µs
    s_.act = diff;
    if (s_.cycles == 0 || diff < s_.min) s_.min = diff;
    if (diff > s_.max) s_.max = diff;
    s_.sum += double(diff);
    s_.cycles++;
    s_.histogram[diff]++;
    k.user_exec(2000, 4);
    // The timer was queued on the CPU the thread slept on; stay on its tick grid.
    tick += step;
    const uint64_t now_tick = k.local_ticks(cpu);
    if (tick <= now_tick) tick = now_tick + 1;  // overrun: the next period we can still make
  }
}

std::string Cyclictest::summary_line(int thread) const {
  const long avg = s_.cycles ? long(s_.sum / double(s_.cycles)) : 0;
  return fmt::format("T:{:2d} ({:5d}) P:{:2d} I:{} C:{:7d} Min:{:7d} Act:{:5d} Avg:{:5d} Max:{:8d}",
                     thread, s_.pid, prio_, interval_us_, s_.cycles, s_.min, s_.act, avg, s_.max);
}

}  // namespace latsim::kernel
