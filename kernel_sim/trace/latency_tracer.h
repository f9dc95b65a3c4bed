#pragma once
// The voluntary-preempt patch's preemption/irq-off latency tracer: per CPU, a
// critical section runs from the moment preemption or interrupts go off until
// both are back on; mcount entries are recorded while it runs; a section longer
// than /proc/sys/kernel/preempt_max_latency is kept as a trace.
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>
#include "kernel_sim/trace/blame.h"
#include "kernel_sim/trace/latency_tracer_params.h"
#include "kernel_sim/trace/span_probe.h"
#include "kernel_sim/trace/symbols.h"

namespace latsim::kernel {

using sc_core::sc_time;

struct TraceEntry {
  uint32_t preempt_count;
  sc_time t;
  const char* fn;
  const char* parent;
};

struct TaskInfo {
  std::string comm;
  int pid = 0, uid = 0, nice = 0, policy = 0, rt_prio = 0;
};

struct LatencyTrace {
  uint64_t latency_us = 0;
  int cpu = 0;
  TaskInfo task;
  CodeSite start, end;
  sc_time t_start, t_end;
  uint64_t total_entries = 0;
  std::vector<TraceEntry> entries;
  std::vector<BlameItem> blame;  // where [t_start, t_end] went (blame.h): sums to it
  TaskInfo opened_by;            // the task current when the section began
  const char* lock = "";         // the spinlock whose acquisition began it, if one did
};

class LatencyTracer {
 public:
  LatencyTracer(int ncpus, const LatencyTracerParams& p);

  bool tracing() const { return p_.enabled; }
  bool active(int cpu) const { return cpus_[cpu].active; }
  // `lock`: the spinlock being taken, when its acquisition opens the section.
  void begin(int cpu, sc_time now, const CodeSite& site, const char* parent, uint32_t pc,
             const TaskInfo& task, const char* lock = "");
  void mcount(int cpu, sc_time now, uint32_t pc, const char* fn, const char* parent);
  void end(int cpu, sc_time now, const CodeSite& site);
  // As above, `ending` being the task current at the end (named when task_at_end).
  void end(int cpu, sc_time now, const CodeSite& site, const TaskInfo& ending);

  uint64_t max_us() const { return max_us_; }
  uint64_t over_threshold() const { return over_; }
  uint64_t sections() const { return sections_; }
  uint64_t threshold_us() const { return p_.threshold_us; }
  // Kept traces, longest first (ties: earlier first).
  std::vector<LatencyTrace> traces() const;
  // traces/ file of the n-th kept trace (from 1, longest first): "trace-001-2302us.txt".
  static std::string file_name(int n, const LatencyTrace& t);
  // The longest section seen, over the threshold or not (/proc/latency_trace).
  const LatencyTrace& max_trace() const { return max_trace_; }
  // "new N us maximum-latency critical section" messages, as the kernel logged them.
  const std::vector<std::string>& messages() const { return log_; }
  // When each message was logged (the end of its section).
  const std::vector<sc_time>& message_times() const { return log_t_; }
  // The messages as syslogd wrote them to /var/log/messages (seed 000):
  // "Jan  1 00:00:12 <host> kernel: (X/2382): new 329 us maximum-latency ...".
  std::string syslog(const std::string& host) const;

  // Who keeps each CPU's section ledger (blame.h), read for a section kept as it ends.
  void set_blame(const SectionBlame* b) { blame_ = b; }

  std::string format(const LatencyTrace& t) const;
  const SpanProbe& spans() const { return spans_; }

 private:
  struct PerCpu {
    bool active = false;
    sc_time t0;
    CodeSite start;
    TaskInfo task, opened_by;
    const char* lock = "";
    uint64_t total = 0;
    std::vector<TraceEntry> buf;
  };
  LatencyTracerParams p_;
  std::vector<PerCpu> cpus_;
  std::vector<LatencyTrace> kept_;  // min-heap on latency
  LatencyTrace max_trace_;
  uint64_t max_us_ = 0, over_ = 0, sections_ = 0;
  std::vector<std::string> log_;
  std::vector<sc_time> log_t_;
  SpanProbe spans_;
  const SectionBlame* blame_ = nullptr;
};

}  // namespace latsim::kernel
