#pragma once
// SVG plots a run leaves in its output directory (no external tool needed).
#include <string>
#include <utility>
#include <vector>
#include "platform/run.h"
#include "platform/scenario.h"

namespace latsim::cli {

// histogram-<task>.svg per measuring task: log-count latency histogram, min/avg/max marked;
// latencytest-<task>.svg per latencytest workload: its per-sample plot. As (name, SVG) pairs,
// which the run writes into its directory before committing it.
std::vector<std::pair<std::string, std::string>> latency_plots(const platform::Scenario& s,
                                                               const platform::RunResult& r);

}  // namespace latsim::cli
