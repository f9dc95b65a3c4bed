#include "tools/check/census_cli.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "tools/check/trace_census.h"
#include "tools/check/vp_trace.h"
#include "tools/option_range.h"

namespace latsim::check {

CensusCommand::CensusCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "traces",
      "Sort a run's latency traces into kinds: how many share a section (the function it\n"
      "started in .. the one it ended in) and how many spent their longest step at the same\n"
      "place, with their trace numbers, as one sorts a tracer's output by hand");
  cmd_->add_option("dir", dir_, "A run's output directory, or its traces/ directory")->required();
  cmd_->add_option("--min-us", min_us_,
                   "Count only traces of at least N us (a higher threshold than the run's)")
      ->check(cli::in_range(0, 1e8, "us"));
  cmd_->add_option("--top", top_, "Rows per table (default 15)")->check(cli::in_range(1, 10000));
  cmd_->add_option("--examples", examples_, "Trace numbers listed per row (default 8)")
      ->check(cli::in_range(0, 10000));
}

bool CensusCommand::selected() const { return cmd_->parsed(); }

int CensusCommand::run() const {
  namespace fs = std::filesystem;
  fs::path dir = dir_;
  std::error_code ec;
  if (fs::is_directory(dir / "traces", ec)) dir /= "traces";
  if (!fs::is_directory(dir, ec)) {
    std::cerr << "latsim traces: error: " << dir_
              << ": no such directory (give a run's output directory or its traces/)\n";
    return 2;
  }
  // `latsim check --out` keeps one run per seed under each case: name them.
  std::vector<std::string> runs;
  if (dir.filename() != "traces")
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (fs::is_directory(e.path() / "traces", ec)) runs.push_back(e.path().filename().string());
  if (!runs.empty()) {
    std::sort(runs.begin(), runs.end());
    std::cerr << "latsim traces: error: " << dir_ << " holds runs, not traces: give one of";
    for (const auto& r : runs) std::cerr << " " << r;
    std::cerr << "\n";
    return 2;
  }
  try {
    const auto traces = read_trace_dir(dir);
    std::cout << format_census(take_census(traces, min_us_), dir.string(), top_, examples_);
  } catch (const TraceFormatError& e) {
    std::cerr << "latsim traces: error: " << dir.string() << "/" << e.what() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace latsim::check
