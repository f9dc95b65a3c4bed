// Whole runs (one per process): level-triggered PCI IRQs (kernel.pci_irq_trigger) on
// the VP kernel mask the pin in mask_and_ack_level_ioapic_irq on every interrupt of
// the audio line, and the mask costs the IO-APIC's byte cycles on the X-bus.
#include "tests/platform/scenario_run.h"

namespace latsim::platform {
namespace {

const char* const kSpan = "mask_and_ack_level_ioapic_irq-generic_redirect_hardirq";

nlohmann::json run(const std::vector<std::string>& sets, const std::string& tag) {
  std::vector<std::string> all{"duration=1s", std::string("tracing.spans=") + kSpan};
  all.insert(all.end(), sets.begin(), sets.end());
  return run_metrics("latencytest-stress.yaml", all, tag);
}

TEST(IoApicLevel, EveryAudioInterruptIsMaskedInTheAck) {
  const auto m = run({"kernel.pci_irq_trigger=level"}, "level");
  const auto n = m["irqs"]["10"]["count"].get<uint64_t>();
  EXPECT_GT(n, 500u);  // 1 s of 1.45 ms periods after the 0.5 s warm-up's start
  EXPECT_EQ(m["latency_tracer"]["spans"][kSpan]["count"].get<uint64_t>(), n);
}

TEST(IoApicLevel, EdgeLinesAreNotMasked) {
  const auto m = run({"kernel.pci_irq_trigger=edge"}, "edge");
  EXPECT_GT(m["irqs"]["10"]["count"].get<uint64_t>(), 500u);
  EXPECT_EQ(m["latency_tracer"]["spans"][kSpan]["count"].get<uint64_t>(), 0u);
}

TEST(IoApicLevel, VanillaKernelAcksWithoutTouchingTheIoApic) {
  // 2.6.9 without the VP patch: mask_and_ack_level_ioapic_irq is empty (no IO-APIC
  // access even on the slow X-bus); the EOI comes in end_level_ioapic_irq, without
  // which Remote IRR would stay set and the line deliver only once.
  const auto m = run(
      {"kernel.pci_irq_trigger=level", "kernel.flavour=2.6.9", "kernel.voluntary_preemption=0",
       "kernel.kernel_preemption=0", "kernel.softirq_preemption=0", "kernel.hardirq_preemption=0",
       "platform.ioapic.bus=xbus", "platform.isa.io_cycle_ns=2000"},
      "vanilla");
  const auto n = m["irqs"]["10"]["count"].get<uint64_t>();
  EXPECT_GT(n, 500u);
  EXPECT_EQ(m["latency_tracer"]["spans"][kSpan]["count"].get<uint64_t>(), n);
  EXPECT_LT(m["latency_tracer"]["spans"][kSpan]["max_us"].get<double>(), 2.0);
}

TEST(IoApicLevel, MaskWaitsForSixteenByteCycles) {
  // __mask_IO_APIC_irq on the X-bus: index write (4 byte cycles) and data read (4),
  // the posted data write (4) drained by io_apic_sync's dummy read (4).
  const auto m = run(
      {"kernel.pci_irq_trigger=level", "platform.ioapic.bus=xbus", "platform.isa.io_cycle_ns=2000"},
      "xbus");
  const double us = m["latency_tracer"]["spans"][kSpan]["median_us"].get<double>();
  EXPECT_GE(us, 16 * 2.0);
  EXPECT_LT(us, 16 * 2.0 + 1.5);
}

}  // namespace
}  // namespace latsim::platform
