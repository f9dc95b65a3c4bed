#pragma once
// A user program the simulated kernel runs (a workload): what it adds to kernel::Workload
// is what it reports after the run, so that the platform names no concrete program.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/metrics.h"
#include "kernel_sim/kernel.h"
#include "workloads/plot_data.h"

namespace latsim::workloads {

// Programs are written against the simulated kernel's interface.
using namespace latsim::kernel;

// What a CPU did, by class and cause, read when a program asks (times in ms).
using CpuCounters = std::vector<std::pair<std::string, double>>;

// What the machine offers a program beyond the kernel: the run's length and
// performance counters no kernel interface exposes.
struct Attachment {
  double duration_s = 0;
  std::function<CpuCounters(int cpu)> cpu_counters;
};

class Program : public Workload {
 public:
  // Called once the machine and kernel exist, before the run.
  virtual void attach(const Attachment&) {}
  // Its entry under metrics.json's workloads.<name>; null: none.
  virtual nlohmann::json metrics(Kernel&, double /*sim_s*/) const { return nullptr; }
  // Data for the run's plots.
  virtual void collect(PlotData&) const {}
};

}  // namespace latsim::workloads
