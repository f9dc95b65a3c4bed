#pragma once
// Turns kernel events and bus signals into a trace.dat for trace-cmd and KernelShark: the
// sched, irq and preemptirq events a Linux kernel would record (formats as in its tracefs),
// and latsim's bus events (FSB holdoffs, DMA transfers, video FIFO stalls) as the system
// "latsim", one ring buffer per simulated CPU (the bus's transfers on CPU 0's).
#include <map>
#include <string>
#include <vector>
#include "kernel_sim/kernel.h"
#include "models/common/probe.h"
#include "platform/timeline/time_window.h"
#include "platform/timeline/trace_dat_writer.h"

namespace latsim::platform::timeline {

class TraceDatRecorder : public kernel::KernelObserver, public SignalProbe {
 public:
  TraceDatRecorder(kernel::Kernel& k, std::vector<std::string> pci_masters, const std::string& path,
                   TimeWindow w);
  void finish(sc_core::sc_time end);
  bool failed() const { return w_.failed(); }

  // KernelObserver
  void sched_switch(int cpu, sc_core::sc_time t, const kernel::Task& prev,
                    const kernel::Task& next) override;
  void sched_wakeup(int cpu, sc_core::sc_time t, const kernel::Task& p, int target_cpu) override;
  void function_entry(int cpu, sc_core::sc_time t, const char* fn, const char* parent) override;
  void irq_entry(int cpu, sc_core::sc_time t, unsigned vector, bool nmi) override;
  void irq_exit(int cpu, sc_core::sc_time t) override;
  void softirq_entry(int, sc_core::sc_time) override {}
  void softirq_exit(int, sc_core::sc_time) override {}
  void softirq_action_entry(int cpu, sc_core::sc_time t, unsigned nr) override;
  void softirq_action_exit(int cpu, sc_core::sc_time t, unsigned nr) override;
  void preempt_toggle(int cpu, sc_core::sc_time t, bool disabled,
                      const kernel::CodeSite& site) override;
  void critical_edge(int, sc_core::sc_time, bool, const kernel::CodeSite&) override {}
  // SignalProbe
  void irq_line(const char*, sc_core::sc_time, bool) override {}
  void pci_train(int master, sc_core::sc_time start, sc_core::sc_time end, sc_core::sc_time period,
                 sc_core::sc_time tenure, uint64_t bytes) override;
  void pci_train_deferred(int master, sc_core::sc_time old_start, sc_core::sc_time start,
                          sc_core::sc_time end) override;
  void pci_host_hold(sc_core::sc_time, sc_core::sc_time) override {}
  void cpu_if(int cpu, sc_core::sc_time t, bool enabled) override;
  void fsb_holdoff(int cpu, sc_core::sc_time from, sc_core::sc_time to, int master) override;
  void fifo_stall(int cpu, sc_core::sc_time from, sc_core::sc_time to) override;

 private:
  struct Cpu {
    const char* fn = "";  // the last mcount point: the caller of an IF change
    const char* parent = "";
    bool if_on = true;
    std::vector<int> irqs;  // the irq numbers of the handlers running, innermost last
  };
  struct Train {
    uint64_t start, end, period, tenure, bytes;
  };
  // The event on `cpu` at `ps` in its current context (irqs-off, hardirq, softirq, task).
  void emit(int cpu, uint64_t ps, int type, const TraceRecord& r);
  void caller_event(int cpu, uint64_t ps, int type, std::string_view caller,
                    std::string_view parent);
  void write_train(int master, const Train& t);
  const std::string& master_name(int master) const;
  // `cpu`'s records before `ps` are final (none before it is still to come).
  void advance(int cpu, uint64_t ps);

  kernel::Kernel& k_;
  std::vector<std::string> masters_;
  TimeWindow window_;
  TraceDatWriter w_;
  std::vector<Cpu> cpus_;
  std::map<int, Train> pending_train_;  // master -> its last announced train
  std::map<unsigned, std::pair<int, std::string>> irq_of_vector_;  // vector -> irq, name
  int sched_switch_, sched_wakeup_, irq_entry_, irq_exit_, softirq_entry_, softirq_exit_;
  int irq_disable_, irq_enable_, preempt_disable_, preempt_enable_;
  int fsb_holdoff_, dma_burst_, fifo_stall_;
};

}  // namespace latsim::platform::timeline
