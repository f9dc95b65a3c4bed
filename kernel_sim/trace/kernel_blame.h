#pragma once
// The kernel's side of the blame ledger (blame.h). A CPU's calls are charged, with what
// the kernel knows of the caller (the function, the context, the task, the lock being
// spun on, the disk request in flight), to the ledgers open on that CPU: the traced
// section, and blame windows: a timer's wake-up latency, from the time it was due until
// the woken thread looks at the clock, on every CPU (the thread may run on any).
#include <deque>
#include <string>
#include <vector>
#include "kernel_sim/sched/cputime.h"

namespace latsim::kernel {

class Kernel;

// The ledger of one wake-up: `label`'s worst, on the CPU where the thread ran.
struct WakeupBlame {
  std::string label;  // the program and thread: "cyclictest T0"
  int pid = -1, cpu = 0;
  sc_core::sc_time start, end;  // due, and seen by the thread
  std::vector<BlameItem> items;
};

class KernelBlame : public CallBlame, public BlameNames {
 public:
  explicit KernelBlame(Kernel& k) : k_(k) {}
  bool wants(int cpu, const sc_core::sc_time& end) const override;
  void charge(int cpu, CpuClass c, const BlameCall& call) override;

  // A window from `start` (now or later) on the CPUs the woken task may run on; its id.
  int open_window(const sc_core::sc_time& start, uint32_t cpus_allowed);
  // Close it now: the ledger of `cpu` becomes `label`'s wake-up if it is its longest.
  void close_window(int id, int cpu, const std::string& label, int pid);
  // Each label's longest wake-up, in the order the labels first closed a window.
  const std::vector<WakeupBlame>& wakeups() const { return worst_; }

  std::string comm(int pid) const override;  // "" once the task has exited
  BlameRequest request(uint64_t seq) const override;

 private:
  struct Window {
    int id;
    uint64_t start_ps;
    uint32_t cpus_allowed;  // the woken task's affinity: it can run only there
    std::vector<BlameLedger> cpus;
  };
  // Who made a call; the lock and the disk request only when it stalled.
  BlameCaller caller(int cpu, CpuClass c, bool stalled);
  static constexpr size_t kRequestsKept = 256;  // more than a ledger spans
  Kernel& k_;
  std::vector<Window> open_;
  int next_id_ = 0;
  std::vector<WakeupBlame> worst_;
  std::deque<BlameRequest> requests_;  // the IDE requests charged lately, by seq
};

}  // namespace latsim::kernel
