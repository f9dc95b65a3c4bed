// Whole runs (one per process): the reference board's two UHCI controllers share the
// audio's IRQ 10 (platform.usb), so every audio interrupt runs usb_hcd_irq -> uhci_irq
// twice before snd_audiopci_interrupt, each reading USBSTS through the PCI bus, as the
// author's -Q5 trace of this machine shows (LKML 2004-09-01).
#include "tests/platform/scenario_run.h"

namespace latsim::platform {
namespace {

const char* const kSpan = "usb_hcd_irq-snd_audiopci_interrupt";

nlohmann::json run(const std::vector<std::string>& sets, const std::string& tag) {
  std::vector<std::string> all{"duration=1s", std::string("tracing.spans=") + kSpan};
  all.insert(all.end(), sets.begin(), sets.end());
  return run_metrics("latencytest-stress.yaml", all, tag);
}

TEST(UhciSharedIrq, EveryAudioInterruptReadsBothControllersStatus) {
  const auto m = run({}, "shared");
  const auto& irq10 = m["irqs"]["10"];
  EXPECT_EQ(irq10["name"], "uhci_hcd, uhci_hcd, Ensoniq AudioPCI");  // /proc/interrupts
  const auto n = irq10["count"].get<uint64_t>();
  EXPECT_GT(n, 500u);
  ASSERT_EQ(m["drivers"]["uhci_hcd"].size(), 2u);
  for (const auto& hc : m["drivers"]["uhci_hcd"]) {
    EXPECT_EQ(hc["handler_calls"].get<uint64_t>(), n);
    EXPECT_EQ(hc["not_mine"].get<uint64_t>(), n);      // suspended: USBSTS reads HCHalted only
    EXPECT_EQ(hc["status_reads"].get<uint64_t>(), n);  // one inw per call, at the device
  }
  // Every interrupt passes both handlers on its way to the sound card's.
  EXPECT_EQ(m["latency_tracer"]["spans"][kSpan]["count"].get<uint64_t>(), n);
}

TEST(UhciSharedIrq, WithoutTheControllersTheAudioLineIsItsOwn) {
  const auto m = run({"platform.usb.uhci=0"}, "none");
  EXPECT_EQ(m["irqs"]["10"]["name"], "Ensoniq AudioPCI");
  EXPECT_FALSE(m["drivers"].contains("uhci_hcd"));
  EXPECT_EQ(m["latency_tracer"]["spans"][kSpan]["count"].get<uint64_t>(), 0u);
}

TEST(UhciSharedIrq, AnotherLineIsNeverEntered) {
  // Steered elsewhere, the controllers' own line stays quiet (nothing plugged in).
  const auto m = run({"platform.usb.irq=5"}, "own-line");
  EXPECT_EQ(m["irqs"]["10"]["name"], "Ensoniq AudioPCI");
  EXPECT_EQ(m["irqs"]["5"]["name"], "uhci_hcd, uhci_hcd");
  EXPECT_EQ(m["irqs"]["5"]["count"].get<uint64_t>(), 0u);
  for (const auto& hc : m["drivers"]["uhci_hcd"])
    EXPECT_EQ(hc["handler_calls"].get<uint64_t>(), 0u);
}

TEST(UhciSharedIrq, TwoFourUsbUhciKeepsTheControllersRunning) {
  // 2.4.20's usb-uhci.c never suspends: USBSTS reads 0, "shared interrupt, not mine".
  const auto m = run({"kernel.flavour=2.4.20-lowlatency", "kernel.version=2.4.20-lowlatency",
                      "kernel.voluntary_preemption=0", "kernel.kernel_preemption=0",
                      "kernel.softirq_preemption=0", "kernel.hardirq_preemption=0"},
                     "24");
  const std::string name = m["irqs"]["10"]["name"];
  EXPECT_EQ(name.rfind("usb-uhci, usb-uhci, ", 0), 0u) << name;
  for (const auto& hc : m["drivers"]["uhci_hcd"])
    EXPECT_EQ(hc["not_mine"].get<uint64_t>(), m["irqs"]["10"]["count"].get<uint64_t>());
}

}  // namespace
}  // namespace latsim::platform
