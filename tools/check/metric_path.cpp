#include "tools/check/metric_path.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>

namespace latsim::check {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

const char* kind_of(const nlohmann::json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  return "a number";
}

}  // namespace

std::optional<MetricPath> parse_metric_path(const std::string& text, std::string& error) {
  MetricPath p{text, {}};
  size_t i = 0;
  if (text.empty()) {
    error = "empty metric path";
    return std::nullopt;
  }
  while (i < text.size()) {
    if (text[i] == '[') {
      const size_t close = text.find(']', i);
      const std::string idx = close == std::string::npos ? "" : text.substr(i + 1, close - i - 1);
      if (close == std::string::npos || !all_digits(idx) || idx.size() > 9) {
        error =
            fmt::format("`{}`: an array index is [N] with N a number from 0 to 999999999", text);
        return std::nullopt;
      }
      p.steps.emplace_back(size_t(std::stoull(idx)));
      i = close + 1;
      if (i < text.size() && text[i] != '.' && text[i] != '[') {
        error = fmt::format("`{}`: expected `.` or `[` after `]`", text);
        return std::nullopt;
      }
      if (i < text.size() && text[i] == '.') ++i;
      if (i == text.size() && text.back() == '.') {
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
    p.steps.emplace_back(key);
    i = end;
    if (i < text.size() && text[i] == '.') {
      ++i;
      if (i == text.size()) {
        error = fmt::format("`{}`: ends with `.`", text);
        return std::nullopt;
      }
    }
  }
  return p;
}

std::optional<double> metric_value(const nlohmann::json& metrics, const MetricPath& path,
                                   std::string& error) {
  const nlohmann::json* node = &metrics;
  std::string at = "metrics.json";
  for (const auto& step : path.steps) {
    // A key of digits also indexes an array (cpus.1.spin_us).
    const std::string* key = std::get_if<std::string>(&step);
    if (node->is_array() && (!key || all_digits(*key))) {
      const size_t idx = !key              ? std::get<size_t>(step)
                         : key->size() > 9 ? node->size()  // beyond any array: no such entry
                                           : size_t(std::stoull(*key));
      if (idx >= node->size()) {
        error = fmt::format("{} has {} entries, no [{}]", at, node->size(),
                            key ? *key : std::to_string(idx));
        return std::nullopt;
      }
      node = &(*node)[idx];
      at += fmt::format("[{}]", idx);
      continue;
    }
    if (!key) {
      error = fmt::format("{} is {}, not an array", at, kind_of(*node));
      return std::nullopt;
    }
    if (!node->is_object()) {
      error = fmt::format("{} is {}, it has no key `{}`", at, kind_of(*node), *key);
      return std::nullopt;
    }
    const auto it = node->find(*key);
    if (it == node->end()) {
      std::vector<std::string> keys;
      for (auto k = node->begin(); k != node->end(); ++k) keys.push_back(k.key());
      error = fmt::format("{} has no key `{}` (has: {})", at, *key, fmt::join(keys, ", "));
      return std::nullopt;
    }
    node = &*it;
    at = at == "metrics.json" ? *key : at + "." + *key;
  }
  if (!node->is_number()) {
    error = fmt::format("{} is {}, not a number", at, kind_of(*node));
    return std::nullopt;
  }
  return node->get<double>();
}

}  // namespace latsim::check
