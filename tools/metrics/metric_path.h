#pragma once
// A path into metrics.json, the one syntax of `latsim check`, `sweep` and `sweep-merge`:
// keys joined by dots, a number indexing an array (`cpus.0.stall_us.pci`) or naming an
// object's key (`irqs.14.count`), e.g. `latency_tracer.max_us`, `workloads.cyclictest.max_us`.
// `cpus[0].stall_us.pci` is accepted too and becomes `cpus.0.stall_us.pci`: dots alone say
// everything (the document says whether a step is an index), and need no quotes in YAML.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace latsim::metrics {

struct MetricPath {
  std::string text;                // canonical: dotted
  std::vector<std::string> steps;  // a key, or the digits of an array index
};

// Parses `text`; on a malformed path returns nullopt and says why in `error`.
std::optional<MetricPath> parse_metric_path(const std::string& text, std::string& error);

// "a.b, c[1].d" -> each path, canonical, duplicates dropped; nullopt with why in `error`.
std::optional<std::vector<MetricPath>> parse_metric_list(const std::string& text,
                                                         std::string& error);

// The value at `path` in `metrics`, or nullopt with why in `error` ("latency_tracer has no
// key `max` (has: ...); did you mean `latency_tracer.max_us`?").
std::optional<nlohmann::json> metric_at(const nlohmann::json& metrics, const MetricPath& path,
                                        std::string& error);

// The number at `path`, or nullopt with why in `error` (also "... is a string, not a number").
std::optional<double> metric_value(const nlohmann::json& metrics, const MetricPath& path,
                                   std::string& error);

// The path of every number (and boolean) in `metrics`, canonical, in document order.
std::vector<std::string> metric_paths(const nlohmann::json& metrics);

// The real metric nearest to `path` by edit distance, "" when none is near.
std::string nearest_metric(const nlohmann::json& metrics, const std::string& path);

}  // namespace latsim::metrics
