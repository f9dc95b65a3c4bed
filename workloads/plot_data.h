#pragma once
// What programs hand to the run's plots (histogram SVGs, latencytest's sample plot).
#include <string>
#include <utility>
#include <vector>

#include "workloads/latencytest_samples.h"

namespace latsim::workloads {

// A measuring task's latency samples (cyclictest).
struct TaskHistogram {
  std::string task;
  std::vector<std::pair<long long, unsigned long long>> buckets;  // µs -> samples
  double min = 0, avg = 0, max = 0;
  unsigned long long samples = 0;
};

struct PlotData {
  std::vector<TaskHistogram> histograms;
  std::vector<LatencytestSamples> latencytest;  // per latencytest workload
};

}  // namespace latsim::workloads
