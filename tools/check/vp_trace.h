#pragma once
// Reads the voluntary-preempt latency tracer's text (kernel_sim/trace/latency_tracer.cpp,
// docs/MODEL.md, VP trace format): the header's latency and task, then one line per mcount entry
//   PPPPPPPP T.TTTms (+D.DDDms): function (parent)
// where D is the time from this entry to the next one (to the section's end for the last):
// the entry's "step". v1.0.3 (seed 000, Q5) printed D as the time since the previous entry
// instead (its __switch_to +0.764 ms is the step that ends there); which one a file uses is
// read off its timestamps, and steps are always stored to the next entry. The older layouts
// without the preempt_count column (v1.0) or with a leading pid column (v1.0.7) read the
// same way.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace latsim::check {

struct TraceStep {
  std::string fn, parent;
  uint32_t preempt_count = 0;
  int64_t at_us = 0;    // since the section started
  int64_t step_us = 0;  // to the next entry
  size_t line = 0;      // 1-based line in the file
  // The caller named by the entry that ends the step (empty for the last): when the step
  // ends with a call, the time went in that caller's code (dequeue_task +0.764 ms, then
  // __switch_to (schedule): the time is schedule's).
  std::string next_parent;

  // Whose code the step's time went in: the function it starts in, or the caller of the
  // function that ends it.
  bool in(const std::string& f) const { return fn == f || next_parent == f; }
};

struct VpTrace {
  std::string file;  // name for messages (the file name inside traces/)
  int64_t latency_us = 0;
  std::string task;  // "ksoftirqd/0/3"
  // The functions the section started and ended in (" => started at: rtl8139_poll+0x3c/0x160").
  std::string started_in, ended_in;
  std::vector<TraceStep> steps;

  // The entry with the longest step (the first of equal ones); nullptr when empty.
  const TraceStep* longest_step() const;
};

// A trace file that is not in this format: "FILE:LINE: message".
class TraceFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

VpTrace parse_vp_trace(const std::string& text, const std::string& name);

// Every *.txt in DIR (a run's traces/), sorted by file name; none when DIR is missing.
std::vector<VpTrace> read_trace_dir(const std::filesystem::path& dir);

// The trace with the largest latency (the first of equal ones), nullptr when none.
const VpTrace* longest_trace(const std::vector<VpTrace>& traces);

}  // namespace latsim::check
