#pragma once
// What a run leaves behind: metrics.json (schema_version 1), run-info.json,
// traces/ in the VP tracer's format, cyclictest.txt, dmesg.txt and the resolved
// scenario, written to a temporary directory and renamed into place.
#include "kernel_sim/kernel.h"
#include "platform/machine.h"
#include "platform/run.h"
#include "platform/scenario.h"

namespace latsim::platform {

nlohmann::json collect_metrics(const Scenario& s, Machine& m, kernel::Kernel& k);
nlohmann::json collect_run_info(const Scenario& s, double wall_seconds);
void write_outputs(const Scenario& s, Machine& m, kernel::Kernel& k, const RunResult& r);

}  // namespace latsim::platform
