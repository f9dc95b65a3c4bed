// The chipset's declared knobs (platform.host_bridge.*, platform.smi.*): each
// round-trips, holdoff policies are spelled as the scenario spells them, and the SMI
// source asserts SMI# at the declared period for the declared time.
#include "models/chipset/host_bridge.h"
#include "models/chipset/smi_source.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>
#include <vector>

namespace latsim::chipset {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::fresh_simulation;
using latsim::testing::key_at;
using latsim::testing::with;

TEST(ChipsetParams, HostBridgeKeysRoundTrip) { expect_keys_round_trip(host_bridge_keys()); }
TEST(ChipsetParams, SmiKeysRoundTrip) { expect_keys_round_trip(smi_keys()); }

TEST(ChipsetParams, HoldoffPoliciesByName) {
  const auto keys = host_bridge_keys();
  EXPECT_EQ(key_at(keys, "cpu_holdoff").get(HostBridgeParams{}), params::Value("sg_entry"));
  EXPECT_EQ(with(HostBridgeParams{}, keys, "cpu_holdoff", "req_asserted").holdoff,
            CpuHoldoff::ReqAsserted);
  EXPECT_EQ(with(HostBridgeParams{}, keys, "cpu_holdoff", "none").holdoff, CpuHoldoff::None);
}

TEST(ChipsetParams, SmiSourceRunsOnTheDeclaredValues) {
  fresh_simulation();
  EXPECT_EQ(SmiParams{}.period(), SC_ZERO_TIME);  // no SMIs unless a scenario sets them
  const auto keys = smi_keys();
  SmiParams p = with(with(SmiParams{}, keys, "period_us", "1000"), keys, "duration_us", "50");
  p.first = sc_time(300, SC_US);
  SmiSource smi("smi", p);
  std::vector<sc_time> at;
  smi.connect([&](sc_time handler) {
    EXPECT_EQ(handler, sc_time(50, SC_US));
    at.push_back(sc_core::sc_time_stamp());
  });
  sc_core::sc_start(sc_time(2500, SC_US));
  EXPECT_EQ(
      at, (std::vector<sc_time>{sc_time(300, SC_US), sc_time(1300, SC_US), sc_time(2300, SC_US)}));
}

}  // namespace
}  // namespace latsim::chipset
