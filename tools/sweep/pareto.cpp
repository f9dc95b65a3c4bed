#include "tools/sweep/pareto.h"

#include <fmt/format.h>
#include <algorithm>
#include <numeric>

#include "tools/sweep/grid.h"
#include "tools/sweep/svg_plot.h"

namespace latsim::sweep {

std::string ParetoSpec::text() const {
  std::vector<std::string> items;
  for (const auto& o : objectives)
    items.push_back(o.metric.text + (o.sense == tune::Sense::Min ? ":min" : ":max"));
  return fmt::format("{}", fmt::join(items, ","));
}

std::string ParetoSpec::across(size_t seeds) const {
  if (seeds == 1) return "1 seed";
  if (!quantile) return fmt::format("worst of {} seeds", seeds);
  return fmt::format("{} quantile of {} seeds (0: best, 1: worst)", format_number(*quantile),
                     seeds);
}

ParetoSpec parse_pareto(const std::string& text, std::optional<double> quantile) {
  ParetoSpec spec;
  if (text.empty()) {
    if (quantile) throw GridError("--pareto-quantile needs --pareto METRIC:min|max,...");
    return spec;
  }
  std::string why;
  auto objectives = tune::parse_objectives(text, why);
  if (!objectives)
    throw GridError(fmt::format(
        "--pareto `{}`: {} (expected two or three paths into metrics.json, each with :min or "
        ":max, e.g. latency_tracer.max_us:min,disk.read_mb_s:max)",
        text, why));
  if (quantile && !(*quantile >= 0 && *quantile <= 1))
    throw GridError(
        fmt::format("--pareto-quantile {}: expected a number from 0 (best seed) to 1 "
                    "(worst seed)",
                    format_number(*quantile)));
  spec.objectives = *objectives;
  spec.quantile = quantile;
  return spec;
}

std::vector<size_t> frontier_order(const std::vector<std::vector<double>>& values,
                                   const std::vector<bool>& optimal,
                                   const std::vector<tune::Sense>& senses) {
  std::vector<size_t> order;
  for (size_t i = 0; i < values.size(); ++i)
    if (optimal[i]) order.push_back(i);
  // Signed so that smaller is better on every objective.
  auto key = [&](size_t i, size_t k) {
    return senses[k] == tune::Sense::Min ? values[i][k] : -values[i][k];
  };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    for (size_t k = 0; k < senses.size() && k < 2; ++k)
      if (key(a, k) != key(b, k)) return key(a, k) < key(b, k);
    return a < b;
  });
  return order;
}

}  // namespace latsim::sweep
