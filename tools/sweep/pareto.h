#pragma once
// `latsim sweep --pareto`: which settings of a sweep are Pareto-optimal for two or three
// objectives (tools/tune/frontier.h), each setting judged by its worst value across seeds (or
// a chosen quantile); svg_plot.h draws the frontier, pareto.svg.
#include <optional>
#include <string>
#include <vector>

#include "tools/tune/frontier.h"

namespace latsim::sweep {

struct ParetoSpec {
  std::vector<tune::Objective> objectives;  // empty: no frontier
  // Across a setting's seeds: nullopt the worst value, else this quantile from the best (0)
  // to the worst (1), so 1 is the worst and 0.5 the median.
  std::optional<double> quantile;

  bool any() const { return !objectives.empty(); }
  std::string text() const;  // "latency_tracer.max_us:min,disk.read_mb_s:max"
  // How a setting's value comes from its seeds: "worst of 5 seeds", "0.9 quantile of 5
  // seeds (0: best, 1: worst)", "1 seed".
  std::string across(size_t seeds) const;
};

// The spec of --pareto TEXT [--pareto-quantile Q]; throws GridError saying what is wrong.
ParetoSpec parse_pareto(const std::string& text, std::optional<double> quantile);

// The optimal settings in frontier order: by the first objective from best to worst, ties by
// the second, then by index.
std::vector<size_t> frontier_order(const std::vector<std::vector<double>>& values,
                                   const std::vector<bool>& optimal,
                                   const std::vector<tune::Sense>& senses);

}  // namespace latsim::sweep
