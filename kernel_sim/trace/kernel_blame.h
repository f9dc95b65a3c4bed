#pragma once
// The kernel's side of the blame ledger (blame.h). A CPU's calls are charged, with what
// the kernel knows of the caller (the function, the context, the task, the lock being
// spun on, the disk request in flight), to the ledgers open on that CPU: the traced
// section, and blame windows: an interval a benchmark measures, on every CPU the task may
// run on (a timer's wake-up, from the time it was due until the woken thread looks at the
// clock; latencytest's CPU loop, and the time from one audio write's return to the next).
#include <deque>
#include <memory>
#include <string>
#include <vector>
#include "kernel_sim/sched/cputime.h"

namespace latsim::kernel {

class Kernel;
struct Task;

// The ledger of one measured interval, `label`'s longest, on the CPU where it ended.
struct WindowBlame {
  std::string label;    // the program and what: "cyclictest T0", "latencytest dsk wrt loop"
  std::string measure;  // "wake-up" (due .. seen), "cpu loop", "write" (return .. return)
  int pid = -1, cpu = 0;
  sc_core::sc_time start, end;
  std::vector<BlameItem> items;
};

class KernelBlame : public CallBlame, public BlameNames {
 public:
  explicit KernelBlame(Kernel& k);
  void call_end(CpuOps& hw, int cpu, CpuClass c, uint64_t start_ps, uint64_t end_ps,
                int64_t port) override;
  // Charge `cpu`'s run of calls so far to the ledgers open now: before a ledger opens or
  // closes on it.
  void flush(int cpu);

  // A window from `start` (now or later) on the CPUs the task may run on; its id.
  int open_window(const sc_core::sc_time& start, uint32_t cpus_allowed);
  // Close it now: the ledger of `cpu` becomes `label`'s if it is its longest (an empty
  // label: an interval not measured, dropped).
  void close_window(int id, int cpu, const std::string& label, const char* measure, int pid);
  // Each label's longest interval, in the order the labels first closed a window.
  const std::vector<WindowBlame>& windows() const { return worst_; }

  std::string comm(int pid) const override;  // "" once the task has exited
  BlameRequest request(uint64_t seq) const override;

 private:
  struct Window {
    int id;
    uint64_t start_ps;
    uint32_t cpus_allowed;  // the woken task's affinity: it can run only there
    // Per CPU; shared by windows that open with the same start on the same CPUs (latencytest's
    // loop and write): their charges are the same until one closes.
    std::shared_ptr<std::vector<BlameLedger>> cpus;
  };
  void keep_if_longest(WindowBlame w, const BlameLedger& ledger);
  // A ledger is open on `cpu` at `end_ps`: the traced section's, or a window's.
  bool wants(int cpu, uint64_t end_ps) const;
  void charge_stalled(int cpu, CpuClass c, uint64_t start_ps, uint64_t end_ps, int64_t port);
  void charge(int cpu, CpuClass c, const BlameCall& call);  // a call that stalled
  // The code running on a CPU, as what the kernel knows of it: the class of the call
  // (its context), the function, the interrupt being handled, the task.
  struct Code {
    CpuClass c = CpuClass::Idle;
    const char* fn = nullptr;
    int intr = -1;
    const Task* task = nullptr;
    int pid = -1;
    bool critical = false;  // a critical section open on the CPU
  };
  Code code_now(int cpu, CpuClass c) const;
  static void code_key(const Code& code, BlameKey& key);
  // Who made a stalled call: the code, the lock spun on, the disk request in flight.
  BlameCaller caller(int cpu, CpuClass c);
  static constexpr size_t kRequestsKept = 256;  // more than a ledger spans
  Kernel& k_;
  // A CPU's calls since the last flush: back to back, unstalled, made by the same code
  // (the same Code). Charged as one, when something changes.
  struct Run {
    bool open = false;
    Code code;
    uint64_t start_ps = 0, end_ps = 0;
  };
  std::vector<Run> runs_;
  std::vector<Window> open_;
  std::vector<std::shared_ptr<std::vector<BlameLedger>>> spare_;  // closed windows', to reuse
  int next_id_ = 0;
  std::vector<WindowBlame> worst_;
  std::deque<BlameRequest> requests_;
  StallTotals stalls_;  // the last stalled call's: filled by CpuOps::take_call_stalls  // the IDE
                        // requests charged lately, by seq
};

}  // namespace latsim::kernel
