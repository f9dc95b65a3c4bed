#pragma once
// Verdicts of a hypothesis from its cases' finished runs: one row per expectation and per
// comparison. Everything here reads files only, so a verdict is as reproducible as the runs.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tools/check/bounds.h"
#include "tools/check/hypothesis.h"

namespace latsim::check {

// One `latsim run` of a case with one seed.
struct RunOutcome {
  uint64_t seed = 0;
  std::filesystem::path dir;  // its output directory (metrics.json, traces/)
  bool ok = false;            // finished and wrote metrics.json
  std::string error;          // when not ok: "exit status 2: <its last stderr line>"
};

// KnownMiss: a row that fails as its hypothesis file says it does (known_miss).
enum class Verdict { Pass, Fail, Error, KnownMiss };
const char* verdict_text(Verdict v);  // "PASS", "FAIL", "ERROR", "KNOWN MISS"

struct Row {
  std::string hypothesis, case_name, metric, expected, measured;
  Verdict verdict = Verdict::Error;
  std::string detail;      // why it failed or could not be judged ("" when it passed)
  std::string location;    // FILE:LINE:COL of the expectation in the hypothesis file
  std::string known_miss;  // the file's reason the model misses it ("": it should hold)
  RowKind kind = RowKind::Bound;
  // The row in numbers, for scripts (verdicts.json); unset or empty where it has none.
  std::optional<Bounds> band;    // a metric's or a ratio's accepted band
  std::optional<double> value;   // the number judged: the median over seeds, or the one seed's
  std::vector<uint64_t> seeds;   // the seeds, in order
  std::vector<double> per_seed;  // a metric row: each seed's value (a ratio: each seed's ratio)
  // A comparison: each case (or metric of the one case) with its values, one per seed or
  // their median.
  std::vector<std::pair<std::string, std::vector<double>>> compared;
  // A known miss that held: the file should drop its known_miss.
  bool promoted() const { return !known_miss.empty() && verdict == Verdict::Pass; }
};

// `runs[i]` are the runs of h.cases[i], one per seed, in seed order.
std::vector<Row> evaluate(const Hypothesis& h, const std::vector<std::vector<RunOutcome>>& runs);

// The median of `v` (the mean of the middle two for an even count); v is not empty.
double median(std::vector<double> v);

}  // namespace latsim::check
