// The PCI-ISA bridge's declared knobs (platform.isa.*): each round-trips, and the
// bridge times its ISA cycles by the value its table holds.
#include "models/isa/pci_isa_bridge.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::isa {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::fresh_simulation;
using latsim::testing::with;

TEST(IsaParams, KeysRoundTrip) { expect_keys_round_trip(pci_isa_bridge_keys()); }

TEST(IsaParams, BridgeRunsOnTheDeclaredValues) {
  fresh_simulation();
  EXPECT_EQ(PciIsaBridge("isa").io_cycle(), sc_time(1700, SC_NS));  // fitted to O5
  const auto p = with(PciIsaBridgeParams{}, pci_isa_bridge_keys(), "io_cycle_ns", "750");
  EXPECT_EQ(PciIsaBridge("isa750", p).io_cycle(), sc_time(750, SC_NS));
  EXPECT_FALSE(PciIsaBridgeParams{}.delayed_transactions);
}

}  // namespace
}  // namespace latsim::isa
