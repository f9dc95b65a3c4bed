#include "tools/tune/cli.h"
#include "tools/log_options.h"

#include <iostream>

#include "common/text.h"
#include "platform/scenario_loader.h"
#include "tools/option_range.h"
#include "tools/tune/search.h"

namespace latsim::tune {

Command::Command(CLI::App& app) {
  auto& o = o_;
  cmd_ = app.add_subcommand(
      "tune",
      "Find the knob setting that meets a target on every seed at the best objective, in far\n"
      "fewer runs than the grid of the knobs' values: e.g.\n"
      "  latsim tune S.yaml --target 'latency_tracer.max_us <= 650' --maximise disk.read_mb_s\n"
      "    --knob /sys/block/hda/queue/max_sectors_kb=4..128*2\n"
      "    --knob /sys/block/hda/queue/read_ahead_kb=4..256*2\n"
      "It assumes the target is lost, never regained, as a knob grows (a `<=` metric grows\n"
      "with request size) and the objective gets no worse; so it walks the boundary of the\n"
      "feasible settings: from the first knob's largest and the second's smallest value, a\n"
      "feasible setting moves the second knob up, an infeasible one the first knob down\n"
      "(further knobs: every combination, each walked). A setting runs on the first seed,\n"
      "then on the others if it met the target there. Every pair of runs made is checked\n"
      "against the assumptions (`assumption not held: ...`). Prints the answer with its\n"
      "figures per seed, the runs spent, the neighbours that prove it, the binding\n"
      "constraint and the frontier found; writes DIR/tune.json, tune.md and tuned.yaml\n"
      "(the scenario with the answer set: `latsim run DIR/tuned.yaml` reproduces it).\n"
      "Exit status: 0 answer found, 1 no setting meets the target (the nearest is given),\n"
      "255 an error (bad input before any run, a failed run), 128+N stopped by signal N.");
  cmd_->add_option("scenario", o.scenario, "Scenario YAML file (schema_version: 1)")->required();
  cmd_->add_option("--target", o.target,
                   "What every seed must meet: `METRIC <= X`, `METRIC < X`, `METRIC >= X` or\n"
                   "`METRIC > X`, METRIC a path into metrics.json")
      ->required();
  auto* max = cmd_->add_option("--maximise,--maximize", o.maximise,
                               "Metric to maximise, worst (smallest) of the seeds");
  auto* min = cmd_->add_option("--minimise,--minimize", o.minimise,
                               "Metric to minimise, worst (largest) of the seeds");
  max->excludes(min);
  cmd_->add_option("--knob", o.knobs,
                   "A tunable and its values, as `latsim sweep --param`: KEY=V1,V2,... with\n"
                   "ranges 4..128*2 (4,8,...,128), 0..248+8, 1..4; list values smallest first;\n"
                   "repeatable (the first knob is walked down, the second up)")
      ->required()
      ->allow_extra_args(false);
  cmd_->add_option("--seeds", o.seeds,
                   "Seeds every answer must hold on: the scenario's seed (or --seed) and the\n"
                   "next K-1 (default 5)")
      ->check(cli::in_range(1, cli::kMaxSeeds));
  cmd_->add_option("-j,--jobs", o.jobs, "Runs at a time (default: the CPUs available)")
      ->check(cli::in_range(1, cli::kMaxJobs));
  cmd_->add_option("--budget", o.budget,
                   "Stop after this many runs and report the best found so far (default: no\n"
                   "limit)")
      ->check(cli::in_range(1, 1e9));
  cmd_->add_option("--out", o.out, "Output directory (default: out/<scenario-name>-tune/)");
  cmd_->add_flag("--resume", o.resume,
                 "Continue the tune in --out: finished runs are read back, not run again");
  cli::add_log_options(cmd_, o.log, false);
  cmd_->add_option("--set", o.sets, "Fixed override of every run, as for `latsim run`")
      ->allow_extra_args(false);
  cmd_->add_option("--seed", o.seed, "First seed (default: the scenario's)");
  cmd_->add_option("--duration", o.duration, "Simulated time of every run, e.g. 10s");
  cmd_->add_option("--run-timeout", o.run_timeout,
                   "Wall-clock seconds a run may take before it is killed (the tune fails)")
      ->check(cli::in_range(0, cli::kMaxTimeoutSeconds, "seconds; 0: no limit"));
  cmd_->add_flag("-q,--quiet", o.quiet, "No progress lines on stderr");
}

bool Command::selected() const { return cmd_->parsed(); }

int Command::run() const {
  try {
    return run_tune(o_);
  } catch (const platform::InputError& e) {
    std::cerr << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "latsim tune: error: " << text::escaped(e.what()) << "\n";
  }
  return kErrorStatus;
}

}  // namespace latsim::tune
