#include "tools/tune/frontier.h"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <set>

namespace latsim::tune {

namespace {

std::optional<Objective> parse_objective(const std::string& item, std::string& error) {
  const size_t colon = item.rfind(':');
  const std::string sense = colon == std::string::npos ? "" : item.substr(colon + 1);
  if (sense != "min" && sense != "max") {
    error = fmt::format("`{}`: say which way is better: METRIC:min or METRIC:max", item);
    return std::nullopt;
  }
  auto path = metrics::parse_metric_path(item.substr(0, colon), error);
  if (!path) return std::nullopt;
  return Objective{*path, sense == "min" ? Sense::Min : Sense::Max};
}

// `a` is at least as good as `b` on every objective, and better on one.
bool dominates(const std::vector<double>& a, const std::vector<double>& b,
               const std::vector<Sense>& senses) {
  bool better = false;
  for (size_t k = 0; k < senses.size(); ++k) {
    const double x = senses[k] == Sense::Min ? -a[k] : a[k];
    const double y = senses[k] == Sense::Min ? -b[k] : b[k];
    if (x < y) return false;
    better |= x > y;
  }
  return better;
}

std::vector<std::string> items(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t comma; (comma = text.find(',', from)) != std::string::npos; from = comma + 1)
    out.push_back(text.substr(from, comma - from));
  out.push_back(text.substr(from));
  for (auto& s : out) {
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
  }
  return out;
}

bool complete(const std::vector<double>& v) {
  for (double x : v)
    if (std::isnan(x)) return false;
  return true;
}

}  // namespace

std::optional<std::vector<Objective>> parse_objectives(const std::string& text,
                                                       std::string& error) {
  std::vector<Objective> out;
  std::set<std::string> seen;
  for (const std::string& item : items(text)) {
    auto o = parse_objective(item, error);
    if (!o) return std::nullopt;
    if (!seen.insert(o->metric.text).second) {
      error = fmt::format("`{}` is named twice", o->metric.text);
      return std::nullopt;
    }
    out.push_back(*o);
  }
  if (out.size() < 2 || out.size() > 3) {
    error = fmt::format("a frontier needs two or three metrics, not {} (`{}`)", out.size(), text);
    return std::nullopt;
  }
  return out;
}

double across_seeds(std::vector<double> values, Sense sense, std::optional<double> quantile) {
  if (values.empty()) return NAN;
  // Best first: ascending for :min, descending for :max.
  std::sort(values.begin(), values.end());
  if (sense == Sense::Max) std::reverse(values.begin(), values.end());
  const double q = quantile.value_or(1.0);
  const double pos = q * double(values.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - double(lo));
}

std::vector<bool> pareto_optimal(const std::vector<std::vector<double>>& values,
                                 const std::vector<Sense>& senses) {
  std::vector<bool> optimal(values.size(), false);
  for (size_t i = 0; i < values.size(); ++i) {
    if (!complete(values[i])) continue;
    optimal[i] = true;
    for (size_t j = 0; j < values.size() && optimal[i]; ++j)
      if (j != i && complete(values[j]) && dominates(values[j], values[i], senses))
        optimal[i] = false;
  }
  return optimal;
}

}  // namespace latsim::tune
