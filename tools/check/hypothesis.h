#pragma once
// A hypothesis file (schema_version: 1): a claim from a seed, a base scenario, the cases
// that override it, and what each case's outputs (metrics.json, traces/) must show.
//
//   schema_version: 1
//   claim: Smaller IDE requests shorten the longest latency.
//   source: seed 000, Mark H. Johnson, linux-kernel, 2004-09-03
//   base: ../disk-dma-kernel-build.yaml      # relative to this file, else to a parent dir
//   duration: 10s                            # optional: every case's simulated time
//   seeds: 5                                 # optional: seeds per case (--seeds wins)
//   over_seeds: median                       # optional: median | each
//   cases:
//     - name: defaults
//       expect:
//         - {metric: latency_tracer.max_us, approx: 2305, tolerance: 35%}
//         - trace: {longest_step_in: [schedule, __switch_to], min_step_us: 50}
//         - trace: {longest_trace_has: [schedule, __switch_to]}
//           known_miss: "missing __switch_to: ..."   # the figure, the reason; KNOWN MISS
//     - name: quiet
//       set: [/sys/block/hda/queue/max_sectors_kb=32]
//   compare:
//     - {metric: latency_tracer.max_us, ratio: [defaults, quiet], min: 2.5, max: 6}
//     - {metric: latency_tracer.max_us, greater: [defaults, quiet]}
//     - {metric: disk.max_request_kb, monotonic: decreasing, cases: [defaults, quiet]}
//     - {case: defaults, monotonic: decreasing, metrics: [cpus.0.nmis, cpus.1.nmis]}
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "platform/scenario_loader.h"
#include "tools/check/bounds.h"
#include "tools/check/trace_signature.h"
#include "tools/metrics/metric_path.h"

namespace latsim::check {

using metrics::MetricPath;

enum class SeedMode { Each, Median };

// What a row stands for on the scoreboard: a band around a figure the seed gives, an
// order between cases or phases, a threshold the seed implies, or a guard that holds
// because the model is built so. Unless a row says (`kind:`), a band with `approx` is a
// seed figure, a greater/monotonic comparison an ordering, anything else a bound.
enum class RowKind { SeedFigure, Ordering, Bound, Construction };
const char* row_kind_text(RowKind k);  // "seed_figure", "ordering", "bound", "by_construction"

struct Expectation {
  std::string location;  // FILE:LINE:COL of the entry
  std::optional<MetricPath> metric;
  Bounds bounds;                        // with metric
  std::optional<TraceSignature> trace;  // or a trace signature
  std::optional<SeedMode> over_seeds;   // this entry's own, else the file's
  std::string known_miss;               // why the model misses it ("": it should hold)
  RowKind kind = RowKind::Bound;
};

struct Case {
  std::string name;
  std::string location;
  std::vector<std::string> sets;  // --set KEY=VALUE overrides, in order
  uint64_t seed = 0;              // the seed the case's scenario gives (after its sets)
  std::vector<Expectation> expect;
};

struct Comparison {
  enum class Op { Ratio, Greater, Monotonic };
  Op op = Op::Ratio;
  std::string location;
  MetricPath metric;
  std::vector<std::string> cases;  // Ratio, Greater: [A, B]; Monotonic: the order
  // Monotonic within one case (cases[0]): the order of these metrics, `metric` unused.
  std::vector<MetricPath> metrics;
  Bounds bounds;           // Ratio: of A / B
  bool increasing = true;  // Monotonic
  bool strict = true;      // Monotonic
  std::optional<SeedMode> over_seeds;
  std::string known_miss;  // as Expectation's
  RowKind kind = RowKind::Ordering;
};

struct Hypothesis {
  std::string file;  // as given
  std::string name;  // the file's stem: names its output directory and JUnit suite
  std::string claim, source;
  std::string base;      // the base scenario's path, as found
  std::string duration;  // empty: the base scenario's
  // Every row is judged on the median of 5 seeds (a trace signature: on 3 of them): what a
  // typical run gives, not one seed's luck either way.
  size_t seeds = 5;
  SeedMode over_seeds = SeedMode::Median;
  std::vector<Case> cases;
  std::vector<Comparison> compare;

  const Case* find_case(const std::string& name) const;
};

// Every problem in a file, one compiler-style line each (platform::Diagnostic).
class HypothesisError : public platform::InputError {
 public:
  using InputError::InputError;
};

// Reads (platform::read_input_file: a regular file within the input limits) and validates
// `path`, including every case's scenario (base + duration + the
// case's sets + `extra_sets`, e.g. a command-line duration). Throws HypothesisError.
Hypothesis load_hypothesis(const std::string& path,
                           const std::vector<std::string>& extra_sets = {});

// The same from text; `display_name` stands for the file (and `dir` for its directory
// when resolving `base`).
Hypothesis load_hypothesis_text(const std::string& text, const std::string& display_name,
                                const std::string& dir,
                                const std::vector<std::string>& extra_sets = {});

}  // namespace latsim::check
