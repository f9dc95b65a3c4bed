#pragma once
// What a latencytest CPU loop's CPU did besides the loop: its time by class, in
// interrupts by source, stalled by cause, and event counts, read at the loop's start
// and end (Latencytest::set_loop_probe). metrics.json keeps each phase's longest
// loop as phases.<phase>.max_cpu_loop.
#include "workloads/program.h"

namespace latsim::kernel {
class Kernel;
}

namespace latsim::platform {

class Machine;
// CPU `cpu`'s counters now, in a fixed order (times in ms).
workloads::CpuCounters cpu_loop_counters(const Machine& m, kernel::Kernel& k, int cpu);

}  // namespace latsim::platform
