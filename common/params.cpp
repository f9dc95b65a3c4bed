#include "common/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/text.h"

namespace latsim::params {

KeySpec integer(std::string path, double min, double max, std::string unit, std::string doc) {
  KeySpec s;
  s.path = std::move(path);
  s.type = ValueType::Int;
  s.min = min;
  s.max = max;
  s.unit = std::move(unit);
  s.doc = std::move(doc);
  return s;
}
KeySpec number(std::string path, double min, double max, std::string unit, std::string doc) {
  KeySpec s = integer(std::move(path), min, max, std::move(unit), std::move(doc));
  s.type = ValueType::Double;
  return s;
}
KeySpec of_type(ValueType type, std::string path, std::string doc) {
  KeySpec s;
  s.path = std::move(path);
  s.type = type;
  s.doc = std::move(doc);
  return s;
}
KeySpec choice(std::string path, std::vector<std::string> accepted, std::string doc) {
  KeySpec s = of_type(ValueType::Enum, std::move(path), std::move(doc));
  s.accepted = std::move(accepted);
  return s;
}
KeySpec int_choice(std::string path, std::vector<std::string> accepted, std::string doc) {
  KeySpec s = choice(std::move(path), std::move(accepted), std::move(doc));
  s.type = ValueType::IntEnum;
  return s;
}
KeySpec duration(std::string path, double min_s, double max_s, std::string doc) {
  KeySpec s = number(std::move(path), min_s, max_s, "", std::move(doc));
  s.type = ValueType::Duration;
  return s;
}
KeySpec required(KeySpec s) {
  s.required = true;
  return s;
}
KeySpec implemented(KeySpec s, std::vector<std::string> subset) {
  s.implemented = std::move(subset);
  return s;
}
KeySpec multiple_of(KeySpec s, int n) {
  s.multiple_of = n;
  return s;
}
KeySpec with_unit(KeySpec s, std::string unit) {
  s.unit = std::move(unit);
  return s;
}

KeySpec multiline(KeySpec s) {
  s.multiline = true;
  return s;
}

KeySpec with_source(KeySpec s, std::string source) {
  s.source = std::move(source);
  return s;
}

namespace {

// The longest Name, in bytes: names name directories, and this is a file name's limit.
constexpr size_t kMaxNameBytes = 255;

// ---- scalar parsing --------------------------------------------------------------

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::optional<bool> parse_bool(const std::string& text) {
  const std::string t = lower(text);
  if (t == "true" || t == "on" || t == "yes" || t == "1") return true;
  if (t == "false" || t == "off" || t == "no" || t == "0") return false;
  return std::nullopt;
}

enum class NumStatus { Ok, NotANumber, Overflow };

template <class N>
NumStatus parse_number(const std::string& text, N& out) {
  std::string_view t = text;
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  if (t.empty() || t.front() == '+' || (t.front() == '-' && std::is_unsigned_v<N>)) {
    return NumStatus::NotANumber;
  }
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (end != t.data() + t.size()) return NumStatus::NotANumber;
  if (ec == std::errc::result_out_of_range) return NumStatus::Overflow;
  if (ec != std::errc()) return NumStatus::NotANumber;
  if constexpr (std::is_floating_point_v<N>) {
    if (!std::isfinite(out)) return NumStatus::NotANumber;
  }
  return NumStatus::Ok;
}

std::string format_duration(double seconds) {
  const long long us = std::llround(seconds * 1e6);
  if (us % 1000000 == 0) return fmt::format("{}s", us / 1000000);
  if (us % 1000 == 0) return fmt::format("{}ms", us / 1000);
  return fmt::format("{}us", us);
}

bool is_name(const std::string& s) {
  // Names become directory names (out/<name>/): no ".", "..", or leading dot.
  const bool first_ok =
      !s.empty() && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9'));
  return first_ok && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                  c == '-';
         });
}

std::string expected_what(ValueType type) {
  switch (type) {
    case ValueType::Int:
    case ValueType::IntEnum:
      return "an integer";
    case ValueType::UInt64:
      return "a non-negative integer";
    case ValueType::Double:
      return "a number";
    case ValueType::Bool:
    case ValueType::OnOff:
      return "a boolean (true/false, on/off, yes/no, 1/0)";
    case ValueType::Switch:
      return "0 or 1";
    case ValueType::Duration:
      return "a duration such as `30s`, `500ms`, `250us` or a number of seconds";
    case ValueType::Enum:
      return "one of the accepted values";
    case ValueType::String:
      return "a string";
    case ValueType::Name:
      return "a name";
  }
  return "a value";
}

std::string with_accepted(const std::string& message, const KeySpec& spec) {
  const std::string acc = accepted_text(spec);
  return acc.empty() ? message : fmt::format("{} (accepted: {})", message, acc);
}

ParsedValue fail(const KeySpec& spec, const std::string& message) {
  return ParsedValue{std::nullopt, with_accepted(message, spec)};
}
ParsedValue type_error(const KeySpec& spec, const std::string& text) {
  return fail(spec, fmt::format("expected {}, got `{}`", expected_what(spec.type), text));
}
ParsedValue range_error(const KeySpec& spec, const std::string& text) {
  return fail(spec, fmt::format("{} is out of range", text));
}
ParsedValue ok(Value v) { return ParsedValue{std::move(v), {}}; }

ParsedValue parse_enum(const KeySpec& spec, const std::string& text, Value v) {
  if (std::find(spec.accepted.begin(), spec.accepted.end(), text) == spec.accepted.end()) {
    // Spelling hints help with words, not numbers (HZ 300 is not a typo of 100).
    const std::string guess =
        spec.type == ValueType::Enum ? closest_match(text, spec.accepted) : std::string();
    return fail(
        spec, guess.empty()
                  ? fmt::format("`{}` is not an accepted value", text)
                  : fmt::format("`{}` is not an accepted value; did you mean `{}`?", text, guess));
  }
  if (!spec.implemented.empty() &&
      std::find(spec.implemented.begin(), spec.implemented.end(), text) == spec.implemented.end()) {
    return ParsedValue{std::nullopt, fmt::format("`{}` is not implemented yet (implemented: {})",
                                                 text, fmt::join(spec.implemented, ", "))};
  }
  return ok(std::move(v));
}

// Free text reaches outputs (trace headers, JSON, the resolved scenario) as it is.
ParsedValue parse_text(const KeySpec& spec, const std::string& text) {
  std::string v = text;  // a block scalar's final newline is not part of the text
  while (!v.empty() && v.back() == '\n') v.pop_back();
  if (v.size() > kMaxTextBytes)
    return fail(spec, fmt::format("is {} bytes long; the limit is {}", v.size(), kMaxTextBytes));
  if (const auto problem = text::unprintable(v, spec.multiline))
    return fail(spec, fmt::format("{}; expected printable UTF-8 text{}", *problem,
                                  spec.multiline ? "" : " on one line"));
  return ok(v);
}

}  // namespace

std::optional<double> parse_duration(const std::string& text) {
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"min", 60.0}, {"ms", 1e-3}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"ns", 1e-9}, {"s", 1.0}};
  std::string number = text;
  double scale = 1.0;
  for (const auto& [suffix, factor] : kUnits) {
    if (text.size() > suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      number = text.substr(0, text.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  while (!number.empty() && number.back() == ' ') number.pop_back();
  double v = 0;
  if (parse_number(number, v) != NumStatus::Ok) return std::nullopt;
  return v * scale;
}

ParsedValue parse_value(const KeySpec& spec, const std::string& text, bool is_null) {
  if (is_null) {
    if (spec.type == ValueType::String) return ok(std::string());
    return fail(spec, fmt::format("missing value; expected {}", expected_what(spec.type)));
  }
  switch (spec.type) {
    case ValueType::Int: {
      int64_t v = 0;
      const NumStatus st = parse_number(text, v);
      if (st == NumStatus::NotANumber) return type_error(spec, text);
      if (st == NumStatus::Overflow || static_cast<double>(v) < spec.min ||
          static_cast<double>(v) > spec.max) {
        return range_error(spec, text);
      }
      if (spec.multiple_of > 0 && v % spec.multiple_of != 0) {
        return fail(spec, fmt::format("{} is not a multiple of {}", text, spec.multiple_of));
      }
      return ok(v);
    }
    case ValueType::UInt64: {
      uint64_t v = 0;
      const NumStatus st = parse_number(text, v);
      if (st == NumStatus::NotANumber) return type_error(spec, text);
      if (st == NumStatus::Overflow) return range_error(spec, text);
      return ok(v);
    }
    case ValueType::Double: {
      double v = 0;
      if (parse_number(text, v) != NumStatus::Ok) return type_error(spec, text);
      if (v < spec.min || v > spec.max) return range_error(spec, text);
      return ok(v);
    }
    case ValueType::Duration: {
      const std::optional<double> v = parse_duration(text);
      if (!v) return type_error(spec, text);
      // Compare at nanosecond resolution so "1ms" is not below 0.001 s by rounding.
      if (std::llround(*v * 1e9) < std::llround(spec.min * 1e9) ||
          std::llround(*v * 1e9) > std::llround(spec.max * 1e9)) {
        return range_error(spec, text);
      }
      return ok(*v);
    }
    case ValueType::Bool:
    case ValueType::OnOff: {
      const std::optional<bool> b = parse_bool(text);
      if (!b) return type_error(spec, text);
      return ok(*b);
    }
    case ValueType::Switch: {
      if (const std::optional<bool> b = parse_bool(text)) return ok(int64_t{*b ? 1 : 0});
      int64_t v = 0;
      if (parse_number(text, v) == NumStatus::NotANumber) return type_error(spec, text);
      return range_error(spec, text);
    }
    case ValueType::Enum:
      return parse_enum(spec, text, text);
    case ValueType::IntEnum: {
      int64_t v = 0;
      const NumStatus st = parse_number(text, v);
      if (st == NumStatus::NotANumber) return type_error(spec, text);
      if (st == NumStatus::Overflow) return parse_enum(spec, text, v);  // not in the list
      return parse_enum(spec, std::to_string(v), v);
    }
    case ValueType::String:
      return parse_text(spec, text);
    case ValueType::Name:
      if (!is_name(text)) return fail(spec, fmt::format("`{}` is not a valid name", text));
      if (text.size() > kMaxNameBytes)
        return fail(spec,
                    fmt::format("is {} bytes long; the limit is {}", text.size(), kMaxNameBytes));
      return ok(text);
  }
  return type_error(spec, text);
}

ParsedValue not_a_scalar(const KeySpec& spec, const std::string& got) {
  return fail(spec, fmt::format("expected {}, got {}", expected_what(spec.type), got));
}

std::string format_value(const KeySpec& spec, const Value& value) {
  switch (spec.type) {
    case ValueType::Int:
    case ValueType::IntEnum:
    case ValueType::Switch:
      return std::to_string(std::get<int64_t>(value));
    case ValueType::UInt64:
      return std::to_string(std::get<uint64_t>(value));
    case ValueType::Double:
      return fmt::format("{}", std::get<double>(value));
    case ValueType::Duration:
      return format_duration(std::get<double>(value));
    case ValueType::Bool:
      return std::get<bool>(value) ? "true" : "false";
    case ValueType::OnOff:
      return std::get<bool>(value) ? "on" : "off";
    case ValueType::Enum:
    case ValueType::String:
    case ValueType::Name:
      return std::get<std::string>(value);
  }
  return {};
}

std::string accepted_text(const KeySpec& spec) {
  switch (spec.type) {
    case ValueType::Int: {
      std::string range =
          fmt::format("{}..{}", static_cast<int64_t>(spec.min), static_cast<int64_t>(spec.max));
      if (spec.multiple_of > 0) range += fmt::format(", a multiple of {}", spec.multiple_of);
      return range;
    }
    case ValueType::UInt64:
      return fmt::format("0..{}", std::numeric_limits<uint64_t>::max());
    case ValueType::Double:
      return fmt::format("{}..{}", spec.min, spec.max);
    case ValueType::Duration:
      return fmt::format("{}..{}", format_duration(spec.min), format_duration(spec.max));
    case ValueType::Bool:
      return "true, false";
    case ValueType::OnOff:
      return "on, off";
    case ValueType::Switch:
      return "0..1";
    case ValueType::Enum:
    case ValueType::IntEnum:
      return fmt::format("{}", fmt::join(spec.accepted, ", "));
    case ValueType::String:
      return "";
    case ValueType::Name:
      return "[a-z0-9._-]+";
  }
  return {};
}

std::string type_name(ValueType type) {
  switch (type) {
    case ValueType::Int:
      return "integer";
    case ValueType::UInt64:
      return "uint64";
    case ValueType::Double:
      return "number";
    case ValueType::Bool:
      return "bool";
    case ValueType::OnOff:
      return "on/off";
    case ValueType::Switch:
      return "0/1";
    case ValueType::Enum:
      return "enum";
    case ValueType::IntEnum:
      return "enum (int)";
    case ValueType::String:
      return "string";
    case ValueType::Name:
      return "name";
    case ValueType::Duration:
      return "duration";
  }
  return "?";
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string w = lower(word);
  const size_t limit = w.size() <= 4 ? 1 : (w.size() <= 8 ? 2 : 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    // Levenshtein distance, one row at a time.
    const std::string c = lower(candidate);
    std::vector<size_t> row(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= w.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= c.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (w[i - 1] == c[j - 1] ? 0 : 1)});
        diagonal = up;
      }
    }
    if (row[c.size()] < best_distance) {
      best_distance = row[c.size()];
      best = candidate;
    }
  }
  return best;
}

}  // namespace latsim::params
