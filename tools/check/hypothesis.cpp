#include "tools/check/hypothesis.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "common/text.h"
#include "platform/input_file.h"
#include "platform/scenario_schema.h"

namespace latsim::check {

namespace fs = std::filesystem;
using platform::Diagnostic;

namespace {

// Each case is at least one run.
constexpr size_t kMaxCases = 1000;

std::string node_kind(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence())
    return node.size() ? fmt::format("a list of {}", node.size()) : "an empty list";
  if (node.IsNull()) return "an empty value";
  return fmt::format("`{}`", node.Scalar());
}

// The keys each mapping accepts.
const std::vector<std::string> kTopKeys{"schema_version", "claim",    "source",
                                        "base",           "duration", "seeds",
                                        "over_seeds",     "cases",    "compare"};
const std::vector<std::string> kCaseKeys{"name", "set", "expect"};
const std::vector<std::string> kBoundKeys{"min", "max", "approx", "tolerance"};
const std::vector<std::string> kExpectKeys{
    "metric", "min", "max", "approx", "tolerance", "trace", "over_seeds", "known_miss", "kind"};
const std::vector<std::string> kTraceKeys{
    "longest_step_in", "min_step_us",       "consecutive_steps_over_us", "count_at_least",
    "steps_under_us",  "longest_trace_has", "longest_section_in",        "min_us",
    "max_us",          "in_traces_over_us"};
const std::vector<std::string> kCompareKeys{
    "metric", "metrics", "case",   "ratio",     "greater",    "monotonic",  "cases", "strict",
    "min",    "max",     "approx", "tolerance", "over_seeds", "known_miss", "kind"};

bool valid_case_name(const std::string& s) {
  if (s.empty() || !std::isalnum(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' &&
        c != '+')
      return false;
  return true;
}

class Reader {
 public:
  Reader(std::string file, std::string dir, std::vector<std::string> extra_sets)
      : file_(std::move(file)), dir_(std::move(dir)), extra_sets_(std::move(extra_sets)) {}

  Hypothesis run(const std::string& text) {
    h_.file = file_;
    h_.name = fs::path(file_).stem().string();
    YAML::Node root;
    try {
      root = platform::parse_yaml_document(text, file_);
    } catch (const platform::InputError& e) {
      throw HypothesisError(e.diagnostics());
    }
    if (!root.IsMap()) {
      error(root.Mark().is_null() ? file_ + ":1:1" : at(root.Mark()), "",
            fmt::format("a hypothesis is a mapping of keys ({}), got {}", fmt::join(kTopKeys, ", "),
                        root.IsDefined() && !root.IsNull() ? node_kind(root) : "an empty file"));
      throw HypothesisError(std::move(diags_));
    }
    const YAML::Mark top = root.Mark();
    check_keys(root, "", kTopKeys);
    read_top(root, top);
    check_case_refs();
    if (!diags_.empty()) throw HypothesisError(std::move(diags_));
    check_cases_load();  // only once the file itself is sound
    if (!diags_.empty()) throw HypothesisError(std::move(diags_));
    return std::move(h_);
  }

 private:
  // ---- locations, errors, typed reads ----

  std::string at(const YAML::Mark& m) const { return platform::location(file_, m); }
  void error(std::string where, std::string key, std::string message) {
    diags_.push_back(Diagnostic{std::move(where), std::move(key), std::move(message)});
  }
  void error(const YAML::Node& n, const std::string& key, const std::string& message) {
    error(at(n.Mark()), key, message);
  }

  static std::string join(const std::string& parent, const std::string& child) {
    return parent.empty() ? child : parent + "." + child;
  }

  // Unknown and duplicate keys of a mapping.
  void check_keys(const YAML::Node& map, const std::string& path,
                  const std::vector<std::string>& accepted) {
    std::map<std::string, int> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
      const std::string key = join(path, name);
      if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
        const std::string guess = platform::closest_match(name, accepted);
        error(it->first, key,
              fmt::format("unknown key{} (accepted: {})",
                          guess.empty() ? "" : fmt::format("; did you mean `{}`?", guess),
                          fmt::join(accepted, ", ")));
      } else if (auto [dup, fresh] = seen.emplace(name, it->first.Mark().line + 1); !fresh) {
        error(it->first, key, fmt::format("duplicate key (first at line {})", dup->second));
      }
    }
  }

  static YAML::Node get(const YAML::Node& map, const std::string& key) {
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
    return YAML::Node(YAML::NodeType::Undefined);
  }

  // The mark of `key` itself in `map` (for "missing value" errors), else the map's.
  static YAML::Mark key_mark(const YAML::Node& map, const std::string& key) {
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->first.Mark();
    return map.Mark();
  }

  // Text goes to the report, verdicts.json and JUnit as written: one printable line.
  bool printable(const YAML::Node& n, const std::string& key) {
    const auto problem = text::unprintable(n.Scalar());
    if (problem)
      error(n, key, fmt::format("{}; expected printable UTF-8 text on one line", *problem));
    return !problem;
  }

  std::optional<std::string> text(const YAML::Node& n, const std::string& key) {
    if (n.IsScalar() && !n.Scalar().empty())
      return printable(n, key) ? std::optional(n.Scalar()) : std::nullopt;
    error(n, key, fmt::format("expected text, got {}", node_kind(n)));
    return std::nullopt;
  }

  std::optional<double> number(const YAML::Node& n, const std::string& key) {
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (!s.empty() && end == s.c_str() + s.size() && std::isfinite(v)) return v;
    }
    error(n, key, fmt::format("expected a number, got {}", node_kind(n)));
    return std::nullopt;
  }

  std::optional<int64_t> integer(const YAML::Node& n, const std::string& key, int64_t lo,
                                 int64_t hi) {
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(s.c_str(), &end, 10);
      if (!s.empty() && end == s.c_str() + s.size() && errno == 0) {
        if (v >= lo && v <= hi) return v;
        error(n, key, fmt::format("{} is out of range (accepted: {}..{})", v, lo, hi));
        return std::nullopt;
      }
    }
    error(n, key, fmt::format("expected a whole number ({}..{}), got {}", lo, hi, node_kind(n)));
    return std::nullopt;
  }

  std::optional<bool> boolean(const YAML::Node& n, const std::string& key) {
    if (n.IsScalar()) {
      const std::string& s = n.Scalar();
      if (s == "true") return true;
      if (s == "false") return false;
    }
    error(n, key, fmt::format("expected true or false, got {}", node_kind(n)));
    return std::nullopt;
  }

  std::optional<SeedMode> seed_mode(const YAML::Node& n, const std::string& key) {
    if (n.IsScalar() && n.Scalar() == "each") return SeedMode::Each;
    if (n.IsScalar() && n.Scalar() == "median") return SeedMode::Median;
    error(n, key,
          fmt::format("{} is not an accepted value (accepted: each, median)", node_kind(n)));
    return std::nullopt;
  }

  // A function name or a list of them.
  std::vector<std::string> functions(const YAML::Node& n, const std::string& key) {
    std::vector<std::string> out;
    if (n.IsScalar() && !n.Scalar().empty()) {
      if (printable(n, key)) out.push_back(n.Scalar());
      return out;
    }
    if (n.IsSequence() && n.size() > 0) {
      for (size_t i = 0; i < n.size(); ++i) {
        if (n[i].IsScalar() && !n[i].Scalar().empty()) {
          if (printable(n[i], fmt::format("{}[{}]", key, i))) out.push_back(n[i].Scalar());
        } else {
          error(n[i], fmt::format("{}[{}]", key, i),
                fmt::format("expected a function name, got {}", node_kind(n[i])));
        }
      }
      return out;
    }
    error(n, key, fmt::format("expected a function name or a list of them, got {}", node_kind(n)));
    return out;
  }

  // min/max/approx/tolerance of `map` (all optional here).
  Bounds bounds(const YAML::Node& map, const std::string& path, bool required) {
    Bounds b;
    const YAML::Node min = get(map, "min"), max = get(map, "max");
    const YAML::Node approx = get(map, "approx"), tol = get(map, "tolerance");
    if (min.IsDefined()) b.min = number(min, join(path, "min"));
    if (max.IsDefined()) b.max = number(max, join(path, "max"));
    if (approx.IsDefined()) b.approx = number(approx, join(path, "approx"));
    if (tol.IsDefined()) {
      std::string s = tol.IsScalar() ? tol.Scalar() : "";
      b.relative = !s.empty() && s.back() == '%';
      if (b.relative) s.pop_back();
      while (!s.empty() && s.back() == ' ') s.pop_back();
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0)
        error(tol, join(path, "tolerance"),
              fmt::format("expected a relative tolerance such as 35% or an absolute one such "
                          "as 50 (in the metric's unit, ≥ 0), got {}",
                          node_kind(tol)));
      else
        b.tolerance = v;
      if (!approx.IsDefined())
        error(tol, join(path, "tolerance"), "a tolerance goes with `approx`");
    }
    if (approx.IsDefined() && !tol.IsDefined())
      error(approx, join(path, "approx"),
            "needs a `tolerance` (relative as 35%, or absolute in the metric's unit)");
    if (approx.IsDefined() && (min.IsDefined() || max.IsDefined()))
      error(approx, join(path, "approx"), "give either `approx` ± `tolerance` or `min`/`max`");
    if (b.min && b.max && *b.min > *b.max)
      error(min, join(path, "min"),
            fmt::format("min {} is above max {}", number_text(*b.min), number_text(*b.max)));
    if (required && !min.IsDefined() && !max.IsDefined() && !approx.IsDefined())
      error(map, path, "needs `min`, `max`, or `approx` with `tolerance`");
    return b;
  }

  std::optional<MetricPath> metric(const YAML::Node& n, const std::string& key) {
    if (!n.IsScalar()) {
      error(n, key,
            fmt::format("expected a path into metrics.json such as "
                        "latency_tracer.max_us or cpus.0.fsb_stall_us, got {}",
                        node_kind(n)));
      return std::nullopt;
    }
    if (!printable(n, key)) return std::nullopt;
    std::string why;
    auto p = metrics::parse_metric_path(n.Scalar(), why);
    if (!p) error(n, key, why);
    return p;
  }

  // ---- the file's sections ----

  void read_top(const YAML::Node& root, const YAML::Mark& top) {
    const YAML::Node version = get(root, "schema_version");
    if (!version.IsDefined())
      error(at(top), "schema_version", "missing (accepted: 1)");
    else if (!version.IsScalar() || version.Scalar() != "1")
      error(version, "schema_version",
            fmt::format("{} is not supported (accepted: 1)", node_kind(version)));
    for (const char* key : {"claim", "source"}) {
      const YAML::Node n = get(root, key);
      if (!n.IsDefined()) {
        error(at(top), key,
              std::string(key) == "claim"
                  ? "missing: the claim in one sentence"
                  : "missing: the seed file and date, or another reference");
        continue;
      }
      if (auto t = text(n, key)) (std::string(key) == "claim" ? h_.claim : h_.source) = *t;
    }
    read_base(get(root, "base"), top);
    if (const YAML::Node d = get(root, "duration"); d.IsDefined()) {
      if (auto t = text(d, "duration")) {
        h_.duration = *t;
        duration_mark_ = d.Mark();
      }
    }
    if (const YAML::Node n = get(root, "seeds"); n.IsDefined())
      if (auto v = integer(n, "seeds", 1, 1000)) h_.seeds = size_t(*v);
    if (const YAML::Node n = get(root, "over_seeds"); n.IsDefined())
      if (auto m = seed_mode(n, "over_seeds")) h_.over_seeds = *m;

    const YAML::Node cases = get(root, "cases");
    if (!cases.IsDefined()) {
      error(at(top), "cases", "missing: a list of cases, each with a `name`");
    } else if (!cases.IsSequence() || cases.size() == 0) {
      error(cases, "cases",
            fmt::format("expected a list of at least one case (name, set, expect), got {}",
                        node_kind(cases)));
    } else if (cases.size() > kMaxCases) {
      error(cases[kMaxCases], "cases",
            fmt::format("{} cases; the limit is {}", cases.size(), kMaxCases));
    } else {
      for (size_t i = 0; i < cases.size(); ++i) read_case(cases[i], fmt::format("cases[{}]", i));
    }
    const YAML::Node compare = get(root, "compare");
    if (compare.IsDefined() && !compare.IsNull()) {
      if (!compare.IsSequence()) {
        error(compare, "compare",
              fmt::format("expected a list of comparisons, got {}", node_kind(compare)));
      } else {
        for (size_t i = 0; i < compare.size(); ++i)
          read_compare(compare[i], fmt::format("compare[{}]", i));
      }
    }
  }

  void read_base(const YAML::Node& n, const YAML::Mark& top) {
    if (!n.IsDefined()) {
      error(at(top), "base", "missing: the base scenario's path");
      return;
    }
    auto t = text(n, "base");
    if (!t) return;
    // Relative to the hypothesis file's directory, else to one of its parents (the repo).
    std::vector<std::string> tried;
    const fs::path rel(*t);
    // A name the file system refuses (too long, say) is not found, not an exception.
    const auto regular_file = [](const fs::path& p) {
      std::error_code ec;
      return fs::is_regular_file(p, ec);
    };
    if (rel.is_absolute()) {
      if (regular_file(rel)) h_.base = rel.string();
      tried.push_back(rel.string());
    } else {
      const fs::path from = fs::absolute(dir_.empty() ? "." : dir_).lexically_normal();
      for (fs::path d = from;; d = d.parent_path()) {
        const fs::path p = (d / rel).lexically_normal();
        tried.push_back(p.string());
        if (regular_file(p)) {
          h_.base = fs::proximate(p).string();
          break;
        }
        if (d == d.parent_path()) break;
      }
    }
    if (h_.base.empty()) {
      const size_t shown = std::min<size_t>(3, tried.size());
      error(n, "base",
            fmt::format("scenario `{}` not found (looked in: {}{})", *t,
                        fmt::join(tried.begin(), tried.begin() + long(shown), ", "),
                        tried.size() > shown ? ", ... up to the root" : ""));
    }
    base_mark_ = n.Mark();
  }

  void read_case(const YAML::Node& n, const std::string& path) {
    if (!n.IsMap()) {
      error(
          n, path,
          fmt::format("expected a case (a mapping with name, set, expect), got {}", node_kind(n)));
      return;
    }
    check_keys(n, path, kCaseKeys);
    Case c;
    c.location = at(n.Mark());
    const YAML::Node name = get(n, "name");
    if (!name.IsDefined()) {
      error(at(n.Mark()), join(path, "name"), "missing: every case has a name");
    } else if (auto t = text(name, join(path, "name"))) {
      if (!valid_case_name(*t))
        error(name, join(path, "name"),
              fmt::format("`{}`: a case name is letters, digits, _ - . + (it names a directory)",
                          *t));
      else if (h_.find_case(*t))
        error(name, join(path, "name"), fmt::format("duplicate case name `{}`", *t));
      c.name = *t;
    }
    std::vector<YAML::Mark> set_marks;
    if (const YAML::Node sets = get(n, "set"); sets.IsDefined() && !sets.IsNull()) {
      if (!sets.IsSequence()) {
        error(sets, join(path, "set"),
              fmt::format("expected a list of KEY=VALUE overrides (as for --set), got {}",
                          node_kind(sets)));
      } else {
        for (size_t i = 0; i < sets.size(); ++i) {
          const std::string key = fmt::format("{}.set[{}]", path, i);
          const YAML::Node s = sets[i];
          if (!s.IsScalar() || s.Scalar().find('=') == std::string::npos ||
              s.Scalar().front() == '=') {
            error(s, key,
                  fmt::format("expected KEY=VALUE as for --set (e.g. "
                              "/sys/block/hda/queue/max_sectors_kb=32), got {}",
                              node_kind(s)));
            continue;
          }
          c.sets.push_back(s.Scalar());
          set_marks.push_back(s.Mark());
        }
      }
    }
    if (const YAML::Node ex = get(n, "expect"); ex.IsDefined() && !ex.IsNull()) {
      if (!ex.IsSequence()) {
        error(ex, join(path, "expect"),
              fmt::format("expected a list of expectations, got {}", node_kind(ex)));
      } else {
        for (size_t i = 0; i < ex.size(); ++i)
          if (auto e = read_expect(ex[i], fmt::format("{}.expect[{}]", path, i)))
            c.expect.push_back(std::move(*e));
      }
    }
    case_paths_.push_back(path);
    set_marks_.push_back(std::move(set_marks));
    h_.cases.push_back(std::move(c));
  }

  // known_miss: why the model misses this row (the figure it gives and the mechanism it
  // lacks); "" when the row is expected to hold.
  std::string known_miss(const YAML::Node& n, const std::string& path) {
    const YAML::Node k = get(n, "known_miss");
    if (!k.IsDefined()) return "";
    const auto t = text(k, join(path, "known_miss"));
    if (t && t->empty())
      error(k, join(path, "known_miss"), "empty: say why the model misses this row");
    return t ? *t : "";
  }

  // kind: the row's place on the scoreboard; `inferred` when the row does not say.
  RowKind row_kind(const YAML::Node& n, const std::string& path, RowKind inferred) {
    const YAML::Node k = get(n, "kind");
    if (!k.IsDefined()) return inferred;
    const auto t = text(k, join(path, "kind"));
    for (RowKind r :
         {RowKind::SeedFigure, RowKind::Ordering, RowKind::Bound, RowKind::Construction})
      if (t && *t == row_kind_text(r)) return r;
    if (t)
      error(k, join(path, "kind"),
            fmt::format("`{}` is not an accepted value (accepted: seed_figure, ordering, bound, "
                        "by_construction)",
                        *t));
    return inferred;
  }

  std::optional<Expectation> read_expect(const YAML::Node& n, const std::string& path) {
    if (!n.IsMap()) {
      error(n, path,
            fmt::format("expected an expectation (metric: PATH with min/max/approx, or trace: "
                        "{{...}}), got {}",
                        node_kind(n)));
      return std::nullopt;
    }
    check_keys(n, path, kExpectKeys);
    Expectation e;
    e.location = at(n.Mark());
    if (const YAML::Node s = get(n, "over_seeds"); s.IsDefined())
      e.over_seeds = seed_mode(s, join(path, "over_seeds"));
    e.known_miss = known_miss(n, path);
    const YAML::Node m = get(n, "metric"), tr = get(n, "trace");
    e.kind = row_kind(
        n, path,
        m.IsDefined() && get(n, "approx").IsDefined() ? RowKind::SeedFigure : RowKind::Bound);
    if (m.IsDefined() == tr.IsDefined()) {
      error(n, path, "give either `metric` (with min/max/approx) or `trace`");
      return std::nullopt;
    }
    if (m.IsDefined()) {
      e.metric = metric(m, join(path, "metric"));
      e.bounds = bounds(n, path, true);
      return e;
    }
    for (const auto& k : kBoundKeys)
      if (get(n, k).IsDefined())
        error(at(key_mark(n, k)), join(path, k), "goes with `metric`, not with `trace`");
    e.trace = read_trace(tr, join(path, "trace"));
    return e;
  }

  std::optional<TraceSignature> read_trace(const YAML::Node& n, const std::string& path) {
    const std::string kinds =
        "longest_step_in, consecutive_steps_over_us, longest_trace_has, longest_section_in";
    if (!n.IsMap()) {
      error(n, path,
            fmt::format("expected a trace signature (a mapping with one of: {}), got {}", kinds,
                        node_kind(n)));
      return std::nullopt;
    }
    check_keys(n, path, kTraceKeys);
    const YAML::Node step_in = get(n, "longest_step_in");
    const YAML::Node over = get(n, "consecutive_steps_over_us");
    const YAML::Node has = get(n, "longest_trace_has");
    const YAML::Node section = get(n, "longest_section_in");
    const int given =
        step_in.IsDefined() + over.IsDefined() + has.IsDefined() + section.IsDefined();
    if (given != 1) {
      error(n, path, fmt::format("give exactly one of: {}", kinds));
      return std::nullopt;
    }
    TraceSignature s;
    auto only_with = [&](const char* key, const char* owner) {
      if (get(n, key).IsDefined())
        error(at(key_mark(n, key)), join(path, key), fmt::format("goes with `{}`", owner));
    };
    if (step_in.IsDefined()) {
      s.kind = TraceSignature::Kind::LongestStepIn;
      s.functions = functions(step_in, join(path, "longest_step_in"));
      if (const YAML::Node v = get(n, "min_step_us"); v.IsDefined())
        if (auto x = integer(v, join(path, "min_step_us"), 0, 100'000'000)) s.min_step_us = *x;
      only_with("count_at_least", "consecutive_steps_over_us");
      only_with("steps_under_us", "consecutive_steps_over_us");
      only_with("in_traces_over_us", "consecutive_steps_over_us");
      only_with("min_us", "longest_section_in");
      only_with("max_us", "longest_section_in");
    } else if (over.IsDefined()) {
      s.kind = TraceSignature::Kind::SlowMotion;
      if (auto x = integer(over, join(path, "consecutive_steps_over_us"), 0, 100'000'000))
        s.step_over_us = *x;
      const YAML::Node count = get(n, "count_at_least");
      if (!count.IsDefined())
        error(n, join(path, "count_at_least"), "missing: how many steps in a row (≥ 1)");
      else if (auto x = integer(count, join(path, "count_at_least"), 1, 1'000'000))
        s.count_at_least = size_t(*x);
      if (const YAML::Node u = get(n, "steps_under_us"); u.IsDefined()) {
        if (auto x = integer(u, join(path, "steps_under_us"), 1, 100'000'000)) {
          s.step_under_us = *x;
          if (*x <= s.step_over_us + 1)
            error(u, join(path, "steps_under_us"),
                  fmt::format("{} leaves no step length above {} us", *x, s.step_over_us));
        }
      }
      if (const YAML::Node v = get(n, "in_traces_over_us"); v.IsDefined())
        if (auto x = integer(v, join(path, "in_traces_over_us"), 0, 100'000'000))
          s.in_traces_over_us = *x;
      only_with("min_step_us", "longest_step_in");
      only_with("min_us", "longest_section_in");
      only_with("max_us", "longest_section_in");
    } else if (section.IsDefined()) {
      s.kind = TraceSignature::Kind::LongestSectionIn;
      s.functions = functions(section, join(path, "longest_section_in"));
      if (const YAML::Node v = get(n, "min_us"); v.IsDefined())
        s.min_us = integer(v, join(path, "min_us"), 0, 100'000'000);
      if (const YAML::Node v = get(n, "max_us"); v.IsDefined())
        s.max_us = integer(v, join(path, "max_us"), 0, 100'000'000);
      if (s.min_us && s.max_us && *s.min_us > *s.max_us)
        error(at(key_mark(n, "max_us")), join(path, "max_us"),
              fmt::format("{} is under min_us {}", *s.max_us, *s.min_us));
      only_with("min_step_us", "longest_step_in");
      only_with("count_at_least", "consecutive_steps_over_us");
      only_with("steps_under_us", "consecutive_steps_over_us");
      only_with("in_traces_over_us", "consecutive_steps_over_us");
    } else {
      s.kind = TraceSignature::Kind::LongestTraceHas;
      s.functions = functions(has, join(path, "longest_trace_has"));
      only_with("min_step_us", "longest_step_in");
      only_with("count_at_least", "consecutive_steps_over_us");
      only_with("steps_under_us", "consecutive_steps_over_us");
      only_with("in_traces_over_us", "consecutive_steps_over_us");
      only_with("min_us", "longest_section_in");
      only_with("max_us", "longest_section_in");
    }
    return s;
  }

  void read_compare(const YAML::Node& n, const std::string& path) {
    if (!n.IsMap()) {
      error(n, path,
            fmt::format("expected a comparison (metric: PATH with ratio, greater or "
                        "monotonic), got {}",
                        node_kind(n)));
      return;
    }
    check_keys(n, path, kCompareKeys);
    Comparison c;
    c.location = at(n.Mark());
    const YAML::Node m = get(n, "metric"), ms = get(n, "metrics");
    if (ms.IsDefined()) {
      read_metric_order(n, ms, path, c);
      return;
    }
    if (!m.IsDefined())
      error(n, join(path, "metric"), "missing: the metrics.json path compared across cases");
    else if (auto p = metric(m, join(path, "metric")))
      c.metric = *p;
    if (const YAML::Node s = get(n, "over_seeds"); s.IsDefined())
      c.over_seeds = seed_mode(s, join(path, "over_seeds"));
    c.known_miss = known_miss(n, path);
    c.kind = row_kind(n, path,
                      get(n, "approx").IsDefined()  ? RowKind::SeedFigure
                      : get(n, "ratio").IsDefined() ? RowKind::Bound
                                                    : RowKind::Ordering);
    const YAML::Node ratio = get(n, "ratio"), greater = get(n, "greater");
    const YAML::Node mono = get(n, "monotonic");
    if (ratio.IsDefined() + greater.IsDefined() + mono.IsDefined() != 1) {
      error(n, path,
            "give exactly one of: ratio: [A, B], greater: [A, B], "
            "monotonic: increasing|decreasing with cases: [A, B, ...]");
      return;
    }
    auto case_list = [&](const YAML::Node& list, const std::string& key, size_t exact) {
      std::vector<std::string> names;
      const bool ok = list.IsSequence() && (exact ? list.size() == exact : list.size() >= 2);
      if (!ok) {
        error(list, key,
              exact ? fmt::format("expected two case names [A, B], got {}", node_kind(list))
                    : fmt::format("expected a list of at least two case names, got {}",
                                  node_kind(list)));
        return names;
      }
      for (size_t i = 0; i < list.size(); ++i) {
        if (!list[i].IsScalar()) {
          error(list[i], fmt::format("{}[{}]", key, i),
                fmt::format("expected a case name, got {}", node_kind(list[i])));
          continue;
        }
        names.push_back(list[i].Scalar());
        case_refs_.push_back({list[i].Scalar(), list[i].Mark(), fmt::format("{}[{}]", key, i)});
      }
      return names;
    };
    if (ratio.IsDefined() || greater.IsDefined()) {
      c.op = ratio.IsDefined() ? Comparison::Op::Ratio : Comparison::Op::Greater;
      const char* key = ratio.IsDefined() ? "ratio" : "greater";
      c.cases = case_list(ratio.IsDefined() ? ratio : greater, join(path, key), 2);
      if (get(n, "cases").IsDefined())
        error(at(key_mark(n, "cases")), join(path, "cases"),
              fmt::format("goes with `monotonic`; `{}` names its two cases itself", key));
      if (get(n, "strict").IsDefined())
        error(at(key_mark(n, "strict")), join(path, "strict"), "goes with `monotonic`");
      if (c.op == Comparison::Op::Ratio) {
        c.bounds = bounds(n, path, true);
      } else {
        for (const auto& k : kBoundKeys)
          if (get(n, k).IsDefined())
            error(at(key_mark(n, k)), join(path, k),
                  "goes with `ratio` (greater means A's value > B's)");
      }
    } else {
      c.op = Comparison::Op::Monotonic;
      if (!mono.IsScalar() || (mono.Scalar() != "increasing" && mono.Scalar() != "decreasing"))
        error(mono, join(path, "monotonic"),
              fmt::format("{} is not an accepted value (accepted: increasing, decreasing)",
                          node_kind(mono)));
      else
        c.increasing = mono.Scalar() == "increasing";
      const YAML::Node cases = get(n, "cases");
      if (!cases.IsDefined())
        error(n, join(path, "cases"), "missing: the ordered list of cases");
      else
        c.cases = case_list(cases, join(path, "cases"), 0);
      if (const YAML::Node s = get(n, "strict"); s.IsDefined())
        if (auto b = boolean(s, join(path, "strict"))) c.strict = *b;
      for (const auto& k : kBoundKeys)
        if (get(n, k).IsDefined()) error(at(key_mark(n, k)), join(path, k), "goes with `ratio`");
    }
    h_.compare.push_back(std::move(c));
  }

  // {case: C, monotonic: increasing|decreasing, metrics: [M1, M2, ...]}: the order of
  // several metrics of one case (a table's rows, say).
  void read_metric_order(const YAML::Node& n, const YAML::Node& ms, const std::string& path,
                         Comparison& c) {
    c.op = Comparison::Op::Monotonic;
    for (const char* k : {"metric", "cases", "ratio", "greater"})
      if (get(n, k).IsDefined())
        error(at(key_mark(n, k)), join(path, k),
              "does not go with `metrics` (the order of several metrics of one `case`)");
    for (const auto& k : kBoundKeys)
      if (get(n, k).IsDefined()) error(at(key_mark(n, k)), join(path, k), "goes with `ratio`");
    const YAML::Node mono = get(n, "monotonic");
    if (!mono.IsScalar() || (mono.Scalar() != "increasing" && mono.Scalar() != "decreasing"))
      error(mono.IsDefined() ? mono : n, join(path, "monotonic"),
            "with `metrics`: monotonic: increasing|decreasing (accepted: increasing, decreasing)");
    else
      c.increasing = mono.Scalar() == "increasing";
    if (const YAML::Node s = get(n, "strict"); s.IsDefined())
      if (auto b = boolean(s, join(path, "strict"))) c.strict = *b;
    const YAML::Node cs = get(n, "case");
    if (!cs.IsDefined() || !cs.IsScalar()) {
      error(cs.IsDefined() ? cs : n, join(path, "case"),
            "missing: the case whose metrics are ordered");
    } else {
      c.cases = {cs.Scalar()};
      case_refs_.push_back({cs.Scalar(), cs.Mark(), join(path, "case")});
    }
    if (!ms.IsSequence() || ms.size() < 2) {
      error(ms, join(path, "metrics"),
            fmt::format("expected a list of at least two metric paths, got {}", node_kind(ms)));
    } else {
      for (size_t i = 0; i < ms.size(); ++i)
        if (auto p = metric(ms[i], fmt::format("{}[{}]", join(path, "metrics"), i)))
          c.metrics.push_back(*p);
    }
    c.location = at(n.Mark());
    h_.compare.push_back(std::move(c));
  }

  // ---- cross checks ----

  // Comparisons name existing cases.
  void check_case_refs() {
    std::vector<std::string> names;
    for (const auto& c : h_.cases)
      if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
    for (const auto& r : case_refs_) {
      if (h_.find_case(r.name)) continue;
      const std::string guess = platform::closest_match(r.name, names);
      error(at(r.mark), r.key,
            fmt::format("no case named `{}`{} (cases: {})", r.name,
                        guess.empty() ? "" : fmt::format("; did you mean `{}`?", guess),
                        fmt::join(names, ", ")));
    }
  }

  // An override of the base scenario and where this file gives it.
  struct Override {
    std::string set, where, key;
  };

  // The file's overrides of case `i` (of none when `i` is past the cases), in order.
  std::vector<Override> overrides_of(size_t i) const {
    std::vector<Override> o;
    if (!h_.duration.empty())
      o.push_back({"duration=" + h_.duration, at(duration_mark_), "duration"});
    for (size_t j = 0; i < h_.cases.size() && j < h_.cases[i].sets.size(); ++j)
      o.push_back({h_.cases[i].sets[j], at(set_marks_[i][j]),
                   fmt::format("{}.set[{}]", case_paths_[i], j)});
    return o;
  }

  struct Problem {
    Diagnostic d;
    bool placed = false;  // at the override's line in this file
  };

  // The base scenario's problems with `overrides` and the extra sets; sets *seed if none.
  std::vector<Problem> load_problems(const std::vector<Override>& overrides, uint64_t* seed) {
    std::vector<std::string> sets;
    for (const auto& o : overrides) sets.push_back(o.set);
    sets.insert(sets.end(), extra_sets_.begin(), extra_sets_.end());
    std::vector<Problem> problems;
    try {
      const uint64_t s = platform::load_scenario(h_.base, sets).seed;
      if (seed) *seed = s;
    } catch (const platform::ScenarioError& e) {
      for (Diagnostic d : e.diagnostics()) {
        Problem p{d, false};
        for (const auto& o : overrides) {
          if (d.location != "--set " + o.set) continue;
          if (!d.key.empty() && d.key != o.key) p.d.message = d.key + ": " + d.message;
          p.d.key = o.key;
          p.d.location = o.where;
          p.placed = true;
          break;
        }
        problems.push_back(std::move(p));
      }
    }
    return problems;
  }

  // Every case's scenario loads with its overrides. A problem the base scenario has
  // anyway is reported once as it is; one a case's overrides cause elsewhere in the base
  // scenario (a flavour that fixes a switch the base sets) names the case.
  void check_cases_load() {
    std::set<std::string> reported;
    std::optional<std::set<std::string>> base;  // the base's own problems, once needed
    for (size_t i = 0; i < h_.cases.size(); ++i) {
      Case& c = h_.cases[i];
      for (Problem& p : load_problems(overrides_of(i), &c.seed)) {
        if (!p.placed && !base) {
          base.emplace();
          for (const Problem& b : load_problems(overrides_of(h_.cases.size()), nullptr))
            base->insert(b.d.to_string());
        }
        if (!p.placed && !base->count(p.d.to_string()))
          p.d = Diagnostic{
              c.location, case_paths_[i],
              fmt::format("case `{}` makes its base scenario invalid: {}: {}{}", c.name,
                          p.d.location, p.d.key.empty() ? "" : p.d.key + ": ", p.d.message)};
        if (reported.insert(p.d.to_string()).second) diags_.push_back(p.d);
      }
    }
  }

  struct CaseRef {
    std::string name;
    YAML::Mark mark;
    std::string key;
  };

  std::string file_, dir_;
  std::vector<std::string> extra_sets_;
  Hypothesis h_;
  std::vector<Diagnostic> diags_;
  std::vector<CaseRef> case_refs_;
  std::vector<std::string> case_paths_;
  std::vector<std::vector<YAML::Mark>> set_marks_;
  YAML::Mark duration_mark_ = YAML::Mark::null_mark();
  YAML::Mark base_mark_ = YAML::Mark::null_mark();
};

}  // namespace

const Case* Hypothesis::find_case(const std::string& n) const {
  for (const auto& c : cases)
    if (c.name == n) return &c;
  return nullptr;
}

Hypothesis load_hypothesis_text(const std::string& text, const std::string& display_name,
                                const std::string& dir,
                                const std::vector<std::string>& extra_sets) {
  return Reader(display_name, dir, extra_sets).run(text);
}

Hypothesis load_hypothesis(const std::string& path, const std::vector<std::string>& extra_sets) {
  std::string text;
  try {
    text = platform::read_input_file(path, "hypothesis file");
  } catch (const platform::InputError& e) {
    throw HypothesisError(e.diagnostics());
  }
  return load_hypothesis_text(text, path, fs::path(path).parent_path().string(), extra_sets);
}

const char* row_kind_text(RowKind k) {
  switch (k) {
    case RowKind::SeedFigure:
      return "seed_figure";
    case RowKind::Ordering:
      return "ordering";
    case RowKind::Bound:
      return "bound";
    case RowKind::Construction:
      return "by_construction";
  }
  return "?";
}

}  // namespace latsim::check
