// P6 local APIC: the HZ=1000 periodic timer as Linux 2.6.9 sets it up
// (setup_APIC_timer: divide by 16, TMICT = bus clocks per tick / 16), priority
// classes, TPR, EOI order, NMI/ExtINT.
#include "models/cpu/local_apic.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>
#include <utility>
#include <vector>

namespace latsim::cpu {
namespace {

using latsim::testing::fresh_simulation;
using sc_core::sc_start;
using LA = LocalApic;

constexpr unsigned kLocalTimerVector = 0xEF;  // LOCAL_TIMER_VECTOR

// A core that takes every deliverable interrupt at once and EOIs it.
struct FakeCore : sc_core::sc_module {
  LocalApic& apic;
  std::vector<std::pair<uint64_t, unsigned>> taken;  // (ps, vector)
  SC_HAS_PROCESS(FakeCore);
  FakeCore(sc_core::sc_module_name n, LocalApic& a) : sc_module(n), apic(a) { SC_THREAD(run); }
  void run() {
    for (;;) {
      sc_core::wait(apic.interrupt_event());
      while (apic.has_deliverable()) {
        taken.emplace_back(to_ps(sc_core::sc_time_stamp()), apic.ack());
        apic.eoi();
      }
    }
  }
};

struct EoiRecorder : irq::EoiListener {
  std::vector<unsigned> vectors;
  void eoi(unsigned v) override { vectors.push_back(v); }
};

void enable(LocalApic& a) { a.write(LA::APIC_SPIV, 0x100 | 0xFF); }

void start_hz_timer(LocalApic& a, uint32_t count) {
  a.write(LA::APIC_TDCR, 0x3);  // APIC_TDR_DIV_16
  a.write(LA::APIC_LVTT, LA::kLvtPeriodic | kLocalTimerVector);
  a.write(LA::APIC_TMICT, count);
}

TEST(LocalApic, PeriodicTimerHz1000ExactTimes) {
  fresh_simulation();
  LocalApic apic("apic", 0, 100.0);  // 100 MHz: 16 * 6250 clocks = exactly 1 ms
  FakeCore core("core", apic);
  enable(apic);
  start_hz_timer(apic, 6250);
  sc_start(sc_time(500, SC_US));
  EXPECT_EQ(apic.read(LA::APIC_TMCCT), 6250u - 3125u);  // 3125 ticks of 160 ns
  sc_start(sc_time(1000, SC_MS) + ps(1) - sc_core::sc_time_stamp());
  ASSERT_EQ(core.taken.size(), 1000u);
  EXPECT_EQ(core.taken[0], std::make_pair(uint64_t(1000000000), kLocalTimerVector));
  EXPECT_EQ(core.taken[999], std::make_pair(uint64_t(1000000000000), kLocalTimerVector));
  EXPECT_EQ(apic.timer_interrupts(), 1000u);
}

TEST(LocalApic, PeriodicTimerAt133MHzBusClock) {
  fresh_simulation();
  LocalApic apic("apic", 0);  // 133.33 MHz: 133330000 / 16 / 1000 = 8333.125, Linux uses 8333
  FakeCore core("core", apic);
  enable(apic);
  start_hz_timer(apic, 8333);
  sc_start(sc_time(1, SC_SEC));
  // Expiry n at round(n * 8333 * 16 * 1e12 / 133330000) ps, rounded once per expiry.
  ASSERT_EQ(core.taken.size(), 1000u);
  EXPECT_EQ(core.taken[0].first, 999985000u);
  EXPECT_EQ(core.taken[999].first, 999984999625u);
}

TEST(LocalApic, TimerMaskOneShotAndDivideEncoding) {
  fresh_simulation();
  LocalApic apic("apic", 0, 100.0);
  FakeCore core("core", apic);
  enable(apic);
  // Intel encoding of TDCR bits 0, 1, 3.
  const std::pair<uint32_t, unsigned> codes[] = {{0x0, 2},  {0x1, 4},  {0x2, 8},   {0x3, 16},
                                                 {0x8, 32}, {0x9, 64}, {0xA, 128}, {0xB, 1}};
  for (auto [code, div] : codes) {
    apic.write(LA::APIC_TDCR, code);
    apic.write(LA::APIC_TMICT, 1000000);
    sc_start(sc_time(1280, SC_NS));  // 128 bus clocks
    EXPECT_EQ(apic.read(LA::APIC_TMCCT), 1000000u - 128u / div) << "TDCR " << code;
  }
  // One-shot, masked: counts to zero, delivers nothing.
  apic.write(LA::APIC_TDCR, 0xB);
  apic.write(LA::APIC_LVTT, LA::kLvtMasked | kLocalTimerVector);
  apic.write(LA::APIC_TMICT, 100);
  sc_start(sc_time(2, SC_US));
  EXPECT_EQ(apic.read(LA::APIC_TMCCT), 0u);
  EXPECT_TRUE(core.taken.empty());
  // One-shot, unmasked: exactly one interrupt after 100 clocks.
  apic.write(LA::APIC_LVTT, kLocalTimerVector);
  apic.write(LA::APIC_TMICT, 100);
  const uint64_t t0 = to_ps(sc_core::sc_time_stamp());
  sc_start(sc_time(5, SC_US));
  ASSERT_EQ(core.taken.size(), 1u);
  EXPECT_EQ(core.taken[0].first, t0 + 1000000u);
}

TEST(LocalApic, PriorityClassesAndTpr) {
  fresh_simulation();
  LocalApic apic("apic", 0);
  enable(apic);
  EXPECT_FALSE(apic.has_deliverable());
  apic.accept(0x31, irq::DeliveryMode::Fixed);
  apic.accept(0x51, irq::DeliveryMode::Fixed);
  apic.accept(0x41, irq::DeliveryMode::LowestPriority);
  ASSERT_TRUE(apic.has_deliverable());
  EXPECT_EQ(apic.ack(), 0x51u);
  EXPECT_FALSE(apic.has_deliverable());  // 0x41, 0x31 are below the in-service class 5
  apic.accept(0x59, irq::DeliveryMode::Fixed);
  EXPECT_FALSE(apic.has_deliverable());  // same class as the in-service vector
  apic.accept(0x61, irq::DeliveryMode::Fixed);
  EXPECT_TRUE(apic.has_deliverable());
  EXPECT_EQ(apic.ack(), 0x61u);
  EXPECT_EQ(apic.read(LA::APIC_PROCPRI), 0x60u);
  apic.eoi();
  apic.eoi();
  EXPECT_EQ(apic.ack(), 0x59u);
  apic.eoi();
  // TPR: class 4 and below held off.
  apic.write(LA::APIC_TASKPRI, 0x40);
  EXPECT_FALSE(apic.has_deliverable());
  EXPECT_EQ(apic.ack(), 0xFFu);  // nothing above PPR: the spurious vector
  EXPECT_TRUE(apic.irr(0x41));
  apic.write(LA::APIC_TASKPRI, 0x30);
  EXPECT_EQ(apic.ack(), 0x41u);
  apic.eoi();
  apic.write(LA::APIC_TASKPRI, 0x00);
  EXPECT_EQ(apic.ack(), 0x31u);
  EXPECT_EQ(apic.read(LA::APIC_ISR + 0x10), 1u << (0x31 - 32));  // ISR dword 1, bit 17
  apic.accept(0x05, irq::DeliveryMode::Fixed);                   // vectors 0-15 are illegal
  EXPECT_FALSE(apic.irr(0x05));
  EXPECT_EQ(apic.read(LA::APIC_ESR), 0x40u);
}

TEST(LocalApic, EoiOrderAndListener) {
  fresh_simulation();
  LocalApic apic("apic", 0);
  EoiRecorder rec;
  apic.set_eoi_listener(&rec);
  apic.accept(0x39, irq::DeliveryMode::Fixed);
  EXPECT_EQ(apic.ack(), 0x39u);
  apic.accept(0x81, irq::DeliveryMode::Fixed);  // nests above 0x39
  EXPECT_EQ(apic.ack(), 0x81u);
  apic.eoi();  // retires the highest in-service vector first
  apic.eoi();
  apic.eoi();  // nothing in service: no message
  EXPECT_EQ(rec.vectors, (std::vector<unsigned>{0x81, 0x39}));
  apic.write(LA::APIC_EOI, 0);
  EXPECT_EQ(rec.vectors.size(), 2u);
}

TEST(LocalApic, NmiExtIntAndInterruptEvent) {
  fresh_simulation();
  LocalApic apic("apic", 0);
  struct Waker : sc_core::sc_module {
    LocalApic& a;
    std::vector<uint64_t> wakes;
    SC_HAS_PROCESS(Waker);
    Waker(sc_core::sc_module_name n, LocalApic& x) : sc_module(n), a(x) { SC_THREAD(run); }
    void run() {
      for (;;) {
        sc_core::wait(a.interrupt_event());
        wakes.push_back(to_ps(sc_core::sc_time_stamp()));
      }
    }
  } waker("waker", apic);
  struct Driver : sc_core::sc_module {
    LocalApic& a;
    SC_HAS_PROCESS(Driver);
    Driver(sc_core::sc_module_name n, LocalApic& x) : sc_module(n), a(x) { SC_THREAD(run); }
    void run() {
      sc_core::wait(sc_time(10, SC_US));
      a.accept(0, irq::DeliveryMode::Nmi);
      sc_core::wait(sc_time(10, SC_US));
      a.irq_set(0, true);  // LINT0 (8259A INTR) in ExtINT mode
    }
  } driver("driver", apic);
  enable(apic);
  apic.write(LA::APIC_LVT0, 0x700);  // ExtINT, unmasked (Linux BSP virtual wire)
  apic.write(LA::APIC_LVT1, 0x400);  // NMI
  sc_start(sc_time(15, SC_US));
  EXPECT_EQ(waker.wakes, std::vector<uint64_t>{10000000});
  EXPECT_TRUE(apic.has_deliverable());
  EXPECT_TRUE(apic.take_nmi());
  EXPECT_FALSE(apic.take_nmi());
  EXPECT_FALSE(apic.has_deliverable());
  sc_start(sc_time(10, SC_US));
  EXPECT_EQ(waker.wakes.size(), 2u);
  EXPECT_TRUE(apic.extint_pending());
  EXPECT_TRUE(apic.take_extint());
  EXPECT_FALSE(apic.has_deliverable());
  apic.irq_set(1, true);  // LINT1 edge: NMI
  EXPECT_TRUE(apic.nmi_pending());
}

TEST(LocalApic, RegistersAfterReset) {
  fresh_simulation();
  LocalApic apic("apic", 1);
  EXPECT_EQ(apic.read(LA::APIC_ID), 1u << 24);
  EXPECT_EQ(apic.read(LA::APIC_LVR), 0x00040011u);
  EXPECT_EQ(apic.read(LA::APIC_SPIV), 0xFFu);
  EXPECT_EQ(apic.read(LA::APIC_LVTT), LA::kLvtMasked);
  apic.write(LA::APIC_LVTT, kLocalTimerVector);  // software-disabled: mask stays set
  EXPECT_EQ(apic.read(LA::APIC_LVTT), LA::kLvtMasked | kLocalTimerVector);
  apic.write(LA::APIC_LDR, 0x02000000);
  EXPECT_EQ(apic.logical_id(), 0x02);
}

}  // namespace
}  // namespace latsim::cpu
