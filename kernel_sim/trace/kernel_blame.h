#pragma once
// The kernel's side of the blame ledger (blame.h). While a ledger is open on a CPU, its
// calls are written to the CPU's journal with what the kernel knows of the caller (the
// function, the context, the task, the lock being spun on, the disk request in flight).
// A ledger is a mark in that journal (CallJournal, cputime.h): the traced section's, and blame
// windows': an interval a benchmark measures, on every CPU the task may run on (a timer's wake-up,
// from the time it was due until the woken thread looks at the clock; latencytest's CPU
// loop, and the time from one audio write's return to the next). A ledger is added up
// only when it is read: for a section the tracer keeps, for a window that is its label's
// longest.
#include <deque>
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
  int pid = -1, prio = -1, cpu = 0;  // the task's, as it closed the window
  sc_core::sc_time start, end;
  std::vector<BlameItem> items;
};

class KernelBlame : public CallJournal::Owner, public SectionBlame, public BlameNames {
 public:
  // `journal_calls`: each CPU journal's size before a fold (tracing.blame_journal).
  KernelBlame(Kernel& k, size_t journal_calls);
  CallJournal& journal(int cpu) { return journals_[size_t(cpu)]; }
  // A critical section opens or closes on `cpu` now: the traced section's ledger.
  void section_edge(int cpu, bool open);
  std::vector<BlameItem> section_items(int cpu) const override;

  // A window from `start` (now or later) on the CPUs the task may run on; its id.
  int open_window(const sc_core::sc_time& start, uint32_t cpus_allowed);
  // Close it now: the ledger of `cpu` becomes `label`'s if it is its longest (an empty
  // label: an interval not measured, dropped).
  void close_window(int id, int cpu, const std::string& label, const char* measure,
                    const Task& woken);
  // Each label's longest interval, in the order the labels first closed a window.
  const std::vector<WindowBlame>& windows() const { return worst_; }

  std::string comm(int pid) const override;  // "" once the task has exited
  BlameRequest request(uint64_t seq) const override;

  void stalled_call(int cpu, CpuClass c, uint64_t start_ps, uint64_t end_ps, int64_t port) override;
  void fold(int cpu) override;

 private:
  using Entry = CallJournal::Entry;
  struct Window {
    int id;
    uint64_t start_ps;
    uint32_t cpus_allowed;            // the woken task's affinity: it can run only there
    std::vector<size_t> mark;         // per CPU: the window's first entry in the journal
    std::vector<BlameLedger> folded;  // per CPU: its entries before the journal was folded
  };
  static constexpr uint64_t kUnarmed = CallJournal::kUnarmed;
  static constexpr size_t kRequestsKept = 256;  // more than a ledger spans

  // Who made a stalled call: the code, the lock spun on, the disk request in flight.
  BlameCaller caller(int cpu, CpuClass c);
  static BlameKey code_key(CpuClass c, const char* fn, int intr, int pid, int prio, bool critical);
  // Add `j`'s entries from `from` on into `l`, the part after `start_ps` of each.
  static void replay(const CallJournal& j, size_t from, uint64_t start_ps, BlameLedger& l);
  BlameLedger window_ledger(const Window& w, int cpu) const;
  void arm(int cpu);  // after a ledger on `cpu` opened or closed
  static bool covers(const Window& w, int cpu) { return w.cpus_allowed >> cpu & 1; }
  void keep_if_longest(WindowBlame w, const Window& open);

  Kernel& k_;
  std::vector<CallJournal> journals_;  // per CPU
  std::vector<Window> open_;
  std::vector<Window> spare_;  // closed windows, to reuse their memory
  int next_id_ = 0;
  std::vector<WindowBlame> worst_;
  std::deque<BlameRequest> requests_;  // the IDE requests charged lately, by seq
};

}  // namespace latsim::kernel
