// The ES1371's declared knobs (platform.sound.*): each round-trips into the part it
// belongs to (AC link, sample-rate converter, DAC), and the link runs at the declared
// BIT_CLK: 48 kHz frames at 12.288 MHz.
#include "models/sound/es1371.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::sound {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::with;

TEST(SoundParams, KeysRoundTrip) { expect_keys_round_trip(es1371_keys()); }

TEST(SoundParams, PartsRunOnTheDeclaredValues) {
  const auto keys = es1371_keys();
  EXPECT_DOUBLE_EQ(Es1371Params{}.link.frame_rate_hz(), 48000.0);
  EXPECT_DOUBLE_EQ(with(Es1371Params{}, keys, "bit_clk_hz", "6144000").link.frame_rate_hz(),
                   24000.0);
  EXPECT_EQ(with(Es1371Params{}, keys, "src_busy_frames", "0").src.busy_frames, 0u);
  EXPECT_EQ(with(Es1371Params{}, keys, "dac_fetch_longwords", "4").dac.fetch_longwords, 4u);
  EXPECT_EQ(with(Es1371Params{}, keys, "burst_overhead_clocks", "2").dac.burst_overhead_clocks, 2u);
}

}  // namespace
}  // namespace latsim::sound
