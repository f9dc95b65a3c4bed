#include "tools/sweep/cli.h"
#include "tools/log_options.h"

#include <fmt/format.h>
#include <iostream>
#include <map>

#include "common/text.h"
#include "platform/scenario_loader.h"
#include "tools/option_range.h"
#include "tools/sweep/grid.h"

namespace latsim::sweep {

Commands::Commands(CLI::App& app) {
  auto& o = so_;
  sweep_ = app.add_subcommand(
      "sweep",
      "Run a scenario over a grid of values (one `latsim run` process per point, -j at a time)\n"
      "and write results.csv/.json/.md and SVG plots. Every point is checked first as\n"
      "`latsim run` would check it. Exit status: the number of failed points (101: more\n"
      "than 100), 255 on an error before any point ran or a metric no point has.");
  sweep_->add_option("scenario", o.scenario, "Scenario YAML file (schema_version: 1)")->required();
  sweep_
      ->add_option(
          "--param", o.params,
          "Swept key and its values: KEY=V1,V2,... where KEY is as for --set and a value may be\n"
          "a range: 8..128*2 (8,16,32,64,128), 0..248+8 (0,8,...,248), 1..4; repeatable, the\n"
          "grid is the product (first --param slowest)")
      ->allow_extra_args(false);
  sweep_
      ->add_option("--seeds", o.seeds,
                   "Seeds per point: the scenario's seed (or --seed) and the next K-1")
      ->check(cli::in_range(1, cli::kMaxSeeds));
  sweep_->add_option("-j,--jobs", o.jobs, "Points run at a time (default: the CPUs available)")
      ->check(cli::in_range(1, cli::kMaxJobs));
  sweep_->add_option("--out", o.out, "Output directory (default: out/<scenario-name>-sweep/)");
  sweep_->add_flag("--resume", o.resume,
                   "Continue the sweep in --out: skip finished points, rerun failed ones");
  sweep_->add_option("--shard", o.shard,
                     "Run only slice K of N of the grid (points whose index % N == K, K from\n"
                     "0); join the slices with `latsim sweep-merge`");
  sweep_->add_option(
      "--metrics", o.metrics,
      "Comma-separated paths into metrics.json for the tables and plots, as\n"
      "`latsim check` writes them (cpus.0.stall_us.pci; cpus[0] is read as\n"
      "cpus.0); a path no point has is an error (default:\n"
      "latency_tracer.max_us,workloads.cyclictest.max_us,disk.read_mb_s,ticks.lost)");
  sweep_->add_option(
      "--pareto", o.pareto,
      "Mark the Pareto-optimal settings in the results and draw pareto.svg: two or\n"
      "three metrics, each to minimise or maximise (they join --metrics), e.g.\n"
      "latency_tracer.max_us:min,disk.read_mb_s:max; a setting's value is its worst\n"
      "across the seeds");
  sweep_->add_option("--pareto-quantile", o.pareto_quantile,
                     "With --pareto: a setting's value is this quantile across its seeds,\n"
                     "from 0 (the best seed) to 1 (the worst, the default; 0.5: the median)");
  sweep_
      ->add_option("--point-timeout", o.point_timeout,
                   "Wall-clock seconds a point may take before it is killed and counted failed")
      ->check(cli::in_range(0, cli::kMaxTimeoutSeconds, "seconds; 0: no limit"));
  cli::add_log_options(sweep_, o.log, false);
  sweep_->add_option("--set", o.sets, "Fixed override of every point, as for `latsim run`")
      ->allow_extra_args(false);
  sweep_->add_option("--seed", o.seed, "First seed (default: the scenario's)");
  sweep_->add_option("--duration", o.duration, "Simulated time of every point, e.g. 10s");
  sweep_->add_flag("--dry-run", o.dry_run,
                   "Check every point as `latsim run` would (a point it would refuse fails\n"
                   "the sweep before anything runs), print them (index, id, overrides) and\n"
                   "run nothing");
  sweep_->add_flag("-q,--quiet", o.quiet, "No progress line and no summary");
  static const std::map<std::string, Keep> keeps{
      {"metrics", Keep::Metrics}, {"traces", Keep::Traces}, {"all", Keep::All}};
  sweep_
      ->add_option_function<std::string>(
          "--keep", [&o](const std::string& v) { o.keep = keeps.at(v); },
          "What each point keeps of its run directory: metrics (metrics.json, all the\n"
          "results need), traces (also traces/) or all (default); the others run in\n"
          "a scratch directory under TMPDIR and copy only what they keep")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            return keeps.count(v)
                       ? ""
                       : fmt::format("`{}` is not one of metrics, traces, all", text::escaped(v));
          },
          "metrics|traces|all"));
  sweep_
      ->add_option("--progress-interval", o.progress_interval,
                   "Seconds between progress lines when stderr is not a terminal (a batch\n"
                   "job's log; default 30)")
      ->check(cli::in_range(0, cli::kMaxTimeoutSeconds));

  merge_ = app.add_subcommand(
      "sweep-merge",
      "Join the output directories of the shards of one sweep (--shard K/N) into one, and\n"
      "regenerate its results and plots; refuses directories of different sweeps");
  merge_->add_option("dirs", mo_.dirs, "Sweep output directories (shards)")->required();
  merge_->add_option("--out", mo_.out, "The merged sweep directory")->required();
  merge_->add_option("--metrics", mo_.metrics, "As for sweep (default: the shards')");
  merge_->add_option("--pareto", mo_.pareto, "As for sweep (default: the shards')");
  merge_->add_option("--pareto-quantile", mo_.pareto_quantile,
                     "As for sweep (default: the shards')");
  merge_->add_flag("-q,--quiet", mo_.quiet, "No summary");
}

bool Commands::selected() const { return sweep_->parsed() || merge_->parsed(); }

int Commands::run() const {
  const char* what = sweep_->parsed() ? "sweep" : "sweep-merge";
  try {
    return sweep_->parsed() ? run_sweep(so_) : run_merge(mo_);
  } catch (const platform::InputError& e) {
    std::cerr << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "latsim " << what << ": error: " << text::escaped(e.what()) << "\n";
  }
  return kErrorStatus;
}

}  // namespace latsim::sweep
