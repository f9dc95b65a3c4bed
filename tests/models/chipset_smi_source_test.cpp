// SMI# from the south bridge: every CPU wired to it stops for the handler's time at
// the next instruction boundary, whatever IF says, and an interrupt that arrives
// meanwhile is taken only after RSM. The OS-visible effect is time alone.
#include "models/chipset/smi_source.h"
#include "models/cpu/pentium3.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <memory>
#include <vector>

namespace latsim::cpu {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;

constexpr uint64_t kCorePs = 1155;  // 866 MHz: round(1e6 / 866) ps
sc_time us(double v) { return sc_time(v, SC_US); }

struct NullTarget : sc_core::sc_module {  // the bus needs one target bound
  tlm_utils::simple_target_socket<NullTarget> socket;
  explicit NullTarget(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &NullTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time&) {
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Rig {
  pci::PciBus pci{"pci"};
  NullTarget dev{"dev"};
  chipset::Dram dram{64ull << 20};
  std::unique_ptr<chipset::HostBridge> hb;
  LocalApic apic0{"lapic0", 0}, apic1{"lapic1", 1};
  std::unique_ptr<Pentium3> cpu0, cpu1;
  std::unique_ptr<chipset::SmiSource> smi;

  explicit Rig(const chipset::SmiParams& p) {
    hb = std::make_unique<chipset::HostBridge>("hb", chipset::HostBridgeParams{}, pci, dram);
    pci.target_socket.bind(dev.socket);
    cpu0 = std::make_unique<Pentium3>("cpu0", 0, CpuParams{}, *hb, apic0);
    cpu1 = std::make_unique<Pentium3>("cpu1", 1, CpuParams{}, *hb, apic1);
    smi = std::make_unique<chipset::SmiSource>("smi", p);
    for (Pentium3* c : {cpu0.get(), cpu1.get()})
      smi->connect([c](sc_time handler) { c->smi(handler); });
  }
};

chipset::SmiParams every(double period_us, double duration_us, double first_us) {
  chipset::SmiParams p;
  p.period_us = period_us;
  p.duration_us = duration_us;
  p.first = us(first_us);
  return p;
}

TEST(SmiSource, AssertsAtItsPhaseThenEveryPeriod) {
  fresh_simulation();
  chipset::SmiSource smi("smi", every(1000, 50, 300));
  std::vector<sc_time> at;
  smi.connect([&](sc_time handler) {
    EXPECT_EQ(handler, us(50));
    at.push_back(sc_core::sc_time_stamp());
  });
  sc_core::sc_start(us(3500));
  ASSERT_EQ(at.size(), 4u);
  EXPECT_EQ(at[0], us(300));
  EXPECT_EQ(at[3], us(3300));
  EXPECT_EQ(smi.count(), 4u);
}

TEST(SmiSource, WithoutAPeriodSmiIsNeverAsserted) {
  fresh_simulation();
  chipset::SmiSource smi("smi", every(0, 50, 0));
  int n = 0;
  smi.connect([&](sc_time) { ++n; });
  sc_core::sc_start(us(10000));
  EXPECT_EQ(n, 0);
}

// Work with interrupts off still stops for SMM: the handler's time is added to it.
TEST(SmiSource, WorkWithInterruptsOffTakesTheHandlersTimeLonger) {
  fresh_simulation();
  Rig r(every(1000000, 50, 20));
  Work w{100000, 0};  // 115.5 us of cached code
  sc_time t;
  Script s("s", [&] {
    EXPECT_TRUE(r.cpu0->run(w));
    t = sc_core::sc_time_stamp();
  });
  sc_core::sc_start(us(1000));
  EXPECT_EQ(t, ps(100000 * kCorePs) + us(50));
  EXPECT_EQ(r.cpu0->stats().smis, 1u);
  EXPECT_EQ(r.cpu0->stats().stall.smm, us(50));
}

// An interrupt raised during SMM waits for RSM; the cycle in progress at SMI# finished.
TEST(SmiSource, AnInterruptDuringSmmIsTakenAfterRsm) {
  fresh_simulation();
  Rig r(every(1000000, 50, 20));
  r.cpu0->set_interrupt_flag(true);
  Work w{1000000, 0};
  bool done = true;
  sc_time t;
  Script s("s", [&] {
    done = r.cpu0->run(w);
    t = sc_core::sc_time_stamp();
  });
  Script irq("irq", [&] {
    sc_core::wait(us(30));
    r.apic0.accept(0x31, irq::DeliveryMode::Fixed);
  });
  sc_core::sc_start(us(1000));
  EXPECT_FALSE(done);
  const uint64_t ran = (20000000 + kCorePs - 1) / kCorePs;  // the cycle in progress at 20 us
  EXPECT_EQ(t, ps(ran * kCorePs) + us(50));
  EXPECT_EQ(w.cycles, 1000000u - ran);
}

// A halted CPU leaves HLT for the handler and returns to it: halted time excludes SMM.
TEST(SmiSource, BothCpusStopAndAHaltedOneWakesOnlyForTheInterrupt) {
  fresh_simulation();
  Rig r(every(1000000, 50, 10));
  r.cpu1->set_interrupt_flag(true);
  sc_time t0, t1;
  Script s0("s0", [&] {
    Work w{100000, 0};
    r.cpu0->run(w);
    t0 = sc_core::sc_time_stamp();
  });
  Script s1("s1", [&] {
    r.cpu1->halt();
    t1 = sc_core::sc_time_stamp();
  });
  Script irq("irq", [&] {
    sc_core::wait(us(20));
    r.apic1.accept(0x31, irq::DeliveryMode::Fixed);
  });
  sc_core::sc_start(us(1000));
  EXPECT_EQ(t0, ps(100000 * kCorePs) + us(50));
  EXPECT_EQ(t1, us(60));  // the interrupt at 20 us, taken at RSM
  EXPECT_EQ(r.cpu1->stats().halted, us(10));
  EXPECT_EQ(r.cpu1->stats().smis, 1u);
  EXPECT_EQ(r.cpu0->stats().smis, 1u);
}

}  // namespace
}  // namespace latsim::cpu
