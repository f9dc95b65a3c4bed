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
    if (histogram_us_ > 0 && diff >= histogram_us_) {  // cyclictest: hist_overflow + outliers[]
      s_.overflows++;
      if (s_.outliers.size() < size_t(histogram_us_)) s_.outliers.push_back(s_.cycles - 1);
    }
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

namespace latsim::kernel {

std::string Cyclictest::histogram_block(const std::vector<const Cyclictest*>& threads) {
  // Layout of rt-tests' print_hist(): bucket rows "%06d " with per-thread "%06lu"
  // columns separated by tabs, then the per-thread summary rows.
  int buckets = 0;
  for (auto* t : threads) buckets = std::max(buckets, t->histogram_us_);
  std::string out = "# Histogram\n";
  for (int i = 0; i < buckets; ++i) {
    out += fmt::format("{:06d} ", i);
    for (size_t j = 0; j < threads.size(); ++j) {
      auto it = threads[j]->s_.histogram.find(i);
      out += fmt::format("{:06d}", it == threads[j]->s_.histogram.end() ? 0 : it->second);
      if (j + 1 < threads.size()) out += "\t";
    }
    out += "\n";
  }
  auto row = [&](const char* title, const char* f, auto value) {
    out += title;
    for (auto* t : threads) out += fmt::format(fmt::runtime(f), value(*t));
    out += "\n";
  };
  row("# Total:", " {:09d}", [](const Cyclictest& t) { return t.s_.cycles - t.s_.overflows; });
  row("# Min Latencies:", " {:05d}", [](const Cyclictest& t) { return t.s_.min; });
  row("# Avg Latencies:", " {:05d}", [](const Cyclictest& t) {
    return t.s_.cycles ? int64_t(t.s_.sum / double(t.s_.cycles)) : 0;
  });
  row("# Max Latencies:", " {:05d}", [](const Cyclictest& t) { return t.s_.max; });
  row("# Histogram Overflows:", " {:05d}", [](const Cyclictest& t) { return t.s_.overflows; });
  out += "# Histogram Overflow at cycle number:\n";
  for (size_t j = 0; j < threads.size(); ++j) {
    const auto& s = threads[j]->s_;
    out += fmt::format("# Thread {}:", j);
    for (uint64_t c : s.outliers) out += fmt::format(" {:05d}", c);
    if (s.overflows > s.outliers.size())
      out += fmt::format(" # {:05d} others", s.overflows - s.outliers.size());
    out += "\n";
  }
  return out + "\n";
}

}  // namespace latsim::kernel
