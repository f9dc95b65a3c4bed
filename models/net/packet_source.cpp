#include "models/net/packet_source.h"
#include <algorithm>
#include <cmath>
#include "models/net/ethernet.h"

namespace latsim::net {

PacketSource::PacketSource(const PacketSourceParams& p, double wire_mbit_s,
                           std::string_view component)
    : p_(p), wire_mbit_s_(wire_mbit_s), rng_(p.seed, component), nominal_(p.start) {
  if (p_.frame_bytes.empty()) p_.frame_bytes = {kMaxFrameBytes};
}

bool PacketSource::has_next() const {
  return p_.kind != ArrivalKind::Off && p_.frames_per_s > 0.0 &&
         (p_.max_frames == 0 || count_ < p_.max_frames);
}

Arrival PacketSource::next() {
  const double mean_ps = 1e12 / p_.frames_per_s;
  if (p_.kind == ArrivalKind::Constant) {
    // From the frame number, not by summing gaps, so rounding never accumulates.
    nominal_ = p_.start + ps(uint64_t(std::llround(double(count_) * mean_ps)));
  } else {
    nominal_ += ps(uint64_t(std::llround(rng_.exponential(mean_ps))));
  }
  Arrival a;
  a.frame_bytes = p_.frame_bytes.size() == 1 ? p_.frame_bytes[0]
                                             : p_.frame_bytes[rng_.below(p_.frame_bytes.size())];
  a.first_bit = std::max(nominal_, line_free_);
  line_free_ =
      a.first_bit + frame_on_wire(a.frame_bytes, wire_mbit_s_) + wire_time(kIfgBytes, wire_mbit_s_);
  count_++;
  return a;
}

}  // namespace latsim::net
