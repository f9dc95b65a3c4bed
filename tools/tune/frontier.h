#pragma once
// The Pareto frontier of a set of runs: the settings no other setting beats on every
// objective at once (`latsim sweep --pareto`, `latsim tune`). A trade-off such as
// "worst latency against disk throughput" has no single best point; the frontier is what a
// user chooses from.
#include <optional>
#include <string>
#include <vector>
#include "tools/metrics/metric_path.h"

namespace latsim::tune {

enum class Sense { Min, Max };

struct Objective {
  metrics::MetricPath metric;
  Sense sense = Sense::Min;
};

// "latency_tracer.max_us:min,disk.read_mb_s:max": two or three distinct metrics, each with
// :min or :max; nullopt with why in `error`.
std::optional<std::vector<Objective>> parse_objectives(const std::string& text, std::string& error);

// One objective's value for a setting from its seeds' values: the worst (max for Min, min
// for Max) or the quantile (linear between the order statistics, 0 the best, 1 the worst);
// NaN when there are none. `sweep --pareto` and `tune` judge a setting by it.
double across_seeds(std::vector<double> values, Sense sense,
                    std::optional<double> quantile = std::nullopt);

// One flag per point (`values[i]`: its objectives' values, in `senses` order): true when no
// other point dominates it, i.e. is at least as good on every objective and better on one.
// Equal points are all optimal; an objective equal everywhere decides nothing. A point with
// a missing value (NaN) is never optimal and dominates none.
std::vector<bool> pareto_optimal(const std::vector<std::vector<double>>& values,
                                 const std::vector<Sense>& senses);

}  // namespace latsim::tune
