// Whole runs (one per process): 2.6's lowest-priority IO-APIC delivery spreads the
// device interrupts over both PIIIs (the APIC bus rotates arbitration IDs), and the
// kernel data the timer interrupt writes then moves between their caches (MESI).
#include "tests/platform/scenario_run.h"

namespace latsim::platform {
namespace {

nlohmann::json run(const std::vector<std::string>& sets, const std::string& tag) {
  return run_metrics("disk-dma-kernel-build.yaml", sets, tag);
}

int64_t interrupts(const nlohmann::json& m, int cpu) {
  return m["cpus"][cpu]["interrupts"].get<int64_t>();
}

TEST(IrqDelivery, FixedToCpu0PutsEveryTimerInterruptOnCpu0) {
  const auto m = run({"duration=500ms", "kernel.irq_delivery=cpu0"}, "cpu0");
  // Both take their local APIC tick; CPU0 also takes the PIT's 500 IRQ0s.
  EXPECT_GT(interrupts(m, 0) - interrupts(m, 1), 450);
}

TEST(IrqDelivery, LowestPriorityRotatesBetweenTheCpus) {
  const auto m = run({"duration=500ms", "kernel.irq_delivery=lowest_priority"}, "lowprio");
  const int64_t a = interrupts(m, 0), b = interrupts(m, 1);
  EXPECT_GT(a + b, 1400);             // 2 x 500 local ticks + 500 IRQ0 + the disk's
  EXPECT_LT(std::llabs(a - b), 150);  // IRQ0 alternates instead of all going to CPU0
}

TEST(IrqDelivery, LowestIdArbitrationKeepsThemOnCpu0) {
  const auto m = run({"duration=500ms", "kernel.irq_delivery=lowest_priority",
                      "platform.apic_bus.lowest_priority=lowest_id"},
                     "lowid");
  EXPECT_GT(interrupts(m, 0) - interrupts(m, 1), 450);
}

TEST(CacheCoherence, TimerGlobalsMoveBetweenCachesWhenIrq0Alternates) {
  const auto m = run(
      {"duration=500ms", "mechanisms.cache_coherence=true", "kernel.irq_delivery=lowest_priority"},
      "mesi");
  // Each IRQ0 on the other CPU than the last: jiffies, xtime (2), timer_tsc and
  // irq_desc (2) lines, six transactions, on ~250 ticks per CPU.
  for (int c = 0; c < 2; ++c) EXPECT_GT(m["cpus"][c]["coherence_misses"].get<uint64_t>(), 1000u);
}

TEST(CacheCoherence, OffMeansNoCoherenceTraffic) {
  const auto m = run({"duration=500ms", "mechanisms.cache_coherence=false"}, "nomesi");
  for (int c = 0; c < 2; ++c) EXPECT_EQ(m["cpus"][c]["coherence_misses"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace latsim::platform
