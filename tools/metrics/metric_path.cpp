#include "tools/metrics/metric_path.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>

#include "common/params.h"

namespace latsim::metrics {

namespace {

using nlohmann::json;

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

const char* kind_of(const json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  return "a number";
}

std::string join(const std::string& at, const std::string& step) {
  return at.empty() ? step : at + "." + step;
}

void collect_paths(const json& j, const std::string& at, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) collect_paths(*it, join(at, it.key()), out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) collect_paths(j[i], join(at, std::to_string(i)), out);
  } else if (j.is_number() || j.is_boolean()) {
    out.push_back(at);
  }
}

std::string did_you_mean(const json& metrics, const MetricPath& path) {
  const std::string guess = nearest_metric(metrics, path.text);
  return guess.empty() ? "" : fmt::format("; did you mean `{}`?", guess);
}

}  // namespace

std::optional<MetricPath> parse_metric_path(const std::string& text, std::string& error) {
  MetricPath p;
  if (text.empty()) {
    error = "empty metric path";
    return std::nullopt;
  }
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '[') {  // the alias: [N] is the step N
      const size_t close = text.find(']', i);
      const std::string idx = close == std::string::npos ? "" : text.substr(i + 1, close - i - 1);
      if (close == std::string::npos || !all_digits(idx) || idx.size() > 9) {
        error =
            fmt::format("`{}`: an array index is [N] with N a number from 0 to 999999999", text);
        return std::nullopt;
      }
      p.steps.push_back(idx);
      i = close + 1;
      if (i < text.size() && text[i] != '.' && text[i] != '[') {
        error = fmt::format("`{}`: expected `.` or `[` after `]`", text);
        return std::nullopt;
      }
      if (i < text.size() && text[i] == '.' && ++i == text.size()) {
        error = fmt::format("`{}`: ends with `.`", text);
        return std::nullopt;
      }
      continue;
    }
    size_t end = i;
    while (end < text.size() && text[end] != '.' && text[end] != '[') ++end;
    const std::string key = text.substr(i, end - i);
    if (key.empty()) {
      error = fmt::format("`{}`: empty key between dots", text);
      return std::nullopt;
    }
    if (key.find(']') != std::string::npos) {
      error = fmt::format("`{}`: `]` without `[`", text);
      return std::nullopt;
    }
    p.steps.push_back(key);
    i = end;
    if (i < text.size() && text[i] == '.' && ++i == text.size()) {
      error = fmt::format("`{}`: ends with `.`", text);
      return std::nullopt;
    }
  }
  p.text = fmt::format("{}", fmt::join(p.steps, "."));
  return p;
}

std::optional<std::vector<MetricPath>> parse_metric_list(const std::string& text,
                                                         std::string& error) {
  std::vector<MetricPath> out;
  size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    auto p = parse_metric_path(item, error);
    if (!p) return std::nullopt;
    bool seen = false;
    for (const auto& q : out) seen |= q.text == p->text;
    if (!seen) out.push_back(std::move(*p));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::optional<json> metric_at(const json& metrics, const MetricPath& path, std::string& error) {
  const json* node = &metrics;
  std::string at;
  for (const auto& key : path.steps) {
    const std::string where = at.empty() ? "metrics.json" : at;
    if (node->is_array()) {
      // More digits than any array has entries: no such entry (stoull would overflow).
      const size_t idx = !all_digits(key) || key.size() > 9 ? node->size() : std::stoull(key);
      if (idx >= node->size()) {
        error = fmt::format("{} is an array of {} entries, no entry `{}`{}", where, node->size(),
                            key, did_you_mean(metrics, path));
        return std::nullopt;
      }
      node = &(*node)[idx];
    } else if (!node->is_object()) {
      error = fmt::format("{} is {}, it has no key `{}`", where, kind_of(*node), key);
      return std::nullopt;
    } else {
      const auto it = node->find(key);
      if (it == node->end()) {
        std::vector<std::string> keys;
        for (auto k = node->begin(); k != node->end(); ++k) keys.push_back(k.key());
        error = fmt::format("{} has no key `{}` (has: {}){}", where, key, fmt::join(keys, ", "),
                            did_you_mean(metrics, path));
        return std::nullopt;
      }
      node = &*it;
    }
    at = join(at, key);
  }
  return *node;
}

std::optional<double> metric_value(const json& metrics, const MetricPath& path,
                                   std::string& error) {
  const auto v = metric_at(metrics, path, error);
  if (!v) return std::nullopt;
  if (!v->is_number()) {
    error = fmt::format("{} is {}, not a number", path.text, kind_of(*v));
    return std::nullopt;
  }
  return v->get<double>();
}

std::vector<std::string> metric_paths(const json& metrics) {
  std::vector<std::string> out;
  collect_paths(metrics, "", out);
  return out;
}

std::string nearest_metric(const json& metrics, const std::string& path) {
  return params::closest_match(path, metric_paths(metrics));
}

}  // namespace latsim::metrics
