#pragma once
// `latsim tune`: from a latency target to the knob setting that meets it on every seed at
// the best objective, searching the grid of the knobs' values (search.h) instead of
// running all of it. Every run is a child `latsim run` (the sweep's runner), cached in
// DIR/points/<id>/ with the same ids a sweep of that grid gives its points.
//
// DIR holds tune-grid.json (the grid: scenario, knobs, seeds, fixed overrides; --resume
// refuses a different one), points/, and the answer: tune.json, tune.md (also printed)
// and tuned.yaml (the scenario with the chosen knobs set, which `latsim run` reproduces).
//
// Exit status: 0 a setting meets the target; 1 none met it (the nearest is reported);
// 255 an error (bad input before any run, or a run that failed); 128+N stopped by signal N
// (the finished runs are kept; --resume goes on).
#include <string>
#include <vector>
#include "common/log.h"

namespace latsim::tune {

constexpr int kNotMetStatus = 1;
constexpr int kErrorStatus = 255;

struct TuneOptions {
  std::string scenario;
  std::string target;              // "METRIC <= X"
  std::string maximise, minimise;  // the objective: exactly one
  std::vector<std::string> knobs;  // KEY=VALUES, sweep's --param syntax
  std::vector<std::string> sets;   // fixed KEY=VALUE overrides of every run
  log::Config log;             // debug-log options passed to every child run (its stderr is kept)
  std::string seed, duration;  // as `latsim run --seed/--duration`
  size_t seeds = 5;
  size_t jobs = 0;    // 0: the CPUs this process may use
  size_t budget = 0;  // runs at most, 0: no limit
  std::string out;    // default: out/<scenario-name>-tune
  bool resume = false;
  double run_timeout = 0;  // seconds, 0: none
  bool quiet = false;
};

int run_tune(const TuneOptions& o);

}  // namespace latsim::tune
