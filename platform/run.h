#pragma once
// One run of one scenario in this process (SystemC elaborates once per process).
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <vector>
#include "platform/latencytest_samples.h"
#include "platform/scenario.h"

namespace latsim::platform {

struct RunOptions {
  std::string out_dir;  // final output directory
  bool quiet = false;
  bool progress = true;  // progress line on stderr when it is a terminal
};

// A measuring task's latency samples (cyclictest), for plots.
struct TaskHistogram {
  std::string task;
  std::vector<std::pair<long long, unsigned long long>> buckets;  // µs -> samples
  double min = 0, avg = 0, max = 0;
  unsigned long long samples = 0;
};

struct RunResult {
  nlohmann::json metrics;   // metrics.json
  nlohmann::json run_info;  // run-info.json
  std::string out_dir;
  std::vector<TaskHistogram> histograms;
  std::vector<LatencytestSamples> latencytest;          // per latencytest workload, for its plot
  sc_core::sc_time max_section_start, max_section_end;  // the latency tracer's longest
};

// Elaborate the machine and kernel, simulate, and write the outputs atomically
// (into a sibling temporary directory renamed into place at the end).
RunResult run_scenario(const Scenario& s, const RunOptions& o);

}  // namespace latsim::platform
