#pragma once
// A census of a run's latency traces, the way the seed's author sorted his by hand
// ("Slow getting to switch_tasks (00, 01, 10, 12, 13, 16)", seed 000, 2004-08-31): how
// many traces share a section (where it started and ended) and how many share the step
// their time went in (the longest step: its entry, that entry's caller, the next entry).
#include <cstdint>
#include <string>
#include <vector>

#include "tools/check/vp_trace.h"

namespace latsim::check {

struct CensusRow {
  std::string key;                 // "schedule .. schedule", "spin_lock (do_IRQ) -> ack_..."
  size_t traces = 0;               // how many traces fall in it
  int64_t longest_us = 0;          // the longest trace's latency (sections) or step (steps)
  std::vector<std::string> files;  // every member's file name, in the tracer's rank order
};

struct TraceCensus {
  size_t traces = 0;  // traces counted (max.txt, a copy of the longest, is not)
  int64_t shortest_us = 0, longest_us = 0;
  std::vector<CensusRow> by_section;  // most traces first, then longest, then key
  std::vector<CensusRow> by_step;
};

// Counts `traces` with latency >= min_us.
TraceCensus take_census(const std::vector<VpTrace>& traces, int64_t min_us = 0);

// The census as text: both tables, `top` rows each, `examples` trace numbers per row.
std::string format_census(const TraceCensus& c, const std::string& where, size_t top = 15,
                          size_t examples = 8);

// "trace-3953-791us.txt" -> "3953"; other names are kept whole.
std::string trace_number(const std::string& file);

}  // namespace latsim::check
