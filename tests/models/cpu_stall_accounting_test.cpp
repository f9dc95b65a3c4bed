// Per-CPU stall accounting by cause (metrics.json cpus[i].stall_us): each cause
// is charged where the stall happens. A miss held off the FSB by a bus master's
// scatter-gather entry is memory; a port access waiting for GNT# and its own PCI
// cycle is pci; the ISA cycle the PCI-ISA bridge waits for is isa; a write held
// (or Retried) by a full video FIFO is video_fifo; spin_until is spin. Wired
// through the real sockets: CPU -> host bridge -> PCI -> targets.
#include "models/cpu/pentium3.h"
#include "models/isa/pci_isa_bridge.h"
#include "models/video/permedia2.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <memory>

namespace latsim::cpu {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;

constexpr uint64_t kClkPs = 30003;     // 33.33 MHz PCI clock
constexpr uint64_t kDramPs = 174000;   // 174 ns main-memory latency
constexpr uint64_t kFb = 0xe0000000;   // the video card's control aperture
constexpr uint64_t kCoreReg = 0x8ac8;  // a FIFO'd core register (one entry)
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }
isa::PciIsaBridgeParams one_us_cycles() {
  isa::PciIsaBridgeParams p;
  p.io_cycle_ns = 1000;
  return p;
}

struct Register : sc_core::sc_module {  // a plain PCI (or ISA) target: no wait states
  tlm_utils::simple_target_socket<Register> socket;
  explicit Register(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &Register::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time&) {
    if (p.is_read()) std::fill_n(p.get_data_ptr(), p.get_data_length(), 0);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Rig {
  pci::PciBus pci{"pci"};
  chipset::Dram dram{64ull << 20};
  std::unique_ptr<chipset::HostBridge> hb;
  isa::PciIsaBridge isa{"isa", one_us_cycles()};
  Register isa_dev{"isa_dev"};
  Register pci_dev{"pci_dev"};
  std::unique_ptr<video::Permedia2> card;
  LocalApic apic0{"lapic0", 0}, apic1{"lapic1", 1};
  std::unique_ptr<Pentium3> cpu0, cpu1;
  int ide = 0;

  explicit Rig(video::FullFifoWrite mode = video::FullFifoWrite::Pci20Hold) {
    chipset::HostBridgeParams hp;
    hp.holdoff = chipset::CpuHoldoff::SgEntry;
    hp.posted_write_entries = 0;  // every store waits for its PCI cycle
    hb = std::make_unique<chipset::HostBridge>("hb", hp, pci, dram);
    video::Permedia2Params vp;
    vp.fifo_entries = 1;
    vp.register_load_ns = 1000;  // a slow core: easy sums
    vp.full_write = mode;
    card = std::make_unique<video::Permedia2>("card", vp);
    pci.target_socket.bind(isa.pci_socket);  // 0
    pci.target_socket.bind(pci_dev.socket);  // 1
    pci.target_socket.bind(card->socket);    // 2
    pci.map(io_addr(0), 0x400, 0, "isa", 2);
    pci.map(io_addr(0xe000), 0x100, 1, "dev", 2);
    pci.map(kFb, 0x10000, 2, "video", 2);
    isa.isa_socket.bind(isa_dev.socket);
    isa.map(0x40, 4, 0, "pit");
    cpu0 = std::make_unique<Pentium3>("cpu0", 0, CpuParams{}, *hb, apic0);
    cpu1 = std::make_unique<Pentium3>("cpu1", 1, CpuParams{}, *hb, apic1);
    ide = pci.add_master("ide");
  }
  // One PRD entry's DMA into DRAM from `start` to `end` (16-byte bursts at udma2).
  void announce_entry(sc_time start, sc_time end) {
    pci::BurstTrain t;
    t.master = ide;
    t.start = start;
    t.end = end;
    t.period = ps(480480);
    t.tenure = ps(8 * kClkPs);
    t.bytes = 4096;
    pci.announce(t);
  }
  static void access(Pentium3& c, uint64_t addr, bool write, unsigned len = 1) {
    uint32_t v = 0;
    tlm::tlm_generic_payload p;
    p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.set_address(addr);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    p.set_data_length(len);
    p.set_streaming_width(len);
    c.pci_access(p);
  }
  sc_time post() const { return hb->params().cpu_to_pci; }
};

// One uncontended PCI cycle: posting it (cpu_to_pci), address phase, 2 decode
// clocks, the data phase and turnaround (3 + 2 clocks).
sc_time plain_cycle(const Rig& r) { return r.post() + clocks(5); }

TEST(StallAccounting, PortReadOfAPciTargetIsAllPci) {
  fresh_simulation();
  Rig r;
  sc_time took;
  Script s("s", [&] {
    sc_core::wait(sc_time(1, SC_US));
    const sc_time t0 = sc_core::sc_time_stamp();
    Rig::access(*r.cpu0, io_addr(0xe000), false);
    took = sc_core::sc_time_stamp() - t0;
  });
  sc_core::sc_start(sc_time(1, SC_MS));
  const auto& st = r.cpu0->stats().stall;
  EXPECT_EQ(took, plain_cycle(r));
  EXPECT_EQ(st.pci, plain_cycle(r));
  EXPECT_EQ(st.isa, SC_ZERO_TIME);
  EXPECT_EQ(st.memory, SC_ZERO_TIME);
  EXPECT_EQ(st.video_fifo, SC_ZERO_TIME);
  EXPECT_EQ(r.cpu0->stats().stall_max.pci, plain_cycle(r));
}

TEST(StallAccounting, IsaPortReadChargesTheIsaCycleToIsaAndThePciCycleToPci) {
  fresh_simulation();
  Rig r;
  sc_time took;
  Script s("s", [&] {
    sc_core::wait(sc_time(1, SC_US));
    const sc_time t0 = sc_core::sc_time_stamp();
    Rig::access(*r.cpu0, io_addr(0x40), false);     // inb(0x40): one 8-bit ISA cycle
    Rig::access(*r.cpu0, io_addr(0x42), false, 2);  // a 16-bit access: two ISA cycles
    took = sc_core::sc_time_stamp() - t0;
  });
  sc_core::sc_start(sc_time(1, SC_MS));
  const auto& st = r.cpu0->stats();
  EXPECT_EQ(took, plain_cycle(r) * 2.0 + sc_time(3, SC_US));
  EXPECT_EQ(st.stall.isa, sc_time(3, SC_US));
  EXPECT_EQ(st.stall_max.isa, sc_time(2, SC_US));
  EXPECT_EQ(st.stall.pci, plain_cycle(r) * 2.0);
  EXPECT_EQ(st.io_wait, took);  // the existing total is unchanged by the split
}

TEST(StallAccounting, MissAndPortAccessHeldOffByAnSgEntryAreMemory) {
  fresh_simulation();
  Rig r;
  Script s("s", [&] {
    r.announce_entry(SC_ZERO_TIME, sc_time(100, SC_US));
    sc_core::wait(sc_time(1, SC_US));
    Work w{0, 1};  // one miss at 1 us: held until the entry ends at 100 us
    r.cpu0->run(w);
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_time(100, SC_US) + ps(kDramPs));
    r.announce_entry(sc_time(200, SC_US), sc_time(300, SC_US));
    sc_core::wait(sc_time(210, SC_US) - sc_core::sc_time_stamp());
    Rig::access(*r.cpu0, io_addr(0xe000), false);  // the FSB request waits for 300 us
  });
  sc_core::sc_start(sc_time(1, SC_MS));
  const auto& st = r.cpu0->stats();
  EXPECT_EQ(st.stall_max.memory, sc_time(99, SC_US));
  EXPECT_EQ(st.stall.memory, sc_time(99 + 90, SC_US));
  EXPECT_EQ(st.stall.pci, plain_cycle(r));
  EXPECT_EQ(st.fsb_stall, sc_time(99, SC_US));  // misses only, as before
}

// Three non-posted stores into a one-entry FIFO whose core takes 1 us per entry:
// the first goes straight to the core, the second waits in the FIFO, the third
// finds it full and is held until the core takes the second (1 us after the first).
sc_time third_store_hold(const Rig& r) { return sc_time(1, SC_US) - plain_cycle(r) * 2.0; }

void three_stores(Rig& r) {
  for (int i = 0; i < 3; ++i) Rig::access(*r.cpu0, kFb + kCoreReg, true, 4);
}

TEST(StallAccounting, StoreHeldByAFullPci20VideoFifoIsVideoFifo) {
  fresh_simulation();
  Rig r(video::FullFifoWrite::Pci20Hold);
  Script s("s", [&] {
    sc_core::wait(sc_time(1, SC_US));
    three_stores(r);
  });
  sc_core::sc_start(sc_time(1, SC_MS));
  const auto& st = r.cpu0->stats().stall;
  EXPECT_EQ(st.video_fifo, third_store_hold(r));
  EXPECT_EQ(st.pci, plain_cycle(r) * 3.0);
  EXPECT_EQ(r.card->stats().hold_total, third_store_hold(r));
}

TEST(StallAccounting, RetriedStoreToAPci21VideoFifoChargesEveryLostAttemptToVideoFifo) {
  fresh_simulation();
  Rig r(video::FullFifoWrite::Pci21Retry);
  Script s("s", [&] {
    sc_core::wait(sc_time(1, SC_US));
    three_stores(r);
  });
  sc_core::sc_start(sc_time(1, SC_MS));
  const auto& st = r.cpu0->stats().stall;
  ASSERT_EQ(r.card->stats().retries, 1u);  // 16-clock limit, 2-clock backoff, then held
  // From the first attempt's data phase to the entry freeing, whatever the mix of
  // Retry and wait states, is the FIFO's; the one successful cycle is PCI's.
  EXPECT_EQ(st.video_fifo, third_store_hold(r));
  EXPECT_EQ(st.pci, plain_cycle(r) * 3.0);
}

TEST(StallAccounting, OtherCpuQueuedBehindAHeldVideoWriteIsVideoFifo) {
  fresh_simulation();
  Rig r(video::FullFifoWrite::Pci20Hold);
  sc_time queued_at, done_at;
  Script s0("s0", [&] {
    sc_core::wait(sc_time(1, SC_US));
    three_stores(r);
    done_at = sc_core::sc_time_stamp();
  });
  Script s1("s1", [&] {
    // Start while the third store is held (it is issued 2 plain cycles after 1 us).
    sc_core::wait(sc_time(1, SC_US) + plain_cycle(r) * 2.0 + clocks(10));
    queued_at = sc_core::sc_time_stamp();
    Rig::access(*r.cpu1, io_addr(0xe000), false);
  });
  sc_core::sc_start(sc_time(1, SC_MS));
  const auto& st = r.cpu1->stats().stall;
  EXPECT_EQ(st.video_fifo, done_at - queued_at);  // the bridge's queue: the held write ahead
  EXPECT_EQ(st.pci, clocks(5));  // its own cycle; it was posted to the bridge while queued
  EXPECT_EQ(r.cpu0->stats().stall.video_fifo, third_store_hold(r));
}

TEST(StallAccounting, SpinUntilTheLockIsReleasedIsSpin) {
  fresh_simulation();
  Rig r;
  sc_core::sc_event released;
  Script holder("holder", [&] {
    sc_core::wait(sc_time(9, SC_US));
    released.notify();  // spin_unlock on the other CPU
  });
  Script spinner("spinner", [&] {
    sc_core::wait(sc_time(2, SC_US));
    EXPECT_TRUE(r.cpu1->spin_until(released));
  });
  sc_core::sc_start(sc_time(1, SC_MS));
  EXPECT_EQ(r.cpu1->stats().stall.spin, sc_time(7, SC_US));
  EXPECT_EQ(r.cpu1->stats().stall_max.spin, sc_time(7, SC_US));
  EXPECT_EQ(r.cpu0->stats().stall.spin, SC_ZERO_TIME);
}

}  // namespace
}  // namespace latsim::cpu
