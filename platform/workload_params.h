#pragma once
// Workload settings that both the kernel side and the board need: latencytest's
// parameters and phases, and the traffic the NIC's far end sends for net_in.
#include "kernel_sim/workloads/latencytest.h"
#include "models/net/packet_source.h"
#include "platform/scenario.h"

namespace latsim::platform {

kernel::LatencytestParams latencytest_params(const WorkloadConfig& w);
// Frames arriving at the RTL8139: a constant stream at the net_in rate, for the
// whole run (net_in) or during latencytest's net-in phase; off otherwise.
net::PacketSourceParams nic_rx_source(const Scenario& s);

}  // namespace latsim::platform
