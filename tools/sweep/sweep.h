#pragma once
// `latsim sweep`: run a scenario over a grid of --param values x seeds, one child process
// (`latsim run`) per point, and write tables and plots of the chosen metrics (results.h).
//
// Exit status, as GNU parallel's: 0 when every point finished, 1..100 the number of failed
// points, 101 more than 100, 255 an error before any point ran (usage, scenario, a point
// `latsim run` would refuse, output directory) or a metric that no point has, 128+N when
// stopped by signal N (finished points are kept; --resume goes on).
#include <optional>
#include <string>
#include <vector>
#include "common/log.h"

namespace latsim::sweep {

constexpr int kErrorStatus = 255;

// What each finished point keeps of its `latsim run` directory. A point always keeps
// metrics.json (all the tables, plots and merges read) and its stderr.txt, if any; a
// point that keeps less than all runs in a scratch directory (TMPDIR, node-local on a
// cluster), so the sweep directory only ever sees the kept files.
enum class Keep { Metrics, Traces, All };  // Traces: also traces/ (the tracer's worst cases)

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> params;  // KEY=VALUES
  std::vector<std::string> sets;    // fixed KEY=VALUE overrides of every point
  log::Config log;             // debug-log options passed to every child run (its stderr is kept)
  std::string seed, duration;  // as `latsim run --seed/--duration`
  size_t seeds = 0;            // seed, seed+1, ... seed+K-1; 0: the scenario's sweep: or 1
  size_t jobs = 0;             // 0: the CPUs this process may use
  std::string out;             // default: out/<scenario-name>-sweep[-shard-K-of-N]
  bool resume = false;
  std::string shard;                      // "K/N", empty: the whole grid
  std::string metrics;                    // comma-separated dotted paths, empty: default_metrics()
  std::string pareto;                     // METRIC:min|max,... (two or three), empty: no frontier
  std::optional<double> pareto_quantile;  // across seeds; none: the worst
  double point_timeout = 0;               // seconds, 0: none
  bool dry_run = false;                   // check and print the points, run nothing
  bool quiet = false;
  Keep keep = Keep::All;
  double progress_interval = 30;  // seconds between progress lines when stderr is no terminal
};

int run_sweep(const SweepOptions& o);

// The exit status for `failed` failed (or missing) points.
int failed_status(size_t failed);

}  // namespace latsim::sweep
