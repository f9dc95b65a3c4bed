#pragma once
// `latsim check`: load hypothesis files, run every case of every hypothesis as its own
// `latsim run` process (tools/sweep/runner.h, -j at a time), judge the outputs and print the
// verdict table.
//
// Output directory (default out/check/): <hypothesis>/<case>/seed-<N>/ is each run's
// `latsim run` output, <hypothesis>/verdicts.json the rows. Exit status: 0 when every
// expectation holds or is a known miss, 1 when one fails or cannot be judged (a run failed, a
// metric is missing), 2 on a bad hypothesis file or command line, 128+N when stopped by signal N.
#include <string>
#include <vector>
#include "common/log.h"

namespace latsim::check {

constexpr int kCheckFailed = 1;
constexpr int kBadInput = 2;

struct CheckOptions {
  std::vector<std::string> files;
  size_t jobs = 0;  // 0: the CPUs this process may use
  std::string out = "out/check";
  std::string junit;     // JUnit XML file, "" for none
  size_t seeds = 0;      // 0: each file's `seeds`
  std::string duration;  // "" : each file's (or its base scenario's)
  // KEY=VALUE overrides of every run, after its case's own sets (a counterfactual).
  std::vector<std::string> sets;
  log::Config log;          // debug-log options passed to every child run (its stderr is kept)
  double case_timeout = 0;  // wall seconds a run may take, 0: no limit
  bool validate = false;    // load and check the files, run nothing
  bool quiet = false;       // no table, only failures and the summary line
  bool strict = false;      // known misses fail the check
  bool exact = false;       // a known miss that holds fails the check
  // How the verdicts are printed: table (fitted to the terminal), md, csv or json; "":
  // table on a terminal, md otherwise. csv and json put only the verdicts on stdout.
  std::string format;
};

// The width a table printed on stdout may take: $COLUMNS, else the terminal's, else 0 (no
// limit: a file or a pipe gets whole lines).
size_t terminal_width();

int run_check(const CheckOptions& o);

}  // namespace latsim::check
