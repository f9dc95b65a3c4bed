#include "workloads/cyclictest.h"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include "workloads/cpu_list.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

using params::integer;
using P = CyclictestParams;

// -a: a CPU list naming CPUs the machine has.
std::vector<Problem> check_affinity(const Config& c, const Board& b) {
  const std::string& text = c.as<P>().affinity;
  if (text == "none" || text == "all") return {};
  const auto cpus = parse_cpu_list(text);
  if (!cpus)
    return {{"affinity", fmt::format("`{}` is not a CPU list (accepted: none, all, or CPU numbers "
                                     "such as 1, 0,1 or 0-1)",
                                     text)}};
  for (int cpu : *cpus)
    if (cpu >= b.ncpus)
      return {{"affinity",
               fmt::format("CPU {} does not exist (accepted: CPUs 0-{} of platform.cpu.count)", cpu,
                           b.ncpus - 1)}};
  return {};
}

params::Table<Config> cyclictest_keys() {
  return {
      name_key(),
      param(params::bind(integer("priority", 1, 99, "", "SCHED_FIFO priority (-p)"), &P::priority)),
      param(params::bind(integer("interval_us", 100, 1000000, "us",
                                 "period (-i); a periodic-tick kernel wakes on ticks, so it is "
                                 "rounded to whole ticks"),
                         &P::interval_us)),
      param(params::bind(integer("histogram_us", 0, 100000, "us", "histogram range (-h); 0: none"),
                         &P::histogram_us)),
      param(params::bind(integer("threads", 1, 64, "", "measurement threads (-t)"), &P::threads)),
      param(params::bind(params::of_type(params::ValueType::Bool, "priospread",
                                         "each later thread one priority lower"),
                         &P::priospread)),
      param(params::bind(integer("distance_us", 0, 1000000, "us",
                                 "each later thread's interval is longer by this (-d; 0 with -h)"),
                         &P::distance_us)),
      param(params::bind(integer("loops", 0, 2000000000, "", "cycles per thread (-l); 0: endless"),
                         &P::loops)),
      param(params::bind(params::of_type(params::ValueType::String, "affinity",
                                         "-a: none (unpinned), all (thread i on CPU i), or a CPU "
                                         "list like 1, 0,1, 0-1"),
                         &P::affinity)),
      param(params::bind_enum(
          params::choice("timer", {"clock_nanosleep", "posix_timers"},
                         "how a thread waits: clock_nanosleep, or a periodic POSIX timer's signal "
                         "(-x)"),
          &P::posix_timers, {{false, "clock_nanosleep"}, {true, "posix_timers"}})),
  };
}

const Registration kCyclictest{
    {"cyclictest", "periodic SCHED_FIFO thread measuring its wake-up latency", cyclictest_keys(),
     [] { return P{}; },
     [](const Config& c, const Board&) { return std::make_unique<Cyclictest>(c.name, c.as<P>()); },
     check_affinity, nullptr,
     [](const std::vector<const Program*>& all, const RunEnd& end) {
       std::vector<const Cyclictest*> mine;
       for (const Program* p : all) mine.push_back(static_cast<const Cyclictest*>(p));
       Cyclictest::write_files(mine, end);
     }}};

}  // namespace

CyclictestParams Cyclictest::legacy(int priority, int interval_us, int histogram_us) {
  CyclictestParams p;
  p.priority = priority;
  p.interval_us = interval_us;
  p.histogram_us = histogram_us;
  return p;
}

Cyclictest::Cyclictest(std::string name, const CyclictestParams& p)
    : name_(std::move(name)), p_(p) {
  pin_all_ = p_.affinity == "all";
  if (p_.affinity != "none" && !pin_all_)
    pinned_ = parse_cpu_list(p_.affinity).value_or(std::vector<int>{});
  const int n = std::max(1, p_.threads);
  // -h: "distance is ignored and set to 0, if histogram enabled" (cyclictest.c).
  const int distance = p_.histogram_us > 0 ? 0 : p_.distance_us;
  for (int i = 0; i < n; ++i) {
    prio_.push_back(std::max(1, p_.priority - (p_.priospread ? i : 0)));
    intv_.push_back(p_.interval_us + i * distance);
    timers_.push_back(std::make_unique<PosixTimer>(siglock_));
  }
  st_.resize(size_t(n));
}

void TimerlatStats::add(uint64_t irq, uint64_t thr) {
  if (count == 0 || irq < irq_min) irq_min = irq;
  if (count == 0 || thr < thr_min) thr_min = thr;
  irq_max = std::max(irq_max, irq);
  thr_max = std::max(thr_max, thr);
  irq_cur = irq;
  thr_cur = thr;
  irq_sum += double(irq);
  thr_sum += double(thr);
  count++;
}

void Cyclictest::start(Kernel& k) {
  start_s_ = k.now().to_seconds();
  for (int i = 0; i < nthreads(); ++i) {
    int cpu = i % k.ncpus();
    uint32_t mask = ~0u;
    if (!pinned_.empty()) cpu = pinned_[size_t(i) % pinned_.size()];
    if (pin_all_ || !pinned_.empty()) mask = 1u << cpu;
    st_[size_t(i)].cpu = cpu;
    Task* t = k.create_task(
        "cyclictest", [this, &k, i] { run(k, i); }, Policy::Fifo, prio_[size_t(i)], cpu, mask);
    st_[size_t(i)].pid = t->pid;
  }
}

void Cyclictest::run(Kernel& k, int thread) {
  if (k.flavour().high_res_timers) return run_hres(k, thread);
  const uint64_t step = std::max<uint64_t>(
      1, uint64_t(std::llround(intv_[size_t(thread)] * 1e-6 / k.tick_period().to_seconds())));
  int cpu = k.smp_processor_id();
  uint64_t tick = k.local_ticks(cpu) + 2;
  PosixTimer* timer = p_.posix_timers ? timers_[size_t(thread)].get() : nullptr;
  if (timer) {
    timer->create(k);
    timer->settime(k, k.tick_time(cpu, tick), k.tick_period() * double(step));
  }
  for (uint64_t n = 0; p_.loops == 0 || n < uint64_t(p_.loops); ++n) {
    sc_core::sc_time next;
    int window;   // this wake-up's blame window
    if (timer) {  // sigwait(): the expiry the signal stands for
      window = k.open_blame_window(timer->due(k));
      const PosixTimer::Expiry e = timer->sigwait(k);
      cpu = e.cpu;
      tick = e.tick;
      next = e.expires;
    } else {  // clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next)
      k.fn("sys_clock_nanosleep", "syscall_call", 300, 3);
      next = k.tick_time(cpu, tick);
      window = k.open_blame_window(next);
      k.sleep_until_tick(cpu, tick, "do_nanosleep");
    }
    k.fn("sys_clock_gettime", "syscall_call", 150, 1);
    record(k, thread, cpu, next, k.tick_irq_entry(cpu, tick), window);
    k.user_exec(2000, 4);
    if (timer) continue;
    // The timer was queued on the CPU the thread slept on; stay on its tick grid.
    tick += step;
    const uint64_t now_tick = k.local_ticks(cpu);
    if (tick <= now_tick) tick = now_tick + 1;  // overrun: the next period we can still make
  }
  if (timer) timer->del(k);
}

// With high-resolution timers the period is exact time, not ticks: clock_nanosleep
// sleeps on an hrtimer, a POSIX timer is an hrtimer (expired in ktimersoftd on -rt).
void Cyclictest::run_hres(Kernel& k, int thread) {
  const sc_core::sc_time interval(intv_[size_t(thread)], sc_core::SC_US);
  PosixTimer* timer = p_.posix_timers ? timers_[size_t(thread)].get() : nullptr;
  k.fn("sys_clock_gettime", "syscall_call", 150, 1);
  sc_core::sc_time next = k.now() + interval;  // cyclictest: next = now + interval
  if (timer) {
    timer->create(k);
    timer->settime(k, next, interval);
  }
  for (uint64_t n = 0; p_.loops == 0 || n < uint64_t(p_.loops); ++n) {
    int cpu = k.smp_processor_id();
    sc_core::sc_time irq_entry;
    int window;  // this wake-up's blame window
    if (timer) {
      window = k.open_blame_window(timer->due(k));
      const PosixTimer::Expiry e = timer->sigwait(k);
      cpu = e.cpu;
      next = e.expires;
      irq_entry = e.irq_entry;
    } else {
      window = k.open_blame_window(next);
      irq_entry = k.clock_nanosleep(next, "syscall_call");
    }
    k.fn("sys_clock_gettime", "syscall_call", 150, 1);
    record(k, thread, cpu, next, irq_entry, window);
    k.user_exec(2000, 4);
    if (timer) continue;
    next += interval;  // cyclictest: tsinc(&next, &interval), skipping periods gone
    while (next < k.now()) next += interval;
  }
  if (timer) timer->del(k);
}

void Cyclictest::record(Kernel& k, int thread, int cpu, sc_core::sc_time next,
                        sc_core::sc_time entry, int window) {
  CyclicStats& s = st_[size_t(thread)];
  // Its blame window: the thread's longest wake-up is kept (traces/blame.json).
  if (window >= 0) k.close_blame_window(window, fmt::format("{} T{}", name(), thread), "wake-up");
  const int64_t diff = int64_t(std::floor((k.now().to_seconds() - next.to_seconds()) * 1e6));  // µs
  s.act = diff;
  LATSIM_DEBUG(workloads, k.log_who(), "{} T{}: woke {} us late", name(), thread, diff);
  if (s.cycles == 0 || diff < s.min) s.min = diff;
  if (diff > s.max) s.max = diff;
  s.sum += double(diff);
  s.histogram[diff]++;
  if (p_.histogram_us > 0 && diff >= p_.histogram_us) {  // cyclictest: hist_overflow + outliers[]
    s.overflows++;
    if (s.outliers.size() < size_t(p_.histogram_us)) s.outliers.push_back(s.cycles);
  }
  // timerlat's split: the local timer handler entry for that expiry, then the thread.
  const uint64_t irq = entry > next ? (entry - next).value() / 1000 : 0;  // ps -> ns
  const uint64_t thr = k.now() > next ? (k.now() - next).value() / 1000 : 0;
  if (s.cycles == 0 || irq < s.irq_min_ns) s.irq_min_ns = irq;
  if (s.cycles == 0 || thr < s.thr_min_ns) s.thr_min_ns = thr;
  s.irq_max_ns = std::max(s.irq_max_ns, irq);
  s.thr_max_ns = std::max(s.thr_max_ns, thr);
  s.irq_cur_ns = irq;
  const uint64_t after = thr - std::min(thr, irq);
  if (s.cycles == 0 || after < s.after_irq_min_ns) s.after_irq_min_ns = after;
  s.after_irq_max_ns = std::max(s.after_irq_max_ns, after);
  s.after_irq_sum_ns += double(after);
  s.thr_cur_ns = thr;
  s.irq_sum_ns += double(irq);
  s.thr_sum_ns += double(thr);
  s.timer_overruns = timers_[size_t(thread)]->overruns();
  const Task& me = k.current();
  s.context_switches = me.nvcsw + me.nivcsw;
  s.migrations = me.nr_migrations;
  per_cpu_[cpu].add(irq, thr);
  s.cycles++;
}

}  // namespace latsim::workloads
