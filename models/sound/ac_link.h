#pragma once
// The AC'97 link between the ES1371 and its codec: BIT_CLK from the codec, 256
// bit clocks per frame (a 16-bit tag slot and twelve 20-bit slots), so 48 kHz
// frames at 12.288 MHz. The chip's sample-rate converter and DACs step once per
// frame. The link runs from reset, so frame k starts at k frame times.
#include <cstdint>
#include "models/common/time.h"

namespace latsim::sound {

struct AcLinkClock {
  uint64_t bit_clk_hz = 12288000;  // AC'97 2.x BIT_CLK
  uint32_t bits_per_frame = 256;

  double frame_rate_hz() const { return double(bit_clk_hz) / bits_per_frame; }
  sc_time bits(uint64_t n) const {
    return ps(uint64_t((unsigned __int128)n * kPsPerS / bit_clk_hz));
  }
  // Start of frame k, rounded down to the picosecond.
  sc_time boundary(uint64_t k) const { return bits(k * bits_per_frame); }
  // Index of the first frame boundary strictly after t.
  uint64_t next_after(sc_time t) const {
    uint64_t k = uint64_t((unsigned __int128)to_ps(t) * bit_clk_hz / (kPsPerS * bits_per_frame));
    while (boundary(k) <= t) ++k;
    while (k > 0 && boundary(k - 1) > t) --k;
    return k;
  }
  // Index of the frame that contains t.
  uint64_t frame_at(sc_time t) const { return next_after(t) - 1; }

 private:
  static constexpr uint64_t kPsPerS = 1000000000000ull;
};

}  // namespace latsim::sound
