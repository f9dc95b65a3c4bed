// Pentium III execution engine: run(Work{cycles, misses}) costs cycles at the core
// clock plus one DRAM latency per cache-line miss; a miss issued while the host
// bridge holds the CPU off waits there (fsb_stall); the work is interruptible at
// instruction boundaries when IF=1 (a miss already on the bus completes first).
#include "models/cpu/pentium3.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <functional>
#include <memory>

namespace latsim::cpu {
namespace {

using latsim::testing::fresh_simulation;

constexpr uint64_t kCorePs = 1155;    // 866 MHz: round(1e6 / 866) ps
constexpr uint64_t kDramPs = 174000;  // 174 ns main-memory latency (lmbench)

struct NullTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<NullTarget> socket;
  explicit NullTarget(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &NullTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time&) {
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

using latsim::test::Script;

struct Rig {
  pci::PciBus pci{"pci"};
  chipset::Dram dram{64ull << 20};
  std::unique_ptr<chipset::HostBridge> hb;
  NullTarget dev{"dev"};
  LocalApic apic{"lapic", 0};
  std::unique_ptr<Pentium3> cpu;
  int ide = 0;

  explicit Rig(chipset::CpuHoldoff policy = chipset::CpuHoldoff::SgEntry) {
    chipset::HostBridgeParams p;
    p.holdoff = policy;
    hb = std::make_unique<chipset::HostBridge>("hb", p, pci, dram);
    pci.target_socket.bind(dev.socket);
    cpu = std::make_unique<Pentium3>("cpu", 0, CpuParams{}, *hb, apic);
    ide = pci.add_master("ide");
  }
  // One PRD entry's DMA (disk read into DRAM) from `start` to `end`.
  void announce_entry(sc_time start, sc_time end) {
    pci::BurstTrain t;
    t.master = ide;
    t.start = start;
    t.end = end;
    t.period = ps(480480);  // 16 bytes at 33.3 MB/s
    t.tenure = ps(8 * 30003);
    t.bytes = 4096;
    t.to_memory = true;
    pci.announce(t);
  }
};

sc_time core(uint64_t n) { return ps(n * kCorePs); }
// Interrupts are taken at an instruction boundary: the cycle in progress finishes.
uint64_t cycles_started_by(uint64_t t_ps) { return (t_ps + kCorePs - 1) / kCorePs; }
sc_time dram(uint64_t n = 1) { return ps(n * kDramPs); }

TEST(Pentium3Run, IdleBusCostsCyclesPlusDramLatencyPerMiss) {
  fresh_simulation();
  Rig r;
  EXPECT_EQ(to_ps(r.cpu->period()), kCorePs);
  Work w{100000, 50};
  bool done = false;
  sc_time t;
  Script s("s", [&] {
    sc_core::wait(sc_time(3, SC_US));
    done = r.cpu->run(w);
    t = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_TRUE(done);
  EXPECT_EQ(t - sc_time(3, SC_US), core(100000) + dram(50));  // 115.5 us + 8.7 us
  EXPECT_EQ(w.cycles, 0u);
  EXPECT_EQ(w.misses, 0u);
  EXPECT_EQ(r.cpu->stats().misses, 50u);
  EXPECT_EQ(r.cpu->stats().fsb_stall, SC_ZERO_TIME);
}

TEST(Pentium3Run, OddShapesOfWorkCostTheSame) {
  fresh_simulation();
  Rig r;
  sc_time t1, t2, t3;
  Script s("s", [&] {
    Work a{12345, 0};
    r.cpu->run(a);
    t1 = sc_core::sc_time_stamp();
    Work b{10, 20};  // more misses than cycles (pointer chasing)
    r.cpu->run(b);
    t2 = sc_core::sc_time_stamp();
    Work c{0, 0};
    EXPECT_TRUE(r.cpu->run(c));
    t3 = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(t1, core(12345));
  EXPECT_EQ(t2 - t1, core(10) + dram(20));
  EXPECT_EQ(t3, t2);
}

TEST(Pentium3Run, SgEntryCoveringTheStartHoldsFirstMissUntilEntryEnd) {
  fresh_simulation();
  Rig r(chipset::CpuHoldoff::SgEntry);
  const sc_time entry_start = sc_time(5, SC_US), entry_end = sc_time(60, SC_US);
  r.announce_entry(entry_start, entry_end);
  const sc_time t0 = sc_time(10, SC_US);
  Work w{10000, 4};  // 2000 cycles before each miss, 2000 after the last
  sc_time t;
  Script s("s", [&] {
    sc_core::wait(t0);
    EXPECT_TRUE(r.cpu->run(w));
    t = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // Miss 0 issues after 2000 cycles, inside the entry: accepted at the entry's end.
  const sc_time issue0 = t0 + core(2000);
  const sc_time miss0_done = entry_end + dram();
  EXPECT_EQ(t, miss0_done + (core(2000) + dram()) * 3.0 + core(2000));
  EXPECT_EQ(r.cpu->stats().fsb_stall, entry_end - issue0);
  EXPECT_EQ(r.cpu->stats().misses, 4u);
}

TEST(Pentium3Run, EntryStartingMidRunHoldsOnlyMissesIssuedInsideIt) {
  fresh_simulation();
  Rig r(chipset::CpuHoldoff::SgEntry);
  const sc_time entry_start = sc_time(5, SC_US), entry_end = sc_time(40, SC_US);
  r.announce_entry(entry_start, entry_end);
  Work w{10000, 4};
  sc_time t;
  Script s("s", [&] {
    EXPECT_TRUE(r.cpu->run(w));
    t = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // Misses issue every 2000 cycles + 174 ns: at 2.31, 4.794 us (before the entry),
  // then 7.278 us (inside: held to 40 us), then one more and the tail.
  const sc_time unit = core(2000) + dram();
  const sc_time issue2 = unit * 2.0 + core(2000);
  ASSERT_LT(unit + core(2000), entry_start);
  ASSERT_GT(issue2, entry_start);
  EXPECT_EQ(t, entry_end + dram() + unit + core(2000));
  EXPECT_EQ(r.cpu->stats().fsb_stall, entry_end - issue2);
}

TEST(Pentium3Run, MissIssuedExactlyAtEntryStartIsHeldOff) {
  fresh_simulation();
  Rig r(chipset::CpuHoldoff::SgEntry);
  const sc_time unit = core(2000) + dram();
  const sc_time issue1 = unit + core(2000);  // second miss of Work{10000, 4} run at 0
  const sc_time entry_end = sc_time(40, SC_US);
  r.announce_entry(issue1, entry_end);
  Work w{10000, 4};
  sc_time t;
  Script s("s", [&] {
    EXPECT_TRUE(r.cpu->run(w));
    t = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // The host bridge holds a request at the entry's first instant (covers(start)).
  ASSERT_EQ(r.hb->cpu_ready(issue1), entry_end);
  EXPECT_EQ(t, entry_end + dram() + unit * 2.0 + core(2000));
  EXPECT_EQ(r.cpu->stats().fsb_stall, entry_end - issue1);
}

TEST(Pentium3Run, RotatePolicyHoldsAMissOnlyForTheCurrentBurst) {
  fresh_simulation();
  Rig r(chipset::CpuHoldoff::Rotate);
  const sc_time entry_start = SC_ZERO_TIME, entry_end = sc_time(60, SC_US);
  r.announce_entry(entry_start, entry_end);
  Work w{2000, 1};  // one miss at 1000 cycles = 1.155 us
  sc_time t;
  Script s("s", [&] {
    EXPECT_TRUE(r.cpu->run(w));
    t = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // 1.155 us = burst 2 (period 480.48 ns) + 194.04 ns, inside its 240.024 ns tenure.
  const sc_time issue = core(1000);
  const sc_time burst_end = ps(2 * 480480 + 8 * 30003);
  ASSERT_LT(issue, burst_end);
  EXPECT_EQ(t, burst_end + dram() + core(1000));
  EXPECT_EQ(r.cpu->stats().fsb_stall, burst_end - issue);
}

TEST(Pentium3Run, TrafficAnnouncedMidRunWithoutHoldoffDoesNotChangeTiming) {
  fresh_simulation();
  Rig r(chipset::CpuHoldoff::None);
  Work w{1000000, 10};
  sc_time t;
  Script s("s", [&] {
    EXPECT_TRUE(r.cpu->run(w));
    t = sc_core::sc_time_stamp();
  });
  Script dma("dma", [&] {
    // New master traffic wakes the core to re-plan: once while miss 0 is on the bus
    // (it issues after 1000000 / 11 = 90909 cycles), once in the middle of a cycle.
    sc_core::wait(core(90909) + ps(50000));
    r.announce_entry(sc_time(500, SC_US), sc_time(600, SC_US));
    sc_core::wait(sc_time(250, SC_US) - sc_core::sc_time_stamp());
    r.announce_entry(sc_time(700, SC_US), sc_time(800, SC_US));
  });
  sc_core::sc_start();
  EXPECT_EQ(t, core(1000000) + dram(10));
  EXPECT_EQ(r.cpu->stats().misses, 10u);
  EXPECT_EQ(r.cpu->stats().fsb_stall, SC_ZERO_TIME);
}

TEST(Pentium3Interrupts, FixedInterruptWithIfSetStopsRunWithRemainingWork) {
  fresh_simulation();
  Rig r;
  r.cpu->set_interrupt_flag(true);
  Work w{1000000, 0};  // 1.155 ms of cached code
  bool done = true;
  sc_time t;
  Script s("s", [&] {
    done = r.cpu->run(w);
    t = sc_core::sc_time_stamp();
  });
  Script irq("irq", [&] {
    sc_core::wait(sc_time(100, SC_US));
    r.apic.accept(0x31, irq::DeliveryMode::Fixed);  // IRQ 1 vector as Linux 2.6 assigns
  });
  sc_core::sc_start();
  EXPECT_FALSE(done);
  const uint64_t ran = cycles_started_by(100000000);  // 86580.09 -> 86581 cycles
  EXPECT_EQ(ran, 86581u);
  EXPECT_EQ(t, core(ran));
  EXPECT_EQ(w.cycles, 1000000u - ran);
  EXPECT_EQ(w.misses, 0u);
  EXPECT_TRUE(r.cpu->interrupt_deliverable());
  const Interrupt i = r.cpu->take_interrupt();
  EXPECT_EQ(i.vector, 0x31u);
  EXPECT_FALSE(i.nmi);
  EXPECT_FALSE(r.cpu->interrupts_enabled());  // interrupt gate
  EXPECT_EQ(r.cpu->stats().interrupts, 1u);
}

TEST(Pentium3Interrupts, InterruptBetweenMissesKeepsCompletedMissesAndCycles) {
  fresh_simulation();
  Rig r;
  r.cpu->set_interrupt_flag(true);
  Work w{3000, 2};  // 1000 cycles, miss, 1000 cycles, miss, 1000 cycles
  bool done = true;
  sc_time t;
  Script s("s", [&] {
    done = r.cpu->run(w);
    t = sc_core::sc_time_stamp();
  });
  Script irq("irq", [&] {
    sc_core::wait(sc_time(2, SC_US));
    r.apic.accept(0x41, irq::DeliveryMode::Fixed);
  });
  sc_core::sc_start();
  EXPECT_FALSE(done);
  // At 2 us: one unit (1000 cycles + 174 ns = 1.329 us) done, then 671 ns = 580.95
  // cycles: the 581st cycle finishes before the interrupt is taken.
  const uint64_t unit_ps = 1000 * kCorePs + kDramPs;
  const uint64_t partial = cycles_started_by(2000000 - unit_ps);
  EXPECT_EQ(partial, 581u);
  EXPECT_EQ(t, ps(unit_ps) + core(partial));
  EXPECT_EQ(w.misses, 1u);
  EXPECT_EQ(w.cycles, 3000u - 1000u - partial);
  EXPECT_EQ(r.cpu->stats().misses, 1u);
}

TEST(Pentium3Interrupts, MissInFlightCompletesBeforeTheInterruptIsTaken) {
  fresh_simulation();
  Rig r;
  r.cpu->set_interrupt_flag(true);
  Work w{2000, 1};  // miss issued at 1.155 us, data back at 1.329 us
  bool done = true;
  sc_time t;
  Script s("s", [&] {
    done = r.cpu->run(w);
    t = sc_core::sc_time_stamp();
  });
  Script irq("irq", [&] {
    sc_core::wait(sc_time(1200, SC_NS));  // while the load is on the bus
    r.apic.accept(0x41, irq::DeliveryMode::Fixed);
  });
  sc_core::sc_start();
  EXPECT_FALSE(done);
  // The interrupt is taken at the instruction boundary after the load completes.
  EXPECT_EQ(t, core(1000) + dram());
  EXPECT_EQ(w.misses, 0u);
  EXPECT_EQ(w.cycles, 1000u);
  EXPECT_EQ(r.cpu->stats().misses, 1u);
}

TEST(Pentium3Interrupts, InterruptWithIfClearWaitsUntilWorkIsDone) {
  fresh_simulation();
  Rig r;
  r.cpu->set_interrupt_flag(false);  // local_irq_disable()
  Work w{1000000, 10};
  bool done = false;
  sc_time t;
  Script s("s", [&] {
    done = r.cpu->run(w);
    t = sc_core::sc_time_stamp();
  });
  Script irq("irq", [&] {
    sc_core::wait(sc_time(100, SC_US));
    r.apic.accept(0x31, irq::DeliveryMode::Fixed);
  });
  sc_core::sc_start();
  EXPECT_TRUE(done);
  EXPECT_EQ(t, core(1000000) + dram(10));
  EXPECT_EQ(w.cycles, 0u);
  EXPECT_EQ(w.misses, 0u);
  EXPECT_FALSE(r.cpu->interrupt_deliverable());
  EXPECT_TRUE(r.apic.has_deliverable());  // still pending in IRR
  r.cpu->set_interrupt_flag(true);        // local_irq_enable()
  EXPECT_TRUE(r.cpu->interrupt_deliverable());
}

TEST(Pentium3Interrupts, NmiStopsRunEvenWithIfClear) {
  fresh_simulation();
  Rig r;
  r.cpu->set_interrupt_flag(false);
  Work w{1000000, 0};
  bool done = true;
  sc_time t;
  Script s("s", [&] {
    done = r.cpu->run(w);
    t = sc_core::sc_time_stamp();
  });
  Script nmi("nmi", [&] {
    sc_core::wait(sc_time(250, SC_US));
    r.apic.accept(2, irq::DeliveryMode::Nmi);  // NMI watchdog tick
  });
  sc_core::sc_start();
  EXPECT_FALSE(done);
  EXPECT_EQ(t, core(cycles_started_by(250000000)));
  EXPECT_EQ(w.cycles, 1000000u - cycles_started_by(250000000));
  const Interrupt i = r.cpu->take_interrupt();
  EXPECT_TRUE(i.nmi);
  EXPECT_EQ(i.vector, 2u);
}

TEST(Pentium3Interrupts, PendingInterruptReturnsAtOnceWithoutWork) {
  fresh_simulation();
  Rig r;
  r.cpu->set_interrupt_flag(true);
  r.apic.accept(0x51, irq::DeliveryMode::Fixed);
  Work w{5000, 3};
  bool done = true;
  Script s("s", [&] { done = r.cpu->run(w); });
  sc_core::sc_start();
  EXPECT_FALSE(done);
  EXPECT_EQ(sc_core::sc_time_stamp(), SC_ZERO_TIME);
  EXPECT_EQ(w.cycles, 5000u);
  EXPECT_EQ(w.misses, 3u);
}

}  // namespace
}  // namespace latsim::cpu
