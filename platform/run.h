#pragma once
// One run of one scenario in this process (SystemC elaborates once per process).
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <utility>
#include <vector>
#include "platform/scenario.h"
#include "workloads/plot_data.h"
#include "workloads/program.h"

namespace latsim::platform {

struct RunResult;

// Files a caller adds to the run's directory (name, content), before it is committed.
using ExtraFiles =
    std::function<std::vector<std::pair<std::string, std::string>>(const RunResult&)>;

struct RunOptions {
  std::string out_dir;  // final output directory; empty: write nothing
  bool quiet = false;
  bool progress = true;  // progress line on stderr when it is a terminal
  ExtraFiles extra_files;
};

struct RunResult {
  nlohmann::json metrics;   // metrics.json
  nlohmann::json run_info;  // run-info.json
  std::string out_dir;
  workloads::PlotData plots;                            // what the programs hand to the run's plots
  sc_core::sc_time max_section_start, max_section_end;  // the latency tracer's longest
  nlohmann::json blame;  // traces/blame.json while tracing (platform/blame_json.h), else null
  std::vector<std::string> files;         // written into out_dir (relative, sorted)
  std::vector<std::string> files_beside;  // streamed outside it (a timeline, a VCD)
};

// The scenario's kernel parameters plus what the kernel finds on this machine.
kernel::KernelParams kernel_params(const Scenario& s);
// The scenario's programs, made by their kinds and handed to the kernel.
std::vector<workloads::Program*> add_workloads(const Scenario& s, kernel::Kernel& k);

// Elaborate the machine and kernel, simulate, and write the outputs atomically: the output
// transaction (output_transaction.h) begins before the simulation, so an unwritable output
// directory fails at once, and commits after every file is written.
RunResult run_scenario(const Scenario& s, const RunOptions& o);

}  // namespace latsim::platform
