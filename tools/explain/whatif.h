#pragma once
// Counterfactual reruns: the run's own resolved scenario and seed again, with the
// mechanism behind one cause switched off, one child process per rerun. Each says what
// the longest section and the explained section (matched by its start and end sites)
// became, beside the time the ledger blamed on the cause.
#include <filesystem>
#include <string>
#include <vector>
#include "tools/explain/ledger.h"

namespace latsim::explain {

struct WhatIf {
  std::string cause;  // the row's label
  uint64_t blamed_ps = 0;
  std::string change;  // "bus-master holdoff off"
  std::string set;     // the --set it takes: platform.host_bridge.cpu_holdoff=none
  // Filled by the rerun:
  bool ran = false;
  std::string error;       // why the rerun failed
  double max_us = -1;      // its longest section (-1: none)
  double same_us = -1;     // the section with the same start and end sites (-1: not seen)
  bool disagrees = false;  // blame and the rerun differ by more than a quarter
};

// The switches for the top `n` rows that have one (the same switch is run once).
std::vector<WhatIf> plan_whatifs(const Explained& e, size_t n);
// Runs them `jobs` at a time in a temporary directory; fills in the results.
void run_whatifs(const std::filesystem::path& run_dir, const Explained& e, std::vector<WhatIf>& w,
                 size_t jobs, bool progress);

}  // namespace latsim::explain
