// A shared interrupt line (kernel/irq: setup_irq, handle_IRQ_event): actions run in the
// order they were requested; 2.6.9 turns interrupts on for the whole chain unless the
// first action asked for SA_INTERRUPT (so the local timer nests inside it), 2.4 decides
// per action; a request without SA_SHIRQ on a taken line fails (-EBUSY). /proc/interrupts
// lists the chain in show_interrupts' columns. An interrupt that reaches a second CPU while
// the first still runs the chain (IRQ_INPROGRESS) leaves it to the first to run again.
#include <gtest/gtest.h>

#include <string>
#include <vector>
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::LambdaWorkload;

struct Seen {
  std::vector<std::string> order;
  bool first_irqs_on = false, second_irqs_on = false;
  uint64_t ticks_inside_first = 0;  // local APIC ticks taken while the first handler ran
  bool second_accepted = false;
  std::string name, interrupts;  // irq_desc[10]'s chain, /proc/interrupts at the end
};

Seen shared_line(const std::string& flavour, unsigned long first, unsigned long second) {
  KernelParams p = test::flavour_params(flavour);
  p.irq_threaded[10] = false;  // both handlers in hard interrupt context
  FakeMachine m(1, p);
  Seen s;
  Kernel& k = *m.k;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel&) {
    k.request_irq(10, "first", first, [&] {
      s.order.push_back("first");
      s.first_irqs_on = !k.irqs_disabled();
      const uint64_t t0 = k.local_ticks(0);
      k.exec(3000000);  // 3 ms of handler work (1 cycle = 1 ns)
      s.ticks_inside_first = k.local_ticks(0) - t0;
    });
    s.second_accepted = k.request_irq(10, "second", second, [&] {
      s.order.push_back("second");
      s.second_irqs_on = !k.irqs_disabled();
    });
    k.create_task(
        "poster",
        [&] {
          k.exec(100000);
          m.cpus[0]->post(irq_vector(10));
          k.exec(10000000);
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");
        },
        Policy::Fifo, 50, 0, 0x1);
  }));
  m.k->boot();
  sc_core::sc_start(test::ms(20));
  s.name = k.irq_desc(10).name;
  s.interrupts = k.show_interrupts();
  return s;
}

TEST(SharedIrq, TheFirstActionWithoutSaInterruptOpensTheWholeChainOn26) {
  // uhci_hcd (SA_SHIRQ) before the sound card (SA_INTERRUPT | SA_SHIRQ).
  const Seen s = shared_line("2.6.9-vp", IRQF_SHARED, IRQF_DISABLED | IRQF_SHARED);
  EXPECT_TRUE(s.second_accepted);
  EXPECT_EQ(s.order, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(s.name, "first, second");
  EXPECT_TRUE(s.first_irqs_on);
  EXPECT_TRUE(s.second_irqs_on);        // its SA_INTERRUPT is not honoured
  EXPECT_GE(s.ticks_inside_first, 2u);  // the 1 ms local timer nests in the 3 ms handler
}

TEST(SharedIrq, AFirstActionWithSaInterruptKeepsTheChainClosed) {
  const Seen s = shared_line("2.6.9-vp", IRQF_DISABLED | IRQF_SHARED, IRQF_SHARED);
  EXPECT_FALSE(s.first_irqs_on);
  EXPECT_FALSE(s.second_irqs_on);
  EXPECT_EQ(s.ticks_inside_first, 0u);
}

TEST(SharedIrq, TwoFourSetsTheFlagPerAction) {
  const Seen s = shared_line("2.4.20-lowlatency", IRQF_SHARED, IRQF_DISABLED | IRQF_SHARED);
  EXPECT_TRUE(s.first_irqs_on);
  EXPECT_FALSE(s.second_irqs_on);
  EXPECT_GE(s.ticks_inside_first, 2u);
}

TEST(SharedIrq, ALineIsSharedOnlyIfBothAgree) {
  const Seen s = shared_line("2.6.9-vp", IRQF_SHARED, IRQF_DISABLED);
  EXPECT_FALSE(s.second_accepted);  // -EBUSY
  EXPECT_EQ(s.name, "first");
  EXPECT_EQ(s.order, (std::vector<std::string>{"first"}));
}

TEST(SharedIrq, ProcInterruptsShowsTheChainInTwoSixNinesColumns) {
  const Seen s = shared_line("2.6.9-vp", IRQF_SHARED, IRQF_DISABLED | IRQF_SHARED);
  std::vector<std::string> lines;
  for (size_t a = 0, b; (b = s.interrupts.find('\n', a)) != std::string::npos; a = b + 1)
    lines.push_back(s.interrupts.substr(a, b - a));
  ASSERT_EQ(lines.size(), 8u) << s.interrupts;
  EXPECT_EQ(lines[0], "           CPU0       ");
  EXPECT_EQ(lines[1], "  0:          0    IO-APIC-edge  timer");  // no PIT on the fake CPU
  EXPECT_EQ(lines[2], " 10:          1    IO-APIC-edge  first, second");
  EXPECT_EQ(lines[3], " 14:          0    IO-APIC-edge  ide0");
  EXPECT_EQ(lines[4], "NMI:          0 ");  // no watchdog here
  EXPECT_EQ(lines[5].substr(0, 5), "LOC: ");
  EXPECT_GE(std::stoi(lines[5].substr(5)), 15);  // the local timer at HZ over 20 ms
  EXPECT_EQ(lines[6], "ERR:          0");
  EXPECT_EQ(lines[7], "MIS:          0");
}

// Two deliveries of one edge line to the two CPUs, the second while the first CPU's
// handler (3 ms with interrupts off, SA_INTERRUPT) still runs.
TEST(IrqInProgress, ASecondCpuLeavesTheRunningChainToRunAgain) {
  KernelParams p = test::flavour_params("2.6.9-vp");
  p.irq_threaded[10] = false;
  FakeMachine m(2, p);
  Kernel& k = *m.k;
  std::vector<int> ran_on;
  sc_core::sc_time posted[2], second_left;  // deliveries; when CPU1 was back from do_IRQ
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel&) {
    k.request_irq(10, "slow", IRQF_DISABLED, [&] {
      ran_on.push_back(k.smp_processor_id());
      k.exec(3000000);
    });
    for (int c = 0; c < 2; ++c)
      k.create_task(
          "cpu" + std::to_string(c),
          [&, c] {
            k.exec(uint64_t(1000000 + 1000000 * c));
            posted[size_t(c)] = k.now();
            m.cpus[size_t(c)]->post(irq_vector(10));
            k.exec(1000);
            if (c == 1) second_left = k.now();
            k.exec(10000000);
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          },
          Policy::Fifo, 50, c, 1u << c);
  }));
  m.k->boot();
  sc_core::sc_start(test::ms(20));
  ASSERT_LT(posted[1], posted[0] + test::ms(3));     // CPU1's came while CPU0 ran the chain
  EXPECT_EQ(ran_on, (std::vector<int>{0, 0}));       // CPU0 ran it twice, CPU1 never
  EXPECT_LT(second_left, posted[1] + test::us(50));  // CPU1 only acked and left
  EXPECT_EQ(k.irq_desc(10).count, 2u);
}

}  // namespace
}  // namespace latsim::kernel
