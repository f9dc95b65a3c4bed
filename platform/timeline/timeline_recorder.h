#pragma once
// Turns kernel events and hardware signals into the timeline: per CPU a track
// with task -> interrupt/softirq -> kernel function slices, per CPU a track of
// the latency tracer's critical sections (latency in args), per PCI master a
// track of its bus tenures, per IRQ line a track of its high level, runqueue
// counters, PCI utilisation and FSB holdoffs, per CPU its interrupt-flag-clear
// spans, and process/thread names; plus the sched_switch/sched_wakeup ftrace text.
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>
#include "kernel_sim/kernel.h"
#include "models/common/probe.h"
#include "platform/timeline/bus_utilisation.h"
#include "platform/timeline/ftrace_text_writer.h"
#include "platform/timeline/trace_event_writer.h"

namespace latsim::platform::timeline {

// Track numbering (pid = process in the viewer, tid = track inside it).
constexpr int kCpuPid = 1, kPciPid = 2, kIrqPid = 3, kFsbPid = 4;
constexpr int kSectionTid = 100;  // + cpu: critical sections of that CPU
constexpr int kIfTid = 200;       // + cpu: that CPU's interrupt flag clear (EFLAGS.IF = 0)
constexpr int kBlameTid = 300;    // + 10 * cpu + measure: blame ledgers (0: traced sections)
// The PCI utilisation counter averages bus ownership over this much simulated time.
constexpr uint64_t kPciUtilisationIntervalPs = 100'000'000;  // 100 µs

class TimelineRecorder : public kernel::KernelObserver, public SignalProbe {
 public:
  // `ftrace_path` empty: no ftrace text. `functions`: slices from the mcount points.
  TimelineRecorder(kernel::Kernel& k, std::vector<std::string> pci_masters, const std::string& path,
                   const std::string& ftrace_path, TimeWindow w, bool functions = true);
  // `blame` (traces/blame.json; null: none): each traced section's and measured interval's
  // causes as slices under it, largest first, laid end to end (they sum to it).
  void finish(sc_core::sc_time end, const nlohmann::json* blame = nullptr);
  bool failed() const { return w_.failed() || (ftrace_ && ftrace_->failed()); }

  // KernelObserver
  void sched_switch(int cpu, sc_core::sc_time t, const kernel::Task& prev,
                    const kernel::Task& next) override;
  void sched_wakeup(int cpu, sc_core::sc_time t, const kernel::Task& p, int target_cpu) override;
  void function_entry(int cpu, sc_core::sc_time t, const char* fn, const char* parent) override;
  void irq_entry(int cpu, sc_core::sc_time t, unsigned vector, bool nmi) override;
  void irq_exit(int cpu, sc_core::sc_time t) override;
  void softirq_entry(int cpu, sc_core::sc_time t) override;
  void softirq_exit(int cpu, sc_core::sc_time t) override;
  void critical_edge(int cpu, sc_core::sc_time t, bool critical,
                     const kernel::CodeSite& site) override;
  // A flow arrow from the lock holder's CPU to the spinning one.
  void lock_spin(int cpu, sc_core::sc_time from, sc_core::sc_time to, const char* lock,
                 int holder) override;
  // SignalProbe
  void irq_line(const char* name, sc_core::sc_time t, bool level) override;
  void counter(const char* name, sc_core::sc_time t, uint64_t value) override;
  void pci_train(int master, sc_core::sc_time start, sc_core::sc_time end, sc_core::sc_time period,
                 sc_core::sc_time tenure, uint64_t bytes) override;
  void pci_host_hold(sc_core::sc_time from, sc_core::sc_time to) override;
  void cpu_if(int cpu, sc_core::sc_time t, bool enabled) override;
  void fsb_holdoff(int cpu, sc_core::sc_time from, sc_core::sc_time to, int master) override;
  void pci_train_deferred(int master, sc_core::sc_time old_start, sc_core::sc_time start,
                          sc_core::sc_time end) override;

 private:
  struct Cpu {
    int fn_label = -1;  // the function slice in progress (interned name), from fn_start
    uint64_t fn_start = 0;
    bool in_section = false;
    uint64_t section_start = 0;
    kernel::CodeSite section_site;
    bool if_clear = false;  // EFLAGS.IF = 0 since if_since
    uint64_t if_since = 0;
  };
  void close_fn(int cpu, uint64_t ps);
  void runqueue_counter(int cpu, uint64_t ps);
  std::string irq_name(unsigned vector, bool nmi);
  void pci_utilisation(uint64_t now_ps);
  // A master's last announced train, written once it can no longer be deferred (its
  // master announces the next one, or the run ends).
  struct Train {
    uint64_t start, end, period, tenure, bytes;
  };
  void write_train(int master, const Train& t);
  // An interval's ledger to draw (an entry of blame.json), on a CPUs track.
  struct Ledger {
    uint64_t from, to;  // whole ns, clipped to the window
    const nlohmann::json* interval;
    std::string name;
  };
  // Adds it to track `tid` + 10 * its CPU (named "CPU<n> `track`") unless it overlaps one
  // there already or lies outside the window.
  void add_ledger(int tid, const std::string& track, const nlohmann::json& interval,
                  std::string name);
  // Each track's ledgers in time order: the interval, and its causes end to end inside.
  void draw_ledgers();

  kernel::Kernel& k_;
  std::vector<std::string> masters_;
  TimeWindow window_;
  bool functions_;
  TraceEventWriter w_;
  std::unique_ptr<FtraceTextWriter> ftrace_;
  std::vector<Cpu> cpus_;
  std::map<std::string, int> irq_tids_;     // IRQ line -> track
  std::map<int, uint64_t> line_rise_;       // track -> time the line went high
  std::map<int, uint64_t> pci_busy_until_;  // master -> end of its last slice
  std::map<int, Train> pending_train_;      // master -> its last announced train
  BusUtilisation pci_use_{kPciUtilisationIntervalPs};
  std::vector<uint64_t> fsb_busy_until_;            // per CPU: end of its last holdoff slice
  std::map<std::pair<int, int>, uint64_t> flowed_;  // (CPU, master) -> the train last arrowed
  std::map<int, std::vector<Ledger>> ledgers_;      // tid -> the ledgers to draw there
  std::unordered_map<const char*, int> fn_labels_;  // function name literal -> interned label
};

}  // namespace latsim::platform::timeline
