// The PCI bus's declared knobs (platform.pci.*): each round-trips, and the bus runs on
// the values its table holds (clock, latency timer, data phase width).
#include "models/pci/pci_bus.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::pci {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::fresh_simulation;
using latsim::testing::with;

TEST(PciParams, KeysRoundTrip) { expect_keys_round_trip(pci_bus_keys()); }

TEST(PciParams, BusRunsOnTheDeclaredValues) {
  fresh_simulation();
  PciBus bus("bus");
  EXPECT_EQ(bus.clock(), period_of_mhz(33.33));
  EXPECT_EQ(bus.latency_timer().clocks(), 64);  // pcibios_set_master's value
  EXPECT_EQ(bus.bytes_per_clock(), 4);          // 32-bit AD bus
  const auto keys = pci_bus_keys();
  PciBusParams p = with(PciBusParams{}, keys, "mhz", "66.67");
  p = with(with(p, keys, "latency_timer", "32"), keys, "width_bits", "64");
  PciBus fast("fast", p);
  EXPECT_EQ(fast.clock(), period_of_mhz(66.67));
  EXPECT_EQ(fast.latency_timer().clocks(), 32);
  EXPECT_EQ(fast.bytes_per_clock(), 8);
  EXPECT_EQ(with(p, keys, "arbiter", "fixed").arbiter, ArbitrationPolicy::Fixed);
}

}  // namespace
}  // namespace latsim::pci
