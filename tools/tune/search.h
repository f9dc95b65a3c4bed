#pragma once
// The search of `latsim tune`, apart from running anything: which settings of a grid of
// knobs to evaluate, on which seeds, to find the one that meets a target on every seed at
// the best objective. An Evaluator does the runs (child `latsim run`s, or a function in
// the tests).
//
// Assumptions (checked on every pair of runs made, see Violation):
//   - the target is lost, never regained, as any knob grows: a `<=`/`<` target's metric is
//     non-decreasing in each knob (bigger requests or read-ahead, longer worst case), a
//     `>=`/`>` target's non-increasing; so the feasible settings are a down-set;
//   - the objective gets no worse as any knob grows; so the best feasible setting lies on
//     the feasibility boundary.
// Under them a staircase walk finds it: for each value of the second knob (upwards), the
// largest feasible value of the first knob, starting from the one found for the previous
// value (so O(|A|+|B|) settings); further knobs are enumerated. A setting is probed on the
// first seed, and only when that meets the target on the others.
#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/metrics/metric_path.h"
#include "tools/tune/frontier.h"

namespace latsim::tune {

// A mistake in --target, --knob or the like (the message says which and the accepted forms).
class TuneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Cmp { Le, Lt, Ge, Gt };

struct Target {
  metrics::MetricPath metric;
  Cmp cmp = Cmp::Le;
  double bound = 0;
  bool met(double value) const;
  // The worse of two values of the metric (the larger for `<=`).
  bool worse(double a, double b) const;
  std::string op() const;  // "<="
};

// "latency_tracer.max_us <= 650" (also <, >=, >). Throws TuneError naming the forms.
Target parse_target(const std::string& text);

using Setting = std::vector<size_t>;  // one value index per knob

struct Run {
  Setting setting;
  size_t seed = 0;  // index into the seeds
};

struct Sample {
  double target = 0;
  double objective = 0;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // The sample of each run, in order (a batch: the runs may go in parallel). Throws when one
  // cannot be had.
  virtual std::vector<Sample> evaluate(const std::vector<Run>& runs) = 0;
};

struct SearchSpec {
  std::vector<size_t> sizes;  // values per knob, at least one knob
  size_t seeds = 1;
  Target target;
  Sense sense = Sense::Max;  // of the objective
  size_t budget = 0;         // runs at most; 0: no limit
};

// Two runs on one seed that contradict an assumption: `hi` is `lo` with knobs raised, and its
// figure is better (target) or worse (objective) than `lo`'s.
struct Violation {
  bool of_target = true;
  Setting lo, hi;
  size_t seed = 0;
  double lo_value = 0, hi_value = 0;
};

// A neighbour of the answer: one knob one step up.
struct Neighbour {
  size_t knob = 0;
  Setting setting;
  bool feasible = false;  // met the target on every seed
};

struct SearchResult {
  std::map<Setting, std::vector<std::optional<Sample>>> samples;  // per seed, as run
  size_t runs = 0;
  bool budget_spent = false;
  std::vector<Setting> boundary;   // feasible on every seed, walk order
  std::optional<Setting> best;     // the answer
  std::optional<Setting> closest;  // no feasible setting: the one nearest the target
  std::vector<Neighbour> neighbours;
  std::vector<Violation> violations;
};

SearchResult search(const SearchSpec& spec, Evaluator& evaluator);

// Figures of a setting's runs on all seeds (all must be present).
double worst_target(const SearchSpec& spec, const std::vector<std::optional<Sample>>& s);
double worst_objective(const SearchSpec& spec, const std::vector<std::optional<Sample>>& s);
bool complete(const std::vector<std::optional<Sample>>& s);
bool feasible(const SearchSpec& spec, const std::vector<std::optional<Sample>>& s);

}  // namespace latsim::tune
