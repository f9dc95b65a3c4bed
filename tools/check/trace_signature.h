#pragma once
// Trace signatures of a hypothesis: shapes a run's latency traces must show.
//   longest_step_in: F (or [F, G])  in the longest trace, the longest step is F's (or one of
//                                   them), and it is at least min_step_us long
//   consecutive_steps_over_us: X    "slow motion": some trace has count_at_least consecutive
//     count_at_least: N             steps each longer than X us (and shorter than
//                                   steps_under_us, when given); with in_traces_over_us
//                                   only traces at least that long count
//   longest_trace_has: F (or list)  every one of these functions has an entry in the
//                                   longest trace
//   longest_section_in: F (or list) of the traces whose section started or ended in F (the
//     min_us: N, max_us: M          tracer's "=> started at:" / "=> ended at:" sites), the
//                                   longest lasts N..M us (either bound may be left out)
#include <optional>
#include <string>
#include <vector>

#include "tools/check/vp_trace.h"

namespace latsim::check {

struct TraceSignature {
  enum class Kind { LongestStepIn, SlowMotion, LongestTraceHas, LongestSectionIn };
  Kind kind = Kind::LongestStepIn;
  std::vector<std::string> functions;     // LongestStepIn, LongestSectionIn: one of;
                                          // LongestTraceHas: all of
  int64_t min_step_us = 0;                // LongestStepIn
  int64_t step_over_us = 0;               // SlowMotion: every step > this
  std::optional<int64_t> step_under_us;   // SlowMotion: and < this
  size_t count_at_least = 0;              // SlowMotion
  int64_t in_traces_over_us = 0;          // SlowMotion: only traces this long or longer
  std::optional<int64_t> min_us, max_us;  // LongestSectionIn: the section's latency bounds

  std::string what() const;      // the table's metric column: "trace: longest step"
  std::string expected() const;  // "in schedule|__switch_to, ≥ 50 us"
};

struct SignatureResult {
  bool holds = false;
  std::string measured;  // "__switch_to 764 us (max.txt, 2305 us)"
  double value = 0;      // the number behind it (step us, run length, functions found)
};

SignatureResult evaluate(const TraceSignature& sig, const std::vector<VpTrace>& traces);

}  // namespace latsim::check
