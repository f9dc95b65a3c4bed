#include "tools/tune/search.h"

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace latsim::tune {
namespace {

const char* const kForms =
    "accepted forms: `METRIC <= X`, `METRIC < X`, `METRIC >= X`, `METRIC > X`, e.g. "
    "`latency_tracer.max_us <= 650`";

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  const size_t b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The search's state: the runs made so far and the budget.
class Walk {
 public:
  Walk(const SearchSpec& spec, Evaluator& ev, SearchResult& r) : spec_(spec), ev_(ev), r_(r) {}

  // Thrown when the next batch would overspend the budget.
  struct Spent {};

  // Whether `s` meets the target on every seed: the first seed first, the others only when
  // it does.
  bool probe(const Setting& s) {
    run(s, {0});
    if (!spec_.target.met(at(s)[0]->target)) return false;
    std::vector<size_t> rest;
    for (size_t k = 1; k < spec_.seeds; ++k) rest.push_back(k);
    run(s, rest);
    return feasible(spec_, at(s));
  }

  // `s` on every seed.
  void complete_runs(const Setting& s) {
    std::vector<size_t> all;
    for (size_t k = 0; k < spec_.seeds; ++k) all.push_back(k);
    run(s, all);
  }

  std::vector<std::optional<Sample>>& at(const Setting& s) {
    auto& v = r_.samples[s];
    v.resize(spec_.seeds);
    return v;
  }

 private:
  void run(const Setting& s, const std::vector<size_t>& seeds) {
    std::vector<Run> todo;
    for (size_t k : seeds)
      if (!at(s)[k]) todo.push_back(Run{s, k});
    if (todo.empty()) return;
    if (spec_.budget && r_.runs + todo.size() > spec_.budget) throw Spent{};
    const auto got = ev_.evaluate(todo);
    r_.runs += todo.size();
    for (size_t i = 0; i < todo.size(); ++i) at(s)[todo[i].seed] = got[i];
  }

  const SearchSpec& spec_;
  Evaluator& ev_;
  SearchResult& r_;
};

// The staircase over knobs 0 and 1 with the other knobs fixed as in `rest`.
void staircase(const SearchSpec& spec, Walk& w, SearchResult& r, Setting s) {
  const size_t nb = spec.sizes.size() > 1 ? spec.sizes[1] : 1;
  long a = long(spec.sizes[0]) - 1;
  for (size_t b = 0; b < nb; ++b) {
    if (spec.sizes.size() > 1) s[1] = b;
    for (; a >= 0; --a) {
      s[0] = size_t(a);
      if (w.probe(s)) break;
    }
    if (a < 0) return;  // nothing feasible here, nor at any larger b
    r.boundary.push_back(s);
  }
}

// Whether `a` is better than `b` as an answer: objective, then margin, then smaller knobs.
bool better(const SearchSpec& spec, SearchResult& r, const Setting& a, const Setting& b) {
  const double oa = worst_objective(spec, r.samples[a]), ob = worst_objective(spec, r.samples[b]);
  if (oa != ob) return spec.sense == Sense::Max ? oa > ob : oa < ob;
  const double ta = worst_target(spec, r.samples[a]), tb = worst_target(spec, r.samples[b]);
  if (ta != tb) return spec.target.worse(tb, ta);
  return a < b;
}

// The best of every setting run on all seeds that met the target there: the boundary's
// best, unless the objective broke its assumption somewhere the walk went.
void pick_best(const SearchSpec& spec, SearchResult& r) {
  std::vector<Setting> candidates;
  for (const auto& [s, v] : r.samples)
    if (feasible(spec, v)) candidates.push_back(s);
  for (const auto& s : candidates)
    if (!r.best || better(spec, r, s, *r.best)) r.best = s;
}

// Every pair of runs on one seed, one setting above the other, that breaks an assumption.
void check_assumptions(const SearchSpec& spec, SearchResult& r) {
  auto below = [](const Setting& lo, const Setting& hi) {
    for (size_t i = 0; i < lo.size(); ++i)
      if (lo[i] > hi[i]) return false;
    return lo != hi;
  };
  for (const auto& [lo, ls] : r.samples)
    for (const auto& [hi, hs] : r.samples) {
      if (!below(lo, hi)) continue;
      for (size_t k = 0; k < spec.seeds; ++k) {
        if (!ls[k] || !hs[k]) continue;
        // Raising a knob must not bring the target closer, nor the objective further.
        if (spec.target.worse(ls[k]->target, hs[k]->target))
          r.violations.push_back({true, lo, hi, k, ls[k]->target, hs[k]->target});
        const bool objective_worse = spec.sense == Sense::Max ? hs[k]->objective < ls[k]->objective
                                                              : hs[k]->objective > ls[k]->objective;
        if (objective_worse)
          r.violations.push_back({false, lo, hi, k, ls[k]->objective, hs[k]->objective});
      }
    }
}

}  // namespace

bool Target::met(double v) const {
  switch (cmp) {
    case Cmp::Le:
      return v <= bound;
    case Cmp::Lt:
      return v < bound;
    case Cmp::Ge:
      return v >= bound;
    case Cmp::Gt:
      return v > bound;
  }
  return false;
}

bool Target::worse(double a, double b) const {
  return cmp == Cmp::Le || cmp == Cmp::Lt ? a > b : a < b;
}

std::string Target::op() const {
  switch (cmp) {
    case Cmp::Le:
      return "<=";
    case Cmp::Lt:
      return "<";
    case Cmp::Ge:
      return ">=";
    case Cmp::Gt:
      return ">";
  }
  return "";
}

Target parse_target(const std::string& text) {
  const size_t at = text.find_first_of("<>");
  if (at == std::string::npos)
    throw TuneError(fmt::format("--target `{}` has no comparison; {}", text, kForms));
  Target t;
  const bool eq = at + 1 < text.size() && text[at + 1] == '=';
  t.cmp = text[at] == '<' ? (eq ? Cmp::Le : Cmp::Lt) : (eq ? Cmp::Ge : Cmp::Gt);
  const std::string metric = trimmed(text.substr(0, at));
  const std::string bound = trimmed(text.substr(at + (eq ? 2 : 1)));
  std::string error;
  const auto path = metrics::parse_metric_path(metric, error);
  if (metric.empty() || !path)
    throw TuneError(fmt::format("--target `{}`: {}; {}", text,
                                metric.empty() ? "no metric before the comparison" : error,
                                kForms));
  t.metric = *path;
  char* end = nullptr;
  errno = 0;
  t.bound = std::strtod(bound.c_str(), &end);
  if (bound.empty() || *end != '\0' || errno != 0 || !std::isfinite(t.bound))
    throw TuneError(fmt::format("--target `{}`: `{}` is not a number; {}", text, bound, kForms));
  return t;
}

bool complete(const std::vector<std::optional<Sample>>& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](const auto& x) { return x.has_value(); });
}

bool feasible(const SearchSpec& spec, const std::vector<std::optional<Sample>>& s) {
  return complete(s) &&
         std::all_of(s.begin(), s.end(), [&](const auto& x) { return spec.target.met(x->target); });
}

double worst_target(const SearchSpec& spec, const std::vector<std::optional<Sample>>& s) {
  std::vector<double> v;
  for (const auto& x : s) v.push_back(x.value().target);
  const bool below = spec.target.cmp == Cmp::Le || spec.target.cmp == Cmp::Lt;
  return across_seeds(v, below ? Sense::Min : Sense::Max);
}

double worst_objective(const SearchSpec& spec, const std::vector<std::optional<Sample>>& s) {
  std::vector<double> v;
  for (const auto& x : s) v.push_back(x.value().objective);
  return across_seeds(v, spec.sense);
}

SearchResult search(const SearchSpec& spec, Evaluator& evaluator) {
  SearchResult r;
  Walk w(spec, evaluator, r);
  try {
    // Knobs beyond the second: every combination, each with its own staircase.
    Setting s(spec.sizes.size(), 0);
    for (bool more = true; more;) {
      staircase(spec, w, r, s);
      more = false;
      for (size_t i = 2; i < s.size() && !more; ++i) {
        more = ++s[i] < spec.sizes[i];
        if (!more) s[i] = 0;
      }
    }
    pick_best(spec, r);
    // The proof: one step up in each knob fails the target or does no better (when one does
    // better, the objective broke its assumption: climb to it and prove again).
    for (bool climbed = r.best.has_value(); climbed;) {
      climbed = false;
      r.neighbours.clear();
      for (size_t i = 0; i < r.best->size(); ++i) {
        Setting n = *r.best;
        if (++n[i] >= spec.sizes[i]) continue;
        r.neighbours.push_back(Neighbour{i, n, w.probe(n)});
      }
      const Setting was = *r.best;
      pick_best(spec, r);
      climbed = *r.best != was;
    }
    if (!r.best) {
      // Nothing meets the target: the smallest setting comes nearest (by the assumption).
      w.complete_runs(Setting(spec.sizes.size(), 0));
    }
  } catch (const Walk::Spent&) {
    r.budget_spent = true;
    pick_best(spec, r);
  }
  if (!r.best)
    for (auto& [s, v] : r.samples)
      if (complete(v) && (!r.closest || spec.target.worse(worst_target(spec, r.samples[*r.closest]),
                                                          worst_target(spec, v))))
        r.closest = s;
  check_assumptions(spec, r);
  return r;
}

}  // namespace latsim::tune
