#pragma once
// The latencytest plot, as the 2004 tool drew it: per sample, the scheduling
// latency (write-to-write period) and the CPU loop time, against the fragment
// latency and buffer latency lines, over the run with its stress phases marked.
// Standalone SVG written by our own code; deterministic.
#include <string>
#include "workloads/latencytest_samples.h"

namespace latsim::cli {

std::string latencytest_svg(const workloads::LatencytestSamples& s, const std::string& title,
                            const std::string& subtitle);

}  // namespace latsim::cli
