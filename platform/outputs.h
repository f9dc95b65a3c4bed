#pragma once
// What a run leaves behind: metrics.json (schema_version 1), run-info.json,
// traces/ in the VP tracer's format, cyclictest.txt, dmesg.txt and the resolved
// scenario, written into the run's output transaction (output_transaction.h).
#include "common/version.h"
#include "kernel_sim/kernel.h"
#include "platform/machine.h"
#include "platform/output_transaction.h"
#include "platform/run.h"
#include "platform/scenario.h"

namespace latsim::platform {

// run-info.json versions.latsim: tools that read a run (explain) check it is theirs.
inline constexpr const char* kLatsimVersion = LATSIM_VERSION;

nlohmann::json collect_run_info(const Scenario& s, double wall_seconds);
void write_outputs(const Scenario& s, kernel::Kernel& k,
                   const std::vector<workloads::Program*>& programs, const RunResult& r,
                   OutputTransaction& tx);
// Before a run: the output directory may be written (not the working directory or a
// parent, not a non-latsim directory), and a streamed file (timeline, VCD) named inside it
// (a bare file name, or a path into it) takes no name the run writes itself. Throws
// std::runtime_error.
void check_output_paths(const Scenario& s, const std::string& out_dir);

}  // namespace latsim::platform
