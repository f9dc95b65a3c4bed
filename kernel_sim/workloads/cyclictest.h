#pragma once
// A cyclictest-like SCHED_FIFO thread: sleep to an absolute time, measure how
// late it runs. On this periodic-tick kernel a sleep ends at a tick, so the
// thread asks for tick instants and measures from the tick it asked for.
#include <map>
#include <vector>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

struct CyclicStats {
  uint64_t cycles = 0;
  int64_t min = 0, max = 0, act = 0;
  double sum = 0;
  std::map<int64_t, uint64_t> histogram;  // µs -> count
  uint64_t overflows = 0;                 // samples >= the -h bucket count
  std::vector<uint64_t> outliers;         // their cycle numbers (as many as buckets)
  int pid = 0;
};

class Cyclictest : public Workload {
 public:
  Cyclictest(std::string name, int priority, int interval_us, int histogram_us = 0)
      : name_(std::move(name)),
        prio_(priority),
        interval_us_(interval_us),
        histogram_us_(histogram_us) {}
  const std::string& name() const override { return name_; }
  bool measures() const override { return true; }
  void start(Kernel& k) override;
  const CyclicStats& stats() const { return s_; }
  int priority() const { return prio_; }
  int interval_us() const { return interval_us_; }
  // "T: 0 ( 1234) P:80 I:1000 C:  29999 Min:      9 Act:   18 Avg:   15 Max:      34"
  std::string summary_line(int thread) const;
  int histogram_us() const { return histogram_us_; }
  // The -h block of rt-tests' print_hist() for these threads (one column each).
  static std::string histogram_block(const std::vector<const Cyclictest*>& threads);

 private:
  void run(Kernel& k);
  std::string name_;
  int prio_, interval_us_, histogram_us_;
  CyclicStats s_;
};

}  // namespace latsim::kernel
