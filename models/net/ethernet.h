#pragma once
// IEEE 802.3 framing as the wire sees it: every frame is preceded by 7 bytes of
// preamble and the start-of-frame delimiter and followed by a 12-byte-time
// inter-frame gap; frame lengths count destination address through FCS.
#include <cstdint>
#include "models/common/time.h"

namespace latsim::net {

constexpr uint32_t kPreambleBytes = 8;  // 7 preamble + SFD
constexpr uint32_t kIfgBytes = 12;      // 96 bit times
constexpr uint32_t kFcsBytes = 4;
constexpr uint32_t kMinFrameBytes = 64;                            // with FCS
constexpr uint32_t kMaxFrameBytes = 1518;                          // with FCS, untagged
constexpr uint32_t kMinPayloadBytes = kMinFrameBytes - kFcsBytes;  // ETH_ZLEN, what drivers pad to

// Time for `bytes` to cross a wire of `mbit_s` Mbit/s, rounded to the picosecond.
inline sc_time wire_time(uint64_t bytes, double mbit_s) {
  return sc_time(std::round(double(bytes) * 8e6 / mbit_s), SC_PS);
}

// First bit of preamble to last bit of FCS.
inline sc_time frame_on_wire(uint32_t frame_bytes, double mbit_s) {
  return wire_time(kPreambleBytes + frame_bytes, mbit_s);
}

}  // namespace latsim::net
