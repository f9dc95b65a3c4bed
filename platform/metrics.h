#pragma once
// metrics.json (schema_version 1): every component's counters at the end of a run, each
// published under its own name by one short function (platform/metrics.cpp); a program's
// own figures come from the program (workloads::Program::metrics).
#include <nlohmann/json.hpp>
#include <vector>
#include "kernel_sim/kernel.h"
#include "platform/machine.h"
#include "platform/scenario.h"

namespace latsim::platform {

// What the metrics read: the machine, the kernel, the programs, the simulated time.
struct RunView {
  Machine& m;
  kernel::Kernel& k;
  const std::vector<workloads::Program*>& programs;
  double sim_s = 0;
};

nlohmann::json collect_metrics(const Scenario& s, const RunView& v);

}  // namespace latsim::platform
