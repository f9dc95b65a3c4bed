#pragma once
// The latency tracer's parameters: the tracing.* keys and the VP patch's
// /proc/sys/kernel/preempt_max_latency (declared with the kernel's tunables).
#include <cstddef>
#include <cstdint>
#include <string>
#include "common/params.h"

namespace latsim::kernel {

struct LatencyTracerParams {
  bool enabled = true;          // /proc/sys/kernel/tracing_enabled
  uint64_t threshold_us = 500;  // /proc/sys/kernel/preempt_max_latency
  size_t max_traces = 50;       // how many of the longest are kept
  size_t max_entries = 4000;    // per-trace mcount buffer
  std::string kernel_version;   // the header's; the kernel sets it from kernel.version
  std::string spans;            // SpanProbe spec: "A..B,C" (empty: none)
  // The VP tracer's update_max_tr copies `current` (comm, pid, nice...) when the section
  // ends, in check_critical_timing: a section that spans a switch names the next task.
  bool task_at_end = true;
  // The blame ledger (blame.h) of every kept trace and timer wake-up, for latsim explain.
  bool blame = true;
  // Calls a CPU's ledger journal holds before the open ledgers add up what they have: a
  // memory bound (48 bytes a call, 256 more a stalled one); the ledgers do not depend on it.
  size_t blame_journal = 8192;
};

// tracing.*, paths under "tracing." (latency_tracer.cpp).
params::Table<LatencyTracerParams> tracer_keys();

}  // namespace latsim::kernel
