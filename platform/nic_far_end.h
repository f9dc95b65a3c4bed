#pragma once
// The far end of the RTL8139's cable: the frames a scenario's workloads bring from
// outside the machine (a net_in load, latencytest's net-in phase).
#include "models/net/packet_source.h"
#include "platform/scenario.h"

namespace latsim::platform {

// A constant stream at the first such workload's rate over its window; off otherwise.
net::PacketSourceParams nic_rx_source(const Scenario& s);

}  // namespace latsim::platform
