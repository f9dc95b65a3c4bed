#pragma once
// The timeline and waveform outputs of one run (outputs.timeline, outputs.vcd,
// outputs.trace_dat): attaches the recorders to the kernel and the board, and resolves the window,
// including the trigger `max:SPAN` (the SPAN of simulated time around the
// latency tracer's longest critical section).
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>
#include "kernel_sim/kernel.h"
#include "models/common/probe.h"
#include "platform/machine.h"
#include "platform/output_transaction.h"
#include "platform/scenario.h"
#include "platform/timeline/time_window.h"

namespace latsim::platform::timeline {

class TimelineRecorder;
class VcdRecorder;
class TraceDatRecorder;

class Session : public kernel::KernelObserver, public SignalProbe {
 public:
  // Null when the scenario asks for no timeline, VCD or trace.dat. The files are streamed to
  // the temporary names `tx` stages (renamed at its commit); without one, to their paths.
  static std::unique_ptr<Session> attach(const Scenario& s, Machine& m, kernel::Kernel& k,
                                         TimeWindow w, OutputTransaction* tx);
  ~Session() override;
  // Whether a write failed (disk full): the run may stop, finish() throws the error.
  bool failed() const;
  // `blame`: the run's traces/blame.json (null: none), drawn under its intervals.
  void finish(sc_core::sc_time end, const nlohmann::json* blame = nullptr);

  void sched_switch(int cpu, sc_core::sc_time t, const kernel::Task& prev,
                    const kernel::Task& next) override;
  void sched_wakeup(int cpu, sc_core::sc_time t, const kernel::Task& p, int target_cpu) override;
  void function_entry(int cpu, sc_core::sc_time t, const char* fn, const char* parent) override;
  void irq_entry(int cpu, sc_core::sc_time t, unsigned vector, bool nmi) override;
  void irq_exit(int cpu, sc_core::sc_time t) override;
  void softirq_entry(int cpu, sc_core::sc_time t) override;
  void softirq_exit(int cpu, sc_core::sc_time t) override;
  void softirq_action_entry(int cpu, sc_core::sc_time t, unsigned nr) override;
  void softirq_action_exit(int cpu, sc_core::sc_time t, unsigned nr) override;
  void preempt_toggle(int cpu, sc_core::sc_time t, bool disabled,
                      const kernel::CodeSite& site) override;
  void critical_edge(int cpu, sc_core::sc_time t, bool critical,
                     const kernel::CodeSite& site) override;
  void lock_spin(int cpu, sc_core::sc_time from, sc_core::sc_time to, const char* lock,
                 int holder) override;
  void irq_line(const char* name, sc_core::sc_time t, bool level) override;
  void pci_train(int master, sc_core::sc_time start, sc_core::sc_time end, sc_core::sc_time period,
                 sc_core::sc_time tenure, uint64_t bytes) override;
  void pci_host_hold(sc_core::sc_time from, sc_core::sc_time to) override;
  void cpu_if(int cpu, sc_core::sc_time t, bool enabled) override;
  void counter(const char* name, sc_core::sc_time t, uint64_t value) override;
  void fsb_holdoff(int cpu, sc_core::sc_time from, sc_core::sc_time to, int master) override;
  void pci_train_deferred(int master, sc_core::sc_time old_start, sc_core::sc_time start,
                          sc_core::sc_time end) override;
  void fifo_stall(int cpu, sc_core::sc_time from, sc_core::sc_time to) override;

 private:
  Session() = default;
  std::unique_ptr<TimelineRecorder> timeline_;
  std::unique_ptr<VcdRecorder> vcd_;
  std::unique_ptr<TraceDatRecorder> trace_dat_;
  std::vector<kernel::KernelObserver*> kobs_;
  std::vector<SignalProbe*> probes_;
};

// The window of outputs.timeline_window: "" (all), "A..B", or "max:SPAN", which
// runs the scenario once more in a child process (runs are deterministic) to find
// when the longest critical section happened. Throws std::invalid_argument.
TimeWindow resolve_window(const Scenario& s);

// "out/x.json" -> "out/x.ftrace.txt": where the sched_switch text goes.
std::string ftrace_path_for(const std::string& timeline_path);

}  // namespace latsim::platform::timeline
