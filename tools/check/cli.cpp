#include "tools/check/cli.h"
#include "tools/log_options.h"

#include <iostream>

#include "common/text.h"
#include "tools/option_range.h"

namespace latsim::check {

const char* format_help() {
  return R"(
Hypothesis file (YAML, schema_version: 1):

  schema_version: 1
  claim: Smaller IDE requests shorten the longest latency.   # one sentence
  source: seed 000, Mark H. Johnson, linux-kernel, 2004-09-03
  base: ../disk-dma-kernel-build.yaml   # scenario, relative to this file or a parent dir
  duration: 10s          # optional: every case's simulated time
  seeds: 5               # optional: seeds per case (--seeds wins): the case's seed, +1, ...
  over_seeds: median     # optional: median (the median must hold) | each (every seed must)
  cases:                 # each case is one `latsim run` per seed
    - name: defaults
      expect:
        - {metric: latency_tracer.max_us, approx: 2305, tolerance: 35%}
        - {metric: cpus.0.fsb_stall_us, min: 100}
        - trace: {longest_step_in: [schedule, __switch_to], min_step_us: 50}
        - trace: {consecutive_steps_over_us: 50, count_at_least: 4}
        - trace: {longest_trace_has: do_IRQ}
        - trace: {longest_section_in: rtl8139_poll, min_us: 140}
    - name: quiet
      set: [/sys/block/hda/queue/max_sectors_kb=32]   # KEY=VALUE, as for --set
      expect:
        - {metric: disk.max_request_kb, max: 32, over_seeds: median}
  compare:
    - {metric: latency_tracer.max_us, ratio: [defaults, quiet], min: 2.5, max: 6}
    - {metric: latency_tracer.max_us, greater: [defaults, quiet]}
    - {metric: disk.max_request_kb, monotonic: decreasing, cases: [defaults, quiet]}
    - {case: defaults, monotonic: decreasing, metrics: [cpus.0.nmis, cpus.1.nmis]}

Metric expectations: `metric` is a path into the run's metrics.json, keys and array
indexes joined by dots (workloads.cyclictest.max_us, cpus.1.spin_us; cpus[1].spin_us is
read as cpus.1.spin_us), as for `latsim sweep --metrics`; it must be a number within
`min`..`max` (inclusive, either may be left out) or `approx` ± `tolerance`, relative
(35%) or absolute (in the metric's unit). No expectation should read back a value the
scenario sets: judge what the run measured.
Comparisons across cases: `ratio: [A, B]` bounds A/B like an expectation; `greater:
[A, B]` means A > B; `monotonic: increasing|decreasing` over `cases: [A, B, C...]` in
that order (strict unless `strict: false`). Within one case: `case: A` with `monotonic`
over `metrics: [M1, M2, ...]` orders several of its metrics (a table's rows).
Trace signatures read the run's traces/*.txt (the voluntary-preempt tracer's format: one
line per entry, `(+D.DDDms)` is the time to the next entry, the entry's "step"; a v1.0.3
trace, which prints the time since the previous entry, is recognised from its timestamps):
  longest_step_in: F | [F, G]     in the longest trace, the longest step is F's (or G's),
    min_step_us: N                and it lasts at least N us; a step is F's when it starts
                                  at an entry of F or ends at a call F makes (its time went
                                  in F's code)
  consecutive_steps_over_us: X    "slow motion": some trace has N steps in a row, each
    count_at_least: N             longer than X us (and shorter than steps_under_us: Y;
                                  in_traces_over_us: Z counts only traces of Z us or more)
  longest_trace_has: F | [F, G]   each function has an entry in the longest trace
  longest_section_in: F | [F, G]  of the traces whose section started or ended in F ("=>
    min_us: N, max_us: M          started at: F+0x.."), the longest lasts N..M us
Seeds: each case runs with 5 seeds by default and every row is judged on their median (a
trace signature: on a majority of the seeds; a comparison: on the medians); `over_seeds:
each` judges every seed (a comparison pairs the i-th seeds).
Row kinds: `kind: seed_figure|ordering|bound|by_construction` says what a row stands for
(default: a band with `approx` is a seed figure, greater/monotonic an ordering, the rest a
bound); the last line counts the seed figures that hold.
Known misses: a row the model does not reproduce carries `known_miss: "why"` (the figure
it gives and what it lacks). It fails as KNOWN MISS, listed with its reason, and does not
fail the check (--strict: it does); a known miss that holds is reported so the file can
drop its known_miss (--exact: that fails the check, as in CI).

Outputs: DIR/<hypothesis>/<case>/seed-<N>/ (each run), DIR/<hypothesis>/verdicts.json.
Exit status: 0 every expectation holds or is a known miss; 1 one fails or cannot be judged
(a run failed, a metric is missing); 2 a bad hypothesis file (FILE:LINE:COLUMN: error: KEY: ...) or
command line; 128+N stopped by signal N.
)";
}

Command::Command(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "check",
      "Run hypothesis files: every case of every hypothesis as its own `latsim run`\n"
      "process (-j at a time), then print a verdict table (hypothesis, case, metric,\n"
      "expected, measured, verdict). Exit 0 only if every expectation holds or is a\n"
      "known miss (known_miss in the file).");
  cmd_->add_option("hypotheses", o_.files, "Hypothesis YAML files (schema_version: 1)")->required();
  cmd_->add_option("-j,--jobs", o_.jobs, "Runs at a time (default: the CPUs available)")
      ->check(cli::in_range(1, cli::kMaxJobs));
  cmd_->add_option("--junit", o_.junit, "Also write the verdicts as JUnit XML to FILE");
  cmd_->add_option("--out", o_.out, "Output directory (default: out/check/)");
  cmd_->add_option("--seeds", o_.seeds,
                   "Run each case with K seeds (the case's seed and the next K-1) instead of\n"
                   "the file's `seeds`; the file's over_seeds says how they are judged")
      ->check(cli::in_range(1, cli::kMaxSeeds));
  cmd_->add_option("--duration", o_.duration,
                   "Simulated time of every run (e.g. 5s), instead of the files' and scenarios'");
  cli::add_log_options(cmd_, o_.log, false);
  cmd_->add_option("--set", o_.sets,
                   "Override a value in every run, as for `latsim run`, after each case's own\n"
                   "`set` (a counterfactual: which expectations still hold without a\n"
                   "mechanism, e.g. --set mechanisms.bus_master_holdoff=false); repeatable")
      ->allow_extra_args(false);
  cmd_->add_option("--case-timeout", o_.case_timeout,
                   "Wall-clock seconds a run may take before it is killed (its expectations\n"
                   "then cannot be judged)")
      ->check(cli::in_range(0, cli::kMaxTimeoutSeconds, "seconds; 0: no limit"));
  cmd_->add_flag("--validate", o_.validate,
                 "Check the files (and every case's scenario with its overrides), run nothing");
  cmd_->add_flag("-q,--quiet", o_.quiet, "No table: only failures and the summary line");
  cmd_->add_option("--format", o_.format,
                   "How the verdicts are printed: table (wrapped to the terminal's width,\n"
                   "$COLUMNS), md (a Markdown table), csv or json (stdout holds only the\n"
                   "verdicts, with their numbers; the rest goes to stderr). Default: table on\n"
                   "a terminal, md otherwise")
      ->check(CLI::IsMember({"table", "md", "csv", "json"}));
  cmd_->add_flag("--strict", o_.strict, "Known misses fail the check too");
  cmd_->add_flag("--exact", o_.exact,
                 "A known miss that holds fails the check too: any change to the scoreboard\n"
                 "fails (CI)");
  cmd_->footer(format_help());
}

bool Command::selected() const { return cmd_->parsed(); }

int Command::run() const {
  try {
    return run_check(o_);
  } catch (const std::exception& e) {
    std::cerr << "latsim check: error: " << text::escaped(e.what()) << "\n";
    return kBadInput;
  }
}

}  // namespace latsim::check
