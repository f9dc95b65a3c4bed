#pragma once
// A path into metrics.json: dotted keys with array indexes, e.g. `latency_tracer.max_us`,
// `cpus[1].fsb_stall_us` (also `cpus.1.fsb_stall_us`), `workloads.cyclictest.max_us`.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace latsim::check {

struct MetricPath {
  std::string text;                                      // as written
  std::vector<std::variant<std::string, size_t>> steps;  // a key or an array index
};

// Parses `text`; on a malformed path returns nullopt and says why in `error`.
std::optional<MetricPath> parse_metric_path(const std::string& text, std::string& error);

// The number at `path` in `metrics`, or nullopt with why in `error` ("no key `max_us` in
// latency_tracer (has: ...)", "... is a string, not a number").
std::optional<double> metric_value(const nlohmann::json& metrics, const MetricPath& path,
                                   std::string& error);

}  // namespace latsim::check
