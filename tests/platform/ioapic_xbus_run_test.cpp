// Whole runs (one per process): the ISA cycles in 2.6.9's IO-APIC unmask and in the
// tick between mark_offset_tsc and do_timer, counted from the tracer's spans.
#include "tests/platform/scenario_run.h"

namespace latsim::platform {
namespace {

double median_us(const std::vector<std::string>& sets, const std::string& span,
                 const std::string& tag) {
  // The bus-master holdoff off: these count the ISA cycles of a tick the DMA leaves alone.
  std::vector<std::string> all{"duration=300ms",
                               "tracing.spans=mark_offset_tsc-do_timer,__modify_IO_APIC_irq",
                               "mechanisms.bus_master_holdoff=false"};
  all.insert(all.end(), sets.begin(), sets.end());
  const auto m = run_metrics("disk-dma-kernel-build.yaml", all, tag);
  return m["latency_tracer"]["spans"][span]["median_us"].get<double>();
}

TEST(IoApicXbus, UnmaskWaitsForEightByteCycles) {
  // Index write (4 byte cycles, drained before the read) then the data read (4); the
  // data write stays posted.
  const double us = median_us({"platform.ioapic.bus=xbus", "platform.isa.io_cycle_ns=1000"},
                              "__modify_IO_APIC_irq", "xbus");
  EXPECT_GE(us, 8.0);
  EXPECT_LT(us, 9.0);
}

TEST(IoApicXbus, PciWindowUnmaskTakesUnderAMicrosecond) {
  const double us = median_us({"platform.ioapic.bus=pci"}, "__modify_IO_APIC_irq", "pciwin");
  EXPECT_LT(us, 1.0);
}

// The tick's ISA cycles, each stretched to 10 us (the most the key takes): the rest of the tick
// (its code and misses, a few us) stays under one cycle, so the median counts them.
TEST(TimerAck, TickPaysSevenIsaCycles) {
  // outb_p + inb_p + inb in mark_offset_tsc (5) and the 8259A poll's outb + inb (2).
  const double us = median_us({"kernel.timer_ack=true", "platform.isa.io_cycle_ns=10000"},
                              "mark_offset_tsc-do_timer", "ack");
  EXPECT_GE(us, 7 * 10.0);
  EXPECT_LT(us, 8 * 10.0);
}

TEST(TimerAck, OffLeavesMarkOffsetTscsFive) {
  const double us = median_us({"kernel.timer_ack=false", "platform.isa.io_cycle_ns=10000"},
                              "mark_offset_tsc-do_timer", "noack");
  EXPECT_GE(us, 5 * 10.0);
  EXPECT_LT(us, 6 * 10.0);
}

}  // namespace
}  // namespace latsim::platform
