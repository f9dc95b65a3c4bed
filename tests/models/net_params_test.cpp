// The RTL8139's declared knobs (platform.nic.*): each round-trips, and the card reports
// the wire rate its table holds (MSR SPEED_10 below 100 Mbit/s).
#include "models/net/rtl8139.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::net {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::fresh_simulation;
using latsim::testing::with;

TEST(NetParams, KeysRoundTrip) { expect_keys_round_trip(rtl8139_keys()); }

TEST(NetParams, CardRunsOnTheDeclaredValues) {
  fresh_simulation();
  pci::PciBus pci{"pci"};
  chipset::Dram dram{1ull << 20};
  Rtl8139 fast("fast", Rtl8139Params{}, dram, pci);
  EXPECT_EQ(fast.read(Rtl8139::MSR, 1), 0x00u);  // 100BASE-TX
  const auto p = with(Rtl8139Params{}, rtl8139_keys(), "wire_mbit_s", "10");
  Rtl8139 slow("slow", p, dram, pci);
  EXPECT_EQ(slow.read(Rtl8139::MSR, 1), 0x08u);  // SPEED_10
  EXPECT_EQ(Rtl8139Params{}.irq, 11);
}

}  // namespace
}  // namespace latsim::net
