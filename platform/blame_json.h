#pragma once
// The blame ledgers (kernel_sim/trace/blame.h) as JSON: traces/blame.json for every kept
// trace and the longest section, and the longest one's summary in metrics.json. Names
// come from the machine (PCI masters) and the kernel (IRQ lines) at the end of the run.
#include <nlohmann/json.hpp>
#include "platform/metrics.h"

namespace latsim::platform {

// traces/blame.json: {"traces": [...one per traces/trace-NNN file...], "max": {...}}.
nlohmann::json blame_ledgers(const RunView& v);
// One trace's ledger: header and causes, largest first.
nlohmann::json trace_blame(const RunView& v, const kernel::LatencyTrace& t);
// metrics.json blame: for the longest section ("max") and the longest cyclictest wake-up
// ("cyclictest"), each cause kind's {us, share} and, under "by", each name's.
nlohmann::json blame_summary(const RunView& v);

}  // namespace latsim::platform
