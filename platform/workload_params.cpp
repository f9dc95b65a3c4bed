#include "platform/workload_params.h"
#include <cmath>

namespace latsim::platform {
namespace {
constexpr uint32_t kUdpIpEthFcsBytes = 8 + 20 + 14 + 4;  // headers and FCS around the payload
}

kernel::LatencytestParams latencytest_params(const WorkloadConfig& w) {
  kernel::LatencytestParams p;
  p.phase_s = w.phase_s;
  p.fragments = w.fragments;
  p.fragment_bytes = w.fragment_bytes;
  p.burner = w.burner;
  p.net_packets_per_s = w.packets_per_s;
  p.net_bytes = uint32_t(w.packet_bytes);
  p.file_mb = w.file_mb;
  return p;
}

net::PacketSourceParams nic_rx_source(const Scenario& s) {
  net::PacketSourceParams p;
  p.seed = s.seed;
  for (const auto& w : s.workload) {
    double start = 0, stop = s.duration_s;
    if (w.kind == "latencytest") {
      if (!kernel::Latencytest::phase_window(latencytest_params(w), "net_in", start, stop))
        continue;
    } else if (w.kind != "net_in") {
      continue;
    }
    p.kind = net::ArrivalKind::Constant;
    p.frames_per_s = w.packets_per_s;
    p.frame_bytes = {uint32_t(w.packet_bytes) + kUdpIpEthFcsBytes};
    p.start = sc_time(start, SC_SEC);
    p.max_frames = uint64_t(std::llround((stop - start) * w.packets_per_s));
    break;
  }
  return p;
}

}  // namespace latsim::platform
