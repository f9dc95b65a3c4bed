#include "tools/sweep/grid.h"

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

namespace latsim::sweep {
namespace {

// A key's values, and the points of a whole grid: each point is a run.
constexpr size_t kMaxValues = 10'000;
constexpr size_t kMaxPoints = 1'000'000;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const auto pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) return parts;
    start = pos + 1;
  }
}

// A whole decimal integer (optional sign), or false.
bool parse_int(const std::string& s, int64_t& out) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return false;
  out = v;
  return true;
}

const char* const kRangeForms =
    "expected START..END, START..END+STEP or START..END*FACTOR with integers, "
    "e.g. 0..248+8 or 8..128*2";

void expand_range(const std::string& item, std::vector<std::string>& out) {
  const auto dots = item.find("..");
  const std::string start_text = item.substr(0, dots);
  std::string rest = item.substr(dots + 2);
  char op = '+';
  std::string step_text = "1";
  const auto op_pos = rest.find_first_of("+*", 1);  // a leading '+' is END's sign
  if (op_pos != std::string::npos) {
    op = rest[op_pos];
    step_text = rest.substr(op_pos + 1);
    rest = rest.substr(0, op_pos);
  }
  int64_t a = 0, b = 0, step = 0;
  if (!parse_int(start_text, a) || !parse_int(rest, b) || !parse_int(step_text, step))
    throw GridError(fmt::format("`{}` is not a range: {}", item, kRangeForms));
  if (b < a) throw GridError(fmt::format("range `{}` ends before it starts", item));
  if (op == '+' && step <= 0)
    throw GridError(fmt::format("range `{}`: the step after + must be at least 1", item));
  if (op == '*' && step < 2)
    throw GridError(fmt::format("range `{}`: the factor after * must be at least 2", item));
  if (op == '*' && a <= 0)
    throw GridError(fmt::format("range `{}`: a geometric range (*) must start above 0", item));
  size_t n = 0;
  for (int64_t v = a;;) {
    if (++n > kMaxValues)
      throw GridError(
          fmt::format("range `{}` has more than {} values (the limit)", item, kMaxValues));
    out.push_back(std::to_string(v));
    // The next value, unless it passes END (or would overflow on the way).
    if (op == '+') {
      if (v > b - step) break;
      v += step;
    } else {
      if (v > b / step) break;
      v *= step;
    }
  }
}

}  // namespace

std::vector<std::string> parse_values(const std::string& text) {
  std::vector<std::string> values;
  for (const auto& raw : split(text, ',')) {
    const std::string item = trim(raw);
    if (item.empty())
      throw GridError(fmt::format("empty value in `{}` (values are separated by commas)", text));
    if (item.find("..") != std::string::npos)
      expand_range(item, values);
    else
      values.push_back(item);
  }
  if (values.size() > kMaxValues)
    throw GridError(fmt::format("{} values; the limit is {}", values.size(), kMaxValues));
  std::set<std::string> seen;
  for (const auto& v : values)
    if (!seen.insert(v).second)
      throw GridError(fmt::format("value `{}` appears twice in `{}`", v, text));
  return values;
}

Param parse_param(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || trim(text.substr(0, eq)).empty())
    throw GridError(
        fmt::format("--param `{}`: expected KEY=VALUES, e.g. "
                    "/sys/block/hda/queue/max_sectors_kb=8..128*2",
                    text));
  Param p;
  p.key = trim(text.substr(0, eq));
  try {
    p.values = parse_values(text.substr(eq + 1));
  } catch (const GridError& e) {
    throw GridError(fmt::format("--param {}: {}", p.key, e.what()));
  }
  return p;
}

nlohmann::json typed_value(const std::string& text) {
  if (text == "true" || text == "false") return text == "true";
  const size_t digits = text.find_first_not_of("-0123456789.");
  if (digits != std::string::npos || text.empty()) return text;
  // Only what dumps back to the same text: no leading zeros, no trailing ".0".
  const nlohmann::json number = nlohmann::json::parse(text, nullptr, false);
  if (number.is_number() && number.dump() == text) return number;
  return text;
}

std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string fnv1a_hex(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

size_t Grid::size() const {
  size_t n = seeds.size();
  for (const auto& p : params) n *= p.values.size();
  return n;
}

Point Grid::point(size_t index) const {
  Point pt;
  pt.index = index;
  size_t rest = index;
  pt.seed = seeds[rest % seeds.size()];
  rest /= seeds.size();
  pt.values.resize(params.size());
  for (size_t i = params.size(); i-- > 0;) {
    const auto& vals = params[i].values;
    pt.values[i] = {params[i].key, vals[rest % vals.size()]};
    rest /= vals.size();
  }
  // Canonical text: every override the point runs with (fixed sets, the last of a key
  // winning, then the swept values), sorted by key, then the seed. Independent of the order
  // in which --param and --set were given.
  std::map<std::string, std::string> all;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    all[s.substr(0, eq)] = eq == std::string::npos ? "" : s.substr(eq + 1);
  }
  for (const auto& [k, v] : pt.values) all[k] = v;
  for (const auto& [k, v] : all) pt.canonical += k + "=" + v + ";";
  pt.canonical += "seed=" + std::to_string(pt.seed);
  pt.id = fnv1a_hex(pt.canonical);
  return pt;
}

std::vector<std::string> Grid::overrides(const Point& p) const {
  std::vector<std::string> o = sets;
  for (const auto& [k, v] : p.values) o.push_back(k + "=" + v);
  return o;
}

void Grid::check() const {
  std::set<std::string> fixed;
  for (const auto& s : sets) fixed.insert(s.substr(0, s.find('=')));
  std::set<std::string> swept;
  for (const auto& p : params) {
    if (p.key == "seed")
      throw GridError("--param seed=...: sweep seeds with --seeds K (and --seed for the first)");
    if (!swept.insert(p.key).second)
      throw GridError(fmt::format("--param {} is given twice; list all its values in one", p.key));
    if (fixed.count(p.key))
      throw GridError(fmt::format("{} is both swept (--param) and fixed (--set)", p.key));
  }
  if (seeds.empty()) throw GridError("a sweep needs at least one seed");
  size_t points = seeds.size();
  for (const auto& p : params) {
    if (!p.values.empty() && points > kMaxPoints / p.values.size())
      throw GridError(fmt::format("the grid has more than {} points (the limit)", kMaxPoints));
    points *= p.values.size();
  }
  if (points > kMaxPoints)
    throw GridError(fmt::format("the grid has more than {} points (the limit)", kMaxPoints));
}

Shard parse_shard(const std::string& text) {
  const auto parts = split(text, '/');
  int64_t k = 0, n = 0;
  if (parts.size() != 2 || !parse_int(parts[0], k) || !parse_int(parts[1], n) || n < 1 || k < 0 ||
      k >= n)
    throw GridError(fmt::format(
        "--shard `{}`: expected K/N with 0 <= K < N, e.g. 0/4 for the first of four shards", text));
  return {size_t(k), size_t(n)};
}

}  // namespace latsim::sweep
