#include "tools/sweep/grid_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "platform/scenario_loader.h"

namespace latsim::sweep {
namespace {

using platform::Diagnostic;

// Distinct problems shown; the rest are counted.
constexpr size_t kMaxShown = 20;
// Points named after a problem; the rest are counted.
constexpr size_t kMaxPointsNamed = 5;

// "point 3 (K=V seed=1)", or for a combination of several seeds "points 4..5 (K=V)".
std::string point_text(const Point& p, size_t seeds) {
  std::vector<std::string> kv;
  for (const auto& [k, v] : p.values) kv.push_back(k + "=" + v);
  const bool combination = seeds > 1 && p.index % seeds == 0;
  if (!combination) kv.push_back("seed=" + std::to_string(p.seed));
  return combination
             ? fmt::format("points {}..{} ({})", p.index, p.index + seeds - 1, fmt::join(kv, " "))
             : fmt::format("point {} ({})", p.index, fmt::join(kv, " "));
}

// A diagnostic of point p said where the value came from: a swept value's `--set K=V`
// becomes its --param or its place in the scenario's sweep: block. `value` is the swept
// value it is about, "" for none.
Diagnostic placed(Diagnostic d, const Point& p, const std::vector<std::string>& where,
                  std::string& value) {
  value.clear();
  for (size_t i = 0; i < p.values.size(); ++i) {
    const auto& [k, v] = p.values[i];
    if (d.location != "--set " + k + "=" + v) continue;
    d.location = where[i] == "--param" ? "--param " + k : where[i];
    value = v;
  }
  return d;
}

// The point indices that load each of a grid's combinations and each of its seeds once:
// a seed is a scalar key, so a point's problems are its combination's plus its seed's.
std::vector<size_t> representatives(const Grid& g) {
  std::vector<size_t> idx;
  const size_t seeds = g.seeds.size();
  for (size_t c = 0; c < g.size() / seeds; ++c) idx.push_back(c * seeds);
  for (size_t s = 1; s < seeds; ++s) idx.push_back(s);
  return idx;
}

}  // namespace

void check_grid(const std::string& scenario_path, const std::string& scenario_text,
                const Grid& grid, const std::vector<std::string>& where) {
  // A problem is the same for every value that has it (an unknown key): shown once.
  struct Problem {
    Diagnostic d;
    std::vector<Point> points;
    std::set<std::string> values;
  };
  std::map<std::string, Problem> problems;
  std::vector<std::string> order;  // first seen first
  std::set<size_t> bad;
  for (size_t i : representatives(grid)) {
    const Point p = grid.point(i);
    std::vector<std::string> sets = grid.overrides(p);
    sets.push_back("seed=" + std::to_string(p.seed));
    try {
      platform::load_scenario_text(scenario_text, scenario_path, sets);
    } catch (const platform::ScenarioError& e) {
      bad.insert(i);
      for (const auto& d0 : e.diagnostics()) {
        std::string value;
        const Diagnostic d = placed(d0, p, where, value);
        const std::string text = d.to_string();
        auto [it, fresh] = problems.try_emplace(text, Problem{d, {}, {}});
        if (fresh) order.push_back(text);
        it->second.points.push_back(p);
        if (!value.empty()) it->second.values.insert(value);
      }
    }
  }
  if (bad.empty()) return;

  std::vector<Diagnostic> out;
  for (size_t n = 0; n < order.size() && n < kMaxShown; ++n) {
    auto [d, points, values] = problems.at(order[n]);
    // `--param K=V` when it is about one value (the points name the values otherwise).
    if (values.size() == 1 && d.location.rfind("--param ", 0) == 0)
      d.location += "=" + *values.begin();
    std::vector<std::string> named;
    for (size_t k = 0; k < points.size() && k < kMaxPointsNamed; ++k)
      named.push_back(point_text(points[k], grid.seeds.size()));
    const std::string more = points.size() > kMaxPointsNamed
                                 ? fmt::format(" and {} more", points.size() - kMaxPointsNamed)
                                 : "";
    d.message += fmt::format(" [{}{}]", fmt::join(named, ", "), more);
    out.push_back(d);
  }
  // A bad combination breaks every seed of it; a bad seed every combination.
  // (Point s, s > 0, is seed s's representative only when combination 0 loads.)
  const size_t seeds = grid.seeds.size();
  auto seed_bad = [&](size_t s) { return s > 0 && bad.count(s) && !bad.count(0); };
  size_t broken = 0;
  for (size_t i = 0; i < grid.size(); ++i)
    broken += bad.count(i - i % seeds) || seed_bad(i % seeds);
  std::string summary = fmt::format(
      "{} of {} points would fail (`latsim run` refuses them); nothing was run. "
      "`latsim list params` lists every key with its range",
      broken, grid.size());
  if (order.size() > kMaxShown)
    summary = fmt::format("{} more problems not shown; {}", order.size() - kMaxShown, summary);
  out.push_back(Diagnostic{"latsim sweep", "", summary});
  throw platform::InputError(std::move(out));
}

}  // namespace latsim::sweep
