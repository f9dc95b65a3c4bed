#include "platform/nic_far_end.h"
#include <cmath>

namespace latsim::platform {
namespace {
constexpr uint32_t kUdpIpEthFcsBytes = 8 + 20 + 14 + 4;  // headers and FCS around the payload
}

net::PacketSourceParams nic_rx_source(const Scenario& s) {
  net::PacketSourceParams p;
  p.seed = s.seed;
  for (const auto& w : s.workload) {
    const workloads::Kind* kind = workloads::find_kind(w.kind);
    if (!kind || !kind->arrivals || !w.enabled) continue;
    const auto a = kind->arrivals(w, s.duration_s);
    if (!a) continue;
    p.kind = net::ArrivalKind::Constant;
    p.frames_per_s = a->packets_per_s;
    p.frame_bytes = {a->payload_bytes + kUdpIpEthFcsBytes};
    p.start = sc_time(a->start_s, SC_SEC);
    p.max_frames = uint64_t(std::llround((a->stop_s - a->start_s) * a->packets_per_s));
    break;
  }
  return p;
}

}  // namespace latsim::platform
