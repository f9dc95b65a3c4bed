// Whole runs on seed 001's board (athlon-1000-irongate): no IO-APIC, so every IRQ
// comes through the 8259A pair (mask_and_ack_8259A, end_8259A_irq) and the tick is
// the PIT's IRQ0 at HZ; the IDE completion arrives through the slave's cascade.
#include "tests/platform/scenario_run.h"

namespace latsim::platform {
namespace {

nlohmann::json run(const std::vector<std::string>& sets, const std::string& tag) {
  return run_metrics("preempt-2.4-dbench.yaml", sets, tag);
}

TEST(AthlonIrongatePreset, TicksAndDiskIrqsThroughThe8259A) {
  const auto m = run({"duration=3s"}, "athlon");
  ASSERT_EQ(m["cpus"].size(), 1u);
  // HZ=100 from the PIT: 300 ticks in 3 s (the first one period after setup_pit).
  const auto ticks = m["irqs"]["0"]["count"].get<uint64_t>();
  EXPECT_GE(ticks, 299u);
  EXPECT_LE(ticks, 300u);
  EXPECT_EQ(m["ticks"]["handled"].get<uint64_t>(), ticks);
  EXPECT_EQ(m["ticks"]["lost"].get<uint64_t>(), 0u);
  EXPECT_GT(m["irqs"]["9"]["count"].get<uint64_t>(), 0u);   // the AIC-7880: slave IR1, via IR2
  EXPECT_GT(m["irqs"]["10"]["count"].get<uint64_t>(), 0u);  // the sound card on the slave
}

// The same board with an IO-APIC takes its tick from the local APIC timer instead:
// the 2.4 UP PIT path is what the preset's io_apic=false selects, not the flavour.
TEST(AthlonIrongatePreset, WithAnIoApicTheLocalTimerTicks) {
  const auto m = run({"duration=1s", "platform.io_apic=true"}, "athlon-ioapic");
  EXPECT_GT(m["cpus"][0]["interrupts"].get<uint64_t>(), 150u);  // LOC at HZ plus IRQ0
}

}  // namespace
}  // namespace latsim::platform
