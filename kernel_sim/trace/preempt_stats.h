#pragma once
// Robert Love's 2001 preempt-stats patch (MontaVista kernel/latency.c, read as
// /proc/latencytimes): per CPU, a section runs from the moment the running task's
// preempt count leaves 0 (latency_start with the lock macro's __FILE__/__LINE__
// and a cause) until a count returns to 0 (latency_end), across context switches.
// The 20 worst are kept, one per start/end path (same start and end address).
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <vector>
#include "kernel_sim/trace/symbols.h"

namespace latsim::kernel {

// cause_name[] of latency.c; an IRQ is stored as ~irq (negative), unknown as -99.
enum PreemptCause : int {
  CAUSE_UNKNOWN = 0,
  CAUSE_SPIN_LOCK = 1,
  CAUSE_REACQ_BKL = 2,
  CAUSE_BKL = 3,
  CAUSE_ENTRY = -99  // a section opened by an entry point, before any cause was set
};
constexpr int irq_cause(unsigned irq) { return ~int(irq); }

struct PreemptStatsEntry {
  uint64_t latency_us = 0;
  int cause = 0;
  uint32_t mask = 0;
  SourceLine start{}, end{};
};

class PreemptStats {
 public:
  // Logging starts at `log_from` (logFlag: the first read of /proc/latencytimes).
  explicit PreemptStats(int ncpus, sc_core::sc_time log_from = sc_core::SC_ZERO_TIME);

  // latency_start: opens a section unless one is open on this CPU.
  void start(int cpu, sc_core::sc_time now, const SourceLine& site, int cause);
  // latency_cause(was, tobe): was == -100 ORs `tobe` into the mask, else the
  // open section's cause changes from `was` to `tobe`.
  void cause(int cpu, int was, int tobe);
  // latency_end: closes the open section (and logs it), if any.
  void end(int cpu, sc_core::sc_time now, const SourceLine& site);
  bool open(int cpu) const { return cpus_[size_t(cpu)].open; }

  // The table rows of one CPU as /proc/latencytimes prints them: worst first.
  std::vector<PreemptStatsEntry> worst(int cpu) const;
  uint64_t measured(int cpu) const { return cpus_[size_t(cpu)].measured; }
  // The whole file: the seed's UP header for one CPU, "cpu N worst ..." per CPU on SMP.
  // `irq_name` gives action->name of an IRQ cause (ide0, timer).
  std::string format(const std::function<std::string(unsigned)>& irq_name) const;

  static constexpr size_t NUM_LOG_ENTRY = 20;

 private:
  struct PerCpu {
    bool open = false;
    sc_core::sc_time t0;
    SourceLine start{};
    int cause = 0;
    uint32_t mask = 0;
    uint64_t least = 0, measured = 0;
    std::vector<PreemptStatsEntry> entry = std::vector<PreemptStatsEntry>(NUM_LOG_ENTRY);
  };
  void logentry(PerCpu& l, uint64_t diff_us, const SourceLine& end);
  std::vector<PerCpu> cpus_;
  sc_core::sc_time log_from_;
};

}  // namespace latsim::kernel
