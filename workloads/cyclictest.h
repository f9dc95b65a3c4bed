#pragma once
// rt-tests' cyclictest: N SCHED_FIFO threads each sleep to an absolute time
// (clock_nanosleep) or wait for the signal of a periodic POSIX timer (-x), then
// measure how late they run. On a periodic-tick kernel (2.6.9) a sleep ends at a
// tick, so a thread asks for tick instants and measures from the tick it asked
// for; with high_res_timers (rt) it asks for exact times (hrtimers).
// Like rtla timerlat it also splits each sample: IRQ latency (timer fired ->
// local timer handler entered) and thread latency (timer fired -> thread running).
#include <map>
#include <string>
#include <vector>
#include "kernel_sim/time/posix_timers.h"
#include "workloads/program.h"

namespace latsim::workloads {

struct RunEnd;

// The command-line options of cyclictest that matter to the kernel.
struct CyclictestParams {
  int threads = 1;          // -t NUM
  int priority = 80;        // -p PRIO (of the first thread)
  bool priospread = false;  // --priospread: each later thread one lower
  int interval_us = 1000;   // -i INTV
  int distance_us = 500;    // -d DIST: each later thread's interval is longer by this
  int64_t loops = 0;        // -l LOOPS, 0 = endless
  // -a: none (unpinned), all (-a alone: thread i on CPU i % ncpus) or a CPU list
  // (thread i pinned to the list's (i % n)th CPU)
  std::string affinity = "none";
  bool posix_timers = false;  // -x: timer_create + sigwait instead of clock_nanosleep
  int histogram_us = 0;       // -h US: 0 = no histogram
};

// One thread's statistics (struct thread_stat), plus the timerlat split in ns.
struct CyclicStats {
  uint64_t cycles = 0;
  int64_t min = 0, max = 0, act = 0;
  double sum = 0;
  std::map<int64_t, uint64_t> histogram;  // µs -> count
  uint64_t overflows = 0;                 // samples >= the -h bucket count
  std::vector<uint64_t> outliers;         // their cycle numbers (as many as buckets)
  int pid = 0;
  int cpu = -1;  // the CPU it was placed on (pinned with -a)
  // rtla timerlat: IRQ = fired -> handler, thread = fired -> running (gross), ns.
  uint64_t irq_min_ns = 0, irq_max_ns = 0, irq_cur_ns = 0, thr_min_ns = 0, thr_max_ns = 0,
           thr_cur_ns = 0;
  double irq_sum_ns = 0, thr_sum_ns = 0;
  // handler -> thread running (thread minus IRQ latency, per sample), ns.
  uint64_t after_irq_min_ns = 0, after_irq_max_ns = 0;
  double after_irq_sum_ns = 0;
  uint64_t timer_overruns = 0;  // POSIX timer expiries merged (timer_getoverrun)
  // perf stat's context-switches and cpu-migrations of the thread (seed 003).
  uint64_t context_switches = 0, migrations = 0;
};

// rtla timerlat top's per-CPU columns (ns; printed in µs): keyed by the CPU whose
// timer fired.
struct TimerlatStats {
  uint64_t count = 0;
  uint64_t irq_cur = 0, irq_min = 0, irq_max = 0, thr_cur = 0, thr_min = 0, thr_max = 0;
  double irq_sum = 0, thr_sum = 0;
  void add(uint64_t irq, uint64_t thr);
};

// What the --json file says about the run and the system (rt_write_json).
struct CyclictestRunInfo {
  std::string cmdline;
  std::string release;  // uname -r
  std::string version;  // uname -v
  bool realtime = false;
  double start_s = 0, end_s = 0;  // simulated seconds since the epoch
};

class Cyclictest : public Program {
 public:
  Cyclictest(std::string name, const CyclictestParams& p);
  Cyclictest(std::string name, int priority, int interval_us, int histogram_us = 0)
      : Cyclictest(std::move(name), legacy(priority, interval_us, histogram_us)) {}
  const std::string& name() const override { return name_; }
  bool measures() const override { return true; }
  void start(Kernel& k) override;
  const CyclictestParams& params() const { return p_; }
  int nthreads() const { return int(st_.size()); }
  const CyclicStats& stats(int thread = 0) const { return st_[size_t(thread)]; }
  int priority(int thread = 0) const { return prio_[size_t(thread)]; }
  int interval_us(int thread = 0) const { return intv_[size_t(thread)]; }
  int histogram_us() const { return p_.histogram_us; }
  // The command line that would have produced this run (for "cmdline:").
  std::string cmdline(const std::string& json_file) const;

  // "T: 0 ( 1234) P:80 I:1000 C:  29999 Min:      9 Act:   18 Avg:   15 Max:      34"
  std::string summary_line(int thread) const;
  // What cyclictest -q prints on exit: the summary lines, or with -h the histogram block.
  std::string report() const;
  // The -h block of rt-tests' print_hist() for this process's threads.
  std::string histogram_block() const;
  // The --json file of rt-tests (rt_write_json + write_stats).
  std::string json(const CyclictestRunInfo& run) const;
  const std::map<int, TimerlatStats>& timerlat() const { return per_cpu_; }
  std::vector<const Spinlock*> spinlocks() const override {
    std::vector<const Spinlock*> v{&siglock_};
    for (const auto& t : timers_) v.push_back(&t->it_lock());
    return v;
  }
  double start_s() const { return start_s_; }
  nlohmann::json metrics(Kernel& k, double sim_s) const override;
  void collect(PlotData& plots) const override;
  // The run's cyclictest.txt (every instance's -q report), each instance's --json file
  // and timerlat.txt (rtla timerlat top over all of them).
  static void write_files(const std::vector<const Cyclictest*>& all, const RunEnd& end);
  // `rtla timerlat top -q` after `duration_s`: one row per CPU.
  static std::string timerlat_top(const std::map<int, TimerlatStats>& cpus, double duration_s);

 private:
  static CyclictestParams legacy(int priority, int interval_us, int histogram_us);
  void run(Kernel& k, int thread);
  void run_hres(Kernel& k, int thread);
  // One sample: due at `next`, its timer interrupt entered at `irq_entry`.
  void record(Kernel& k, int thread, int cpu, sc_core::sc_time next, sc_core::sc_time irq_entry,
              int window);  // window: its blame window (Kernel::open_blame_window)
  std::string name_;
  CyclictestParams p_;
  std::vector<int> pinned_;  // -a CPUSET's CPUs
  bool pin_all_ = false;     // -a alone
  std::vector<int> prio_, intv_;
  std::vector<CyclicStats> st_;
  std::vector<std::unique_ptr<PosixTimer>> timers_;
  Spinlock siglock_{"sighand->siglock", true};  // one per process: its threads share it
  std::map<int, TimerlatStats> per_cpu_;
  double start_s_ = 0;
};

}  // namespace latsim::workloads
