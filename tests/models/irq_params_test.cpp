// The interrupt routing's declared knobs (platform.io_apic, platform.ioapic.*,
// platform.apic_bus.*): each round-trips, and the APIC bus arbitrates lowest-priority
// messages as its declared default says (P6: equal TPRs take turns).
#include "models/cpu/local_apic.h"
#include "models/irq/apic_bus.h"
#include "models/irq/ioapic.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace latsim::irq {
namespace {

using latsim::testing::expect_keys_round_trip;
using latsim::testing::fresh_simulation;
using latsim::testing::with;

TEST(IrqParams, IoApicKeysRoundTrip) {
  expect_keys_round_trip(ioapic_fitted_keys());
  expect_keys_round_trip(ioapic_keys());
}
TEST(IrqParams, ApicBusKeysRoundTrip) { expect_keys_round_trip(apic_bus_keys()); }

// Winners of four lowest-priority messages to two CPUs with equal TPRs.
std::vector<unsigned> winners(const ApicBusParams& p, const std::string& rig) {
  cpu::LocalApic cpu0{(rig + "_cpu0").c_str(), 0}, cpu1{(rig + "_cpu1").c_str(), 1};
  ApicBusHub hub(p);
  hub.attach(0, cpu0);
  hub.attach(1, cpu1);
  cpu0.write(cpu::LocalApic::APIC_LDR, 0x01000000);
  cpu1.write(cpu::LocalApic::APIC_LDR, 0x02000000);
  std::vector<unsigned> w;
  for (int i = 0; i < 4; ++i) {
    hub.deliver_logical(0x03, 0x79, DeliveryMode::LowestPriority);
    w.push_back(cpu0.irr(0x79) ? 0 : 1);
    for (cpu::LocalApic* c : {&cpu0, &cpu1})
      if (c->irr(0x79)) c->ack(), c->eoi();
  }
  return w;
}

TEST(IrqParams, ApicBusRunsOnTheDeclaredValues) {
  fresh_simulation();
  EXPECT_EQ(winners(ApicBusParams{}, "rotate"), (std::vector<unsigned>{0, 1, 0, 1}));
  const auto lowest_id = with(ApicBusParams{}, apic_bus_keys(), "lowest_priority", "lowest_id");
  EXPECT_EQ(winners(lowest_id, "lowest_id"), (std::vector<unsigned>{0, 0, 0, 0}));
  EXPECT_TRUE(IoApicParams{}.fitted);
  EXPECT_EQ(IoApicParams{}.bus, "xbus");  // chosen by O6
}

}  // namespace
}  // namespace latsim::irq
