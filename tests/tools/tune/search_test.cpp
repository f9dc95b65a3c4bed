// The search of `latsim tune` on synthetic monotone functions over many grids: it finds the
// brute-force optimum of the grid in fewer runs; and it says so when an assumption breaks,
// when the budget runs out, and when nothing meets the target.
#include "tools/tune/search.h"
#include <gtest/gtest.h>
#include <cmath>
#include <cstdint>

namespace latsim::tune {
namespace {

// A small deterministic generator (the standard distributions differ between libraries).
struct Lcg {
  uint64_t x;
  uint64_t next() { return x = x * 6364136223846793005ULL + 1442695040888963407ULL, x >> 33; }
  size_t below(size_t n) { return next() % n; }
};

// target: grows with every knob (latency), objective: grows too (throughput); both shift a
// little with the seed, as a simulation's figures do.
struct Synthetic : Evaluator {
  std::vector<std::vector<double>> wt, wo;  // per knob, per value index: increments
  std::vector<double> seed_shift;
  size_t calls = 0;
  Sample at(const Setting& s, size_t seed) const {
    Sample x{seed_shift[seed], 0};
    for (size_t i = 0; i < s.size(); ++i) {
      x.target += wt[i][s[i]];
      x.objective += wo[i][s[i]] * (1 + 0.1 * double(seed));
    }
    return x;
  }
  std::vector<Sample> evaluate(const std::vector<tune::Run>& runs) override {
    std::vector<Sample> out;
    for (const auto& r : runs) out.push_back(at(r.setting, r.seed));
    calls += runs.size();
    return out;
  }
};

Synthetic make(Lcg& g, const std::vector<size_t>& sizes, size_t seeds) {
  Synthetic f;
  for (size_t n : sizes) {
    std::vector<double> t, o;
    double ct = 0, co = 0;
    for (size_t k = 0; k < n; ++k) {
      ct += double(g.below(100));  // non-decreasing, with plateaus
      co += double(g.below(20));
      t.push_back(ct);
      o.push_back(co);
    }
    f.wt.push_back(t);
    f.wo.push_back(o);
  }
  for (size_t k = 0; k < seeds; ++k) f.seed_shift.push_back(double(g.below(30)));
  return f;
}

// The grid's optimum by brute force: the best worst-of-seeds objective among the settings
// that meet the target on every seed; nullopt when none does.
std::optional<double> brute_force(const SearchSpec& spec, const Synthetic& f) {
  std::optional<double> best;
  Setting s(spec.sizes.size(), 0);
  for (bool more = true; more;) {
    std::vector<std::optional<Sample>> v;
    for (size_t k = 0; k < spec.seeds; ++k) v.push_back(f.at(s, k));
    if (feasible(spec, v)) {
      const double o = worst_objective(spec, v);
      if (!best || o > *best) best = o;
    }
    more = false;
    for (size_t i = s.size(); i-- > 0 && !more;) {
      more = ++s[i] < spec.sizes[i];
      if (!more) s[i] = 0;
    }
  }
  return best;
}

size_t grid_runs(const SearchSpec& spec) {
  size_t n = spec.seeds;
  for (size_t k : spec.sizes) n *= k;
  return n;
}

SearchSpec spec_of(const std::vector<size_t>& sizes, size_t seeds, double bound) {
  SearchSpec spec;
  spec.sizes = sizes;
  spec.seeds = seeds;
  spec.target = parse_target("latency_tracer.max_us <= " + std::to_string(bound));
  spec.sense = Sense::Max;
  return spec;
}

TEST(TuneSearch, FindsTheGridOptimumOfManyMonotoneGrids) {
  Lcg g{42};
  for (int trial = 0; trial < 400; ++trial) {
    const size_t knobs = 1 + g.below(3);
    std::vector<size_t> sizes;
    for (size_t i = 0; i < knobs; ++i) sizes.push_back(1 + g.below(8));
    const size_t seeds = 1 + g.below(4);
    Synthetic f = make(g, sizes, seeds);
    const SearchSpec spec = spec_of(sizes, seeds, double(g.below(100 * knobs + 30)));
    const SearchResult r = search(spec, f);
    const auto want = brute_force(spec, f);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    ASSERT_EQ(r.best.has_value(), want.has_value());
    EXPECT_TRUE(r.violations.empty());
    EXPECT_EQ(r.runs, f.calls);
    if (want) {
      auto v = r.samples.at(*r.best);
      EXPECT_TRUE(feasible(spec, v));
      EXPECT_EQ(worst_objective(spec, v), *want);
    } else {
      EXPECT_TRUE(r.closest.has_value());  // the nearest setting is reported
      EXPECT_EQ(*r.closest, Setting(knobs, 0));
    }
    // The walk: at most |A|+|B| settings per combination of the other knobs, plus the
    // proof's neighbours, each on every seed at most.
    size_t others = 1;
    for (size_t i = 2; i < knobs; ++i) others *= sizes[i];
    const size_t walk = (sizes[0] + (knobs > 1 ? sizes[1] : 1)) * others + knobs;
    EXPECT_LE(r.runs, walk * seeds);
    EXPECT_LE(r.runs, grid_runs(spec));
  }
}

TEST(TuneSearch, SpendsAThirdOfALargeGrid) {
  Lcg g{7};
  Synthetic f = make(g, {6, 7}, 5);
  const SearchSpec spec = spec_of({6, 7}, 5, 200);
  const SearchResult r = search(spec, f);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(worst_objective(spec, r.samples.at(*r.best)), *brute_force(spec, f));
  EXPECT_LE(r.runs * 3, grid_runs(spec));
}

TEST(TuneSearch, TheProofNamesEachNeighbourUp) {
  // Target = a + b on values 0..4; bound 4: the boundary is a + b = 4; objective 2a + b.
  struct Plane : Evaluator {
    std::vector<Sample> evaluate(const std::vector<tune::Run>& runs) override {
      std::vector<Sample> out;
      for (const auto& r : runs)
        out.push_back(
            {double(r.setting[0] + r.setting[1]), double(2 * r.setting[0] + r.setting[1])});
      return out;
    }
  } plane;
  const SearchResult r = search(spec_of({5, 5}, 2, 4), plane);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(*r.best, (Setting{4, 0}));
  ASSERT_EQ(r.neighbours.size(), 1u);  // knob 0 is at its largest value
  EXPECT_EQ(r.neighbours[0].setting, (Setting{4, 1}));
  EXPECT_FALSE(r.neighbours[0].feasible);
  EXPECT_EQ(r.boundary.size(), 5u);
}

TEST(TuneSearch, ReportsABrokenAssumption) {
  // The target falls when knob 0 goes from 1 to 2: not monotone.
  struct Dip : Evaluator {
    std::vector<Sample> evaluate(const std::vector<tune::Run>& runs) override {
      std::vector<Sample> out;
      for (const auto& r : runs) {
        const double t[] = {1, 10, 5};
        out.push_back({t[r.setting[0]], double(r.setting[0])});
      }
      return out;
    }
  } dip;
  const SearchResult r = search(spec_of({3}, 1, 4), dip);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_TRUE(r.violations[0].of_target);
  EXPECT_EQ(r.violations[0].lo_value, 10);
  EXPECT_EQ(r.violations[0].hi_value, 5);
}

TEST(TuneSearch, StopsWhenTheBudgetIsSpent) {
  Lcg g{3};
  Synthetic f = make(g, {6, 7}, 3);
  SearchSpec spec = spec_of({6, 7}, 3, 150);
  spec.budget = 7;
  const SearchResult r = search(spec, f);
  EXPECT_TRUE(r.budget_spent);
  EXPECT_LE(r.runs, 7u);
  EXPECT_EQ(f.calls, r.runs);
}

TEST(TuneSearch, NoSettingMeetsTheTarget) {
  Lcg g{5};
  Synthetic f = make(g, {4, 4}, 2);
  const SearchResult r = search(spec_of({4, 4}, 2, -1), f);
  EXPECT_FALSE(r.best.has_value());
  ASSERT_TRUE(r.closest.has_value());
  EXPECT_EQ(*r.closest, (Setting{0, 0}));
  EXPECT_TRUE(complete(r.samples.at(*r.closest)));
}

TEST(TuneTarget, ParsesTheFourForms) {
  EXPECT_EQ(parse_target("latency_tracer.max_us <= 650").cmp, Cmp::Le);
  EXPECT_EQ(parse_target("latency_tracer.max_us<650").cmp, Cmp::Lt);
  EXPECT_EQ(parse_target("disk.read_mb_s >= 20").cmp, Cmp::Ge);
  const Target t = parse_target(" disk.read_mb_s > 2.5 ");
  EXPECT_EQ(t.cmp, Cmp::Gt);
  EXPECT_EQ(t.bound, 2.5);
  EXPECT_EQ(t.metric.text, "disk.read_mb_s");
  EXPECT_TRUE(parse_target("a.b <= 3").met(3));
  EXPECT_FALSE(parse_target("a.b < 3").met(3));
}

TEST(TuneTarget, RefusesOtherFormsNamingTheAccepted) {
  for (const char* bad : {"latency_tracer.max_us = 650", "latency_tracer.max_us <= fast", "<= 650",
                          "latency_tracer.max_us <=", "latency_tracer..max_us <= 6"}) {
    try {
      parse_target(bad);
      ADD_FAILURE() << bad;
    } catch (const TuneError& e) {
      EXPECT_NE(std::string(e.what()).find("`METRIC <= X`"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace latsim::tune
