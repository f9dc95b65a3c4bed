// The Permedia 2's declared knobs (platform.video.*): each round-trips, and the card
// runs on the values its table holds (FIFO depth, full-FIFO behaviour, drain times).
#include "models/video/permedia2.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::video {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::fresh_simulation;
using latsim::testing::with;

TEST(VideoParams, KeysRoundTrip) { expect_keys_round_trip(permedia2_keys()); }

TEST(VideoParams, CardRunsOnTheDeclaredValues) {
  fresh_simulation();
  Permedia2 card("card", Permedia2Params{});
  EXPECT_EQ(card.free_entries(SC_ZERO_TIME), 256u);  // glint_driver.c FIFOSize
  EXPECT_EQ(card.full_write(), FullFifoWrite::Pci20Hold);
  const auto keys = permedia2_keys();
  const auto p = with(with(Permedia2Params{}, keys, "fifo_entries", "64"), keys, "pci", "2.1");
  Permedia2 small("small", p);
  EXPECT_EQ(small.free_entries(SC_ZERO_TIME), 64u);
  EXPECT_EQ(small.full_write(), FullFifoWrite::Pci21Retry);
  EXPECT_EQ(with(p, keys, "copy_ns_per_pixel", "39.5").copy_per_pixel(), sc_time(39.5, SC_NS));
  EXPECT_EQ(Permedia2Params{}.card, "none");  // fitted only where a preset or scenario says
}

}  // namespace
}  // namespace latsim::video
