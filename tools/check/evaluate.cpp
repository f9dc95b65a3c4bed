#include "tools/check/evaluate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace latsim::check {

namespace {

using nlohmann::json;

// A run's files, read once however many expectations look at them.
struct RunFiles {
  const RunOutcome* run = nullptr;
  bool metrics_read = false, traces_read = false;
  json metrics;
  std::string metrics_error;
  std::vector<VpTrace> traces;
  std::string traces_error;

  const json* get_metrics() {
    if (!metrics_read) {
      metrics_read = true;
      const auto path = run->dir / "metrics.json";
      std::ifstream in(path);
      if (!in) {
        metrics_error = "cannot read " + path.string();
      } else {
        try {
          metrics = json::parse(in);
        } catch (const json::exception& e) {
          metrics_error = fmt::format("{}: {}", path.string(), e.what());
        }
      }
    }
    return metrics_error.empty() ? &metrics : nullptr;
  }
  const std::vector<VpTrace>* get_traces() {
    if (!traces_read) {
      traces_read = true;
      try {
        traces = read_trace_dir(run->dir / "traces");
      } catch (const TraceFormatError& e) {
        traces_error = e.what();
      }
    }
    return traces_error.empty() ? &traces : nullptr;
  }
};

// One value per seed of a metric, or why there is none.
struct Values {
  std::vector<double> v;
  std::string error;
};

// "a.b.x.c, a.b.y.c" -> "a.b.{x,y}.c": the shared dotted head and tail written once.
std::string brace_list(const std::vector<std::string>& paths) {
  if (paths.size() < 2) return fmt::format("{}", fmt::join(paths, ", "));
  size_t head = paths[0].size(), tail = paths[0].size();
  for (const auto& p : paths) {
    size_t i = 0;
    while (i < head && i < p.size() && p[i] == paths[0][i]) ++i;
    head = i;
    size_t j = 0;
    while (j < tail && j < p.size() && p[p.size() - 1 - j] == paths[0][paths[0].size() - 1 - j])
      ++j;
    tail = j;
  }
  head = paths[0].rfind('.', head ? head - 1 : 0) == std::string::npos
             ? 0
             : paths[0].rfind('.', head ? head - 1 : 0) + 1;
  const size_t dot = paths[0].find('.', paths[0].size() - tail);
  tail = dot == std::string::npos ? 0 : paths[0].size() - dot;
  for (const auto& p : paths)
    if (head + tail >= p.size() || head + tail == 0)
      return fmt::format("{}", fmt::join(paths, ", "));
  std::vector<std::string> mid;
  for (const auto& p : paths) mid.push_back(p.substr(head, p.size() - head - tail));
  return fmt::format("{}{{{}}}{}", paths[0].substr(0, head), fmt::join(mid, ","),
                     paths[0].substr(paths[0].size() - tail));
}

class Evaluator {
 public:
  Evaluator(const Hypothesis& h, const std::vector<std::vector<RunOutcome>>& runs) : h_(h) {
    files_.resize(runs.size());
    for (size_t i = 0; i < runs.size(); ++i)
      for (const auto& r : runs[i]) {
        files_[i].emplace_back();
        files_[i].back().run = &r;
      }
  }

  std::vector<Row> rows() {
    std::vector<Row> out;
    for (size_t i = 0; i < h_.cases.size(); ++i)
      for (const auto& e : h_.cases[i].expect)
        out.push_back(known(expectation(i, e), e.known_miss, e.kind));
    for (const auto& c : h_.compare) out.push_back(known(comparison(c), c.known_miss, c.kind));
    return out;
  }

 private:
  SeedMode mode(const std::optional<SeedMode>& own) const { return own ? *own : h_.over_seeds; }

  // A failure the file expects is a known miss; a row that cannot be judged stays an error.
  static Row known(Row r, const std::string& why, RowKind kind) {
    r.kind = kind;
    r.known_miss = why;
    if (!why.empty() && r.verdict == Verdict::Fail) {
      r.verdict = Verdict::KnownMiss;
      r.detail += "; known miss: " + why;
    }
    return r;
  }

  size_t index_of(const std::string& name) const {
    for (size_t i = 0; i < h_.cases.size(); ++i)
      if (h_.cases[i].name == name) return i;
    return 0;  // the loader checked the names
  }

  // The run's own failure, or "" when it finished.
  static std::string run_error(const RunFiles& f) {
    if (f.run->ok) return "";
    return fmt::format("seed {} run failed: {}", f.run->seed, f.run->error);
  }

  Values values(size_t c, const MetricPath& m) {
    Values out;
    if (files_[c].empty()) out.error = "no runs";
    for (auto& f : files_[c]) {
      if (auto e = run_error(f); !e.empty()) return {{}, h_.cases[c].name + ": " + e};
      const json* metrics = f.get_metrics();
      if (!metrics) return {{}, f.metrics_error};
      std::string why;
      const auto v = metrics::metric_value(*metrics, m, why);
      if (!v) return {{}, fmt::format("{} (seed {}): {}", h_.cases[c].name, f.run->seed, why)};
      out.v.push_back(*v);
    }
    return out;
  }

  static std::string list_text(const std::vector<double>& v) {
    std::vector<std::string> s;
    for (double x : v) s.push_back(number_text(x));
    return fmt::format("{}", fmt::join(s, ", "));
  }

  Row expectation(size_t c, const Expectation& e) {
    Row r;
    r.hypothesis = h_.name;
    r.case_name = h_.cases[c].name;
    r.location = e.location;
    const SeedMode m = mode(e.over_seeds);
    if (e.metric) {
      r.metric = e.metric->text;
      r.expected = e.bounds.text();
      r.band = e.bounds;
      const Values vals = values(c, *e.metric);
      if (!vals.error.empty()) {
        r.measured = "-";
        r.verdict = Verdict::Error;
        r.detail = vals.error;
        return r;
      }
      for (const auto& f : files_[c]) r.seeds.push_back(f.run->seed);
      r.per_seed = vals.v;
      if (vals.v.size() == 1) r.value = vals.v[0];
      if (m == SeedMode::Median && vals.v.size() > 1) {
        const double med = median(vals.v);
        r.value = med;
        r.measured = fmt::format("median {} of {}", number_text(med), list_text(vals.v));
        r.verdict = e.bounds.holds(med) ? Verdict::Pass : Verdict::Fail;
      } else {
        r.measured = list_text(vals.v);
        std::vector<std::string> out;
        for (size_t i = 0; i < vals.v.size(); ++i)
          if (!e.bounds.holds(vals.v[i]))
            out.push_back(
                fmt::format("seed {}: {}", files_[c][i].run->seed, number_text(vals.v[i])));
        r.verdict = out.empty() ? Verdict::Pass : Verdict::Fail;
        if (!out.empty())
          r.detail = fmt::format("outside {}: {}", r.expected, fmt::join(out, "; "));
      }
      if (r.verdict == Verdict::Fail && r.detail.empty())
        r.detail = fmt::format("{} is outside {}", r.measured, r.expected);
      return r;
    }
    const TraceSignature& sig = *e.trace;
    r.metric = sig.what();
    r.expected = sig.expected();
    std::vector<SignatureResult> results;
    for (auto& f : files_[c]) {
      std::string err = run_error(f);
      if (!err.empty()) err = h_.cases[c].name + ": " + err;
      const std::vector<VpTrace>* traces = err.empty() ? f.get_traces() : nullptr;
      if (err.empty() && !traces) err = f.traces_error;
      if (!err.empty()) {
        r.measured = "-";
        r.verdict = Verdict::Error;
        r.detail = err;
        return r;
      }
      results.push_back(evaluate(sig, *traces));
    }
    size_t held = 0;
    std::vector<std::string> measured;
    for (const auto& s : results) {
      held += s.holds;
      measured.push_back(s.measured);
    }
    r.measured = fmt::format("{}", fmt::join(measured, " / "));
    const bool pass = m == SeedMode::Median ? 2 * held > results.size() : held == results.size();
    if (results.size() > 1)
      r.measured = fmt::format("{} of {} seeds: {}", held, results.size(), r.measured);
    r.verdict = pass ? Verdict::Pass : Verdict::Fail;
    if (!pass) r.detail = fmt::format("expected {}, got {}", r.expected, r.measured);
    return r;
  }

  Row comparison(const Comparison& c) {
    Row r;
    r.hypothesis = h_.name;
    r.location = c.location;
    std::vector<std::string> metric_names;
    for (const auto& m : c.metrics) metric_names.push_back(m.text);
    r.metric = c.metrics.empty() ? c.metric.text : brace_list(metric_names);
    const char* sep = c.op == Comparison::Op::Ratio     ? " / "
                      : c.op == Comparison::Op::Greater ? " > "
                                                        : ", ";
    r.case_name = fmt::format("{}", fmt::join(c.cases, sep));
    switch (c.op) {
      case Comparison::Op::Ratio:
        r.expected = "ratio " + c.bounds.text();
        break;
      case Comparison::Op::Greater:
        r.expected = fmt::format("{} > {}", c.cases[0], c.cases[1]);
        break;
      case Comparison::Op::Monotonic:
        r.expected = c.strict ? (c.increasing ? "increasing" : "decreasing")
                              : (c.increasing ? "non-decreasing" : "non-increasing");
        break;
    }
    // values[k][i]: point k of the comparison (a case, or a metric of the one case),
    // seed i (or one median).
    std::vector<std::pair<const std::string*, const MetricPath*>> points;
    if (c.metrics.empty())
      for (const auto& name : c.cases) points.push_back({&name, &c.metric});
    else
      for (const auto& m : c.metrics) points.push_back({&c.cases[0], &m});
    if (c.op == Comparison::Op::Ratio) r.band = c.bounds;
    std::vector<std::vector<double>> values;
    for (const auto& [name, metric] : points) {
      Values v = this->values(index_of(*name), *metric);
      if (!v.error.empty()) {
        r.measured = "-";
        r.verdict = Verdict::Error;
        r.detail = v.error;
        return r;
      }
      if (mode(c.over_seeds) == SeedMode::Median) v.v = {median(v.v)};
      r.compared.push_back({c.metrics.empty() ? *name : metric->text, v.v});
      values.push_back(std::move(v.v));
    }
    size_t seeds = values[0].size();
    for (const auto& v : values) seeds = std::min(seeds, v.size());
    std::vector<std::string> measured;
    bool pass = true;
    for (size_t i = 0; i < seeds; ++i) {
      std::vector<double> at;
      for (const auto& v : values) at.push_back(v[i]);
      switch (c.op) {
        case Comparison::Op::Ratio: {
          if (at[1] == 0) {
            r.measured = fmt::format("{} / 0", number_text(at[0]));
            r.verdict = Verdict::Error;
            r.detail = fmt::format("ratio undefined: {}'s {} is 0", c.cases[1], c.metric.text);
            return r;
          }
          const double q = at[0] / at[1];
          pass = pass && c.bounds.holds(q);
          r.per_seed.push_back(q);
          measured.push_back(
              fmt::format("{} ({} / {})", number_text(q), number_text(at[0]), number_text(at[1])));
          break;
        }
        case Comparison::Op::Greater:
          pass = pass && at[0] > at[1];
          measured.push_back(fmt::format("{} vs {}", number_text(at[0]), number_text(at[1])));
          break;
        case Comparison::Op::Monotonic:
          for (size_t k = 1; k < at.size(); ++k) {
            const double a = at[k - 1], b = at[k];
            const bool ok =
                c.increasing ? (c.strict ? b > a : b >= a) : (c.strict ? b < a : b <= a);
            pass = pass && ok;
          }
          measured.push_back(list_text(at));
          break;
      }
    }
    if (r.per_seed.size() == 1) r.value = r.per_seed[0];
    r.measured = fmt::format("{}", fmt::join(measured, "; "));
    if (mode(c.over_seeds) == SeedMode::Median && !values.empty() && files_[0].size() > 1)
      r.measured = "medians " + r.measured;
    r.verdict = pass ? Verdict::Pass : Verdict::Fail;
    if (!pass) r.detail = fmt::format("expected {}, got {}", r.expected, r.measured);
    return r;
  }

  const Hypothesis& h_;
  std::vector<std::vector<RunFiles>> files_;
};

}  // namespace

const char* verdict_text(Verdict v) {
  switch (v) {
    case Verdict::Pass:
      return "PASS";
    case Verdict::Fail:
      return "FAIL";
    case Verdict::Error:
      return "ERROR";
    case Verdict::KnownMiss:
      return "KNOWN MISS";
  }
  return "?";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<Row> evaluate(const Hypothesis& h, const std::vector<std::vector<RunOutcome>>& runs) {
  return Evaluator(h, runs).rows();
}

}  // namespace latsim::check
