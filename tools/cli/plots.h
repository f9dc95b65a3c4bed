#pragma once
// SVG plots a run leaves in its output directory (no external tool needed).
#include "platform/run.h"
#include "platform/scenario.h"

namespace latsim::cli {

// histogram-<task>.svg per measuring task: log-count latency histogram, min/avg/max marked;
// latencytest-<task>.svg per latencytest workload: its per-sample plot.
void write_latency_plots(const platform::Scenario& s, const platform::RunResult& r);

}  // namespace latsim::cli
