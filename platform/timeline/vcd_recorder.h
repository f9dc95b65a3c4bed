#pragma once
// Waveforms of the board: every IRQ line, each PCI master's REQ#/GNT# (active
// low, as on the bus) and the bus owner, and per CPU its interrupt flag and the
// pid it runs. Bus tenures are announced ahead of time (analytic burst trains),
// so their edges wait in a queue until simulated time reaches them; the queue
// holds one entry per train in progress, never the whole train.
#include <map>
#include <queue>
#include <string>
#include <vector>
#include "kernel_sim/kernel.h"
#include "models/common/probe.h"
#include "platform/timeline/vcd_writer.h"

namespace latsim::platform::timeline {

class VcdRecorder : public kernel::KernelObserver, public SignalProbe {
 public:
  VcdRecorder(const std::string& path, TimeWindow w, int ncpus,
              const std::vector<std::string>& irq_lines, const std::vector<std::string>& masters,
              const std::vector<std::string>& counters = {});
  void finish(sc_core::sc_time end);
  bool failed() const { return w_.failed(); }

  void sched_switch(int cpu, sc_core::sc_time t, const kernel::Task& prev,
                    const kernel::Task& next) override;
  void sched_wakeup(int, sc_core::sc_time, const kernel::Task&, int) override {}
  void function_entry(int, sc_core::sc_time, const char*, const char*) override {}
  void irq_entry(int, sc_core::sc_time, unsigned, bool) override {}
  void irq_exit(int, sc_core::sc_time) override {}
  void softirq_entry(int, sc_core::sc_time) override {}
  void softirq_exit(int, sc_core::sc_time) override {}
  void critical_edge(int, sc_core::sc_time, bool, const kernel::CodeSite&) override {}

  void irq_line(const char* name, sc_core::sc_time t, bool level) override;
  void counter(const char* name, sc_core::sc_time t, uint64_t value) override;
  void pci_train(int master, sc_core::sc_time start, sc_core::sc_time end, sc_core::sc_time period,
                 sc_core::sc_time tenure, uint64_t bytes) override;
  void pci_host_hold(sc_core::sc_time from, sc_core::sc_time to) override;
  void cpu_if(int cpu, sc_core::sc_time t, bool enabled) override;

 private:
  enum class Edge { Set, BurstStart, BurstEnd };
  struct Pending {
    uint64_t ps, seq;
    Edge edge;
    int var;  // Set: the variable
    uint64_t value;
    int train;  // BurstStart/End: which train
    bool operator>(const Pending& o) const { return ps != o.ps ? ps > o.ps : seq > o.seq; }
  };
  struct Train {
    int master;
    uint64_t start, end, period, tenure, k = 0;
  };
  void drain(uint64_t now_ps);
  void apply(int var, uint64_t ps, uint64_t value);
  void push(uint64_t ps, Edge e, int var, uint64_t value, int train = -1);

  TimeWindow window_;
  VcdWriter w_;
  std::map<std::string, int> lines_, counters_;
  std::vector<int> req_, gnt_, cpu_if_, cpu_pid_;
  int owner_ = -1;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> q_;
  std::map<int, Train> trains_;
  int next_train_ = 0;
  uint64_t seq_ = 0, last_ps_ = 0;
};

}  // namespace latsim::platform::timeline
