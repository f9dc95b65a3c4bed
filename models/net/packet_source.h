#pragma once
// The far end of the NIC's cable: a deterministic arrival process of frames
// addressed to us. Constant rate or Poisson-like (exponential inter-arrival
// times), frame lengths fixed or drawn uniformly from a small set. Frames never
// overlap on the wire: one starts no earlier than the previous one's last bit
// plus the inter-frame gap (the link, not the process, is then the limit).
#include <cstdint>
#include <string_view>
#include <vector>
#include "common/random.h"
#include "models/common/time.h"

namespace latsim::net {

enum class ArrivalKind { Off, Constant, Poisson };

struct PacketSourceParams {
  ArrivalKind kind = ArrivalKind::Off;
  double frames_per_s = 1000.0;                // mean arrival rate
  std::vector<uint32_t> frame_bytes = {1518};  // destination address through FCS
  sc_time start = SC_ZERO_TIME;  // constant: first frame here; Poisson: first gap from here
  uint64_t max_frames = 0;       // 0 = unlimited
  uint64_t seed = 0;             // the scenario seed; the component name is mixed in
};

struct Arrival {
  sc_time first_bit;  // first bit of preamble at our PHY
  uint32_t frame_bytes = 0;
};

class PacketSource {
 public:
  PacketSource(const PacketSourceParams& p, double wire_mbit_s, std::string_view component);

  bool has_next() const;
  Arrival next();  // frames in arrival order; call only when has_next()
  uint64_t generated() const { return count_; }

 private:
  PacketSourceParams p_;
  double wire_mbit_s_;
  Rng rng_;
  uint64_t count_ = 0;
  sc_time nominal_;    // the process's own clock (Poisson: sum of gaps)
  sc_time line_free_;  // earliest first bit after the previous frame and its gap
};

}  // namespace latsim::net
