// PCI 2.1 3.3.3.3 delayed transactions, seen from the host bridge: a CPU read of
// a target that needs 1 us (an ISA cycle behind the south bridge) is latched and
// answered with Retry; the bus is free while the target works; the bridge's
// identical retry after completion gets the data. Also Memory Write and
// Invalidate finishing its cache line, and the bus statistics (per-master
// tenure, CPU wait histogram).
#include "models/chipset/host_bridge.h"
#include "models/pci/pci_bus.h"
#include "models/pci/target_termination.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <cstring>
#include <memory>
#include <vector>

namespace latsim::pci {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;

constexpr uint64_t kClkPs = 30003;  // 33.33 MHz PCI clock
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }
constexpr uint16_t kPort = 0x40;
constexpr int kDecode = 2;  // the target's DEVSEL + initial wait states

// A target that takes `own` for each access on its far side (an ISA cycle).
struct FarTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<FarTarget> socket;
  sc_time own;
  std::vector<sc_time> seen_at;
  uint8_t next = 0x10;
  FarTarget(sc_core::sc_module_name n, sc_time o) : sc_module(n), socket("socket"), own(o) {
    socket.register_b_transport(this, &FarTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time& delay) {
    seen_at.push_back(sc_core::sc_time_stamp());
    if (p.is_read()) *p.get_data_ptr() = next++;  // a PIT count: each read differs
    delay += own;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Rig {
  PciBus pci{"pci"};
  chipset::Dram dram{1ull << 20};
  std::unique_ptr<chipset::HostBridge> hb;
  FarTarget dev;
  explicit Rig(bool delayed, sc_time own = sc_time(1, SC_US)) : dev("dev", own) {
    chipset::HostBridgeParams p;
    p.holdoff = chipset::CpuHoldoff::None;
    hb = std::make_unique<chipset::HostBridge>("hb", p, pci, dram);
    pci.target_socket.bind(dev.socket);
    pci.map(io_addr(kPort), 4, 0, "isa", kDecode);
    pci.set_delayed_transactions("isa", delayed);
  }
  uint8_t inb() {
    uint8_t v = 0;
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(io_addr(kPort));
    p.set_data_ptr(&v);
    p.set_data_length(1);
    p.set_streaming_width(1);
    hb->cpu_pci_access(p);
    return v;
  }
  sc_time cpu_to_pci() const { return hb->params().cpu_to_pci; }
};

TEST(PciDelayedTransaction, SlowReadIsRetriedUntilTheTargetHasTheData) {
  fresh_simulation();
  Rig r(true);
  const sc_time t0 = sc_time(1, SC_US);
  sc_time done, free_during;
  uint8_t v = 0;
  Script s("s", [&] {
    sc_core::wait(t0);
    v = r.inb();
    done = sc_core::sc_time_stamp();
  });
  const sc_time g1 = t0 + r.cpu_to_pci();
  Script probe("probe", [&] {
    sc_core::wait(g1 + clocks(6));  // in the back-off gap after the first Retry
    free_during = r.pci.free_at(sc_core::sc_time_stamp());
  });
  sc_core::sc_start();
  // Attempt 1 at g1: latched, Retry after address + DEVSEL + STOP# (3 + 2 clocks).
  // The target's far side is done at g1 + 5 clocks + 1 us. The bridge releases REQ#
  // for 2 clocks and tries again every 7 clocks: attempt k at g1 + 7k clocks; the
  // first at or after g1 + 5 clocks + 1 us (38.3 clocks) is k = 6, at 42 clocks.
  ASSERT_EQ(r.dev.seen_at.size(), 1u);  // the target ran the cycle once, at the latch
  EXPECT_EQ(r.dev.seen_at[0], g1);
  EXPECT_EQ(done, g1 + clocks(6 * 7 + 3 + kDecode));
  EXPECT_EQ(v, 0x10);
  EXPECT_EQ(free_during, g1 + clocks(6));  // nobody holds the bus meanwhile
  EXPECT_EQ(r.pci.stats().delayed_latched, 1u);
  EXPECT_EQ(r.pci.stats().delayed_completed, 1u);
  EXPECT_EQ(r.pci.stats().retries, 6u);
  EXPECT_EQ(r.hb->stats().retries, 6u);
  EXPECT_EQ(r.pci.stats().host_busy, clocks(7 * (3 + kDecode)));  // 7 short attempts only
  // The CPU waited from REQ# to the GNT# of the completing attempt.
  EXPECT_EQ(r.pci.stats().cpu_waits, 1u);
  EXPECT_EQ(r.pci.stats().longest_cpu_wait, clocks(42));
}

TEST(PciDelayedTransaction, WithoutItTheTargetHoldsTheBusForItsWholeCycle) {
  fresh_simulation();
  Rig r(false);
  const sc_time t0 = sc_time(1, SC_US);
  sc_time done, free_during;
  Script s("s", [&] {
    sc_core::wait(t0);
    r.inb();
    done = sc_core::sc_time_stamp();
  });
  const sc_time g1 = t0 + r.cpu_to_pci();
  Script probe("probe", [&] {
    sc_core::wait(g1 + clocks(6));
    free_during = r.pci.free_at(sc_core::sc_time_stamp());
  });
  sc_core::sc_start();
  EXPECT_EQ(done, g1 + clocks(3 + kDecode) + sc_time(1, SC_US));
  EXPECT_EQ(free_during, done);  // wait states: a master's REQ# waits the whole microsecond
  EXPECT_EQ(r.pci.stats().delayed_latched, 0u);
  EXPECT_EQ(r.pci.stats().retries, 0u);
}

TEST(PciDelayedTransaction, FastTargetCompletesAtOnceEvenWhenEnabled) {
  fresh_simulation();
  Rig r(true, clocks(14 - kDecode));  // initial data phase at clock 14 <= 16: no Retry
  sc_time done;
  Script s("s", [&] {
    sc_core::wait(sc_time(1, SC_US));
    r.inb();
    done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(done, sc_time(1, SC_US) + r.cpu_to_pci() + clocks(3 + 14));
  EXPECT_EQ(r.pci.stats().delayed_latched, 0u);
  EXPECT_EQ(r.pci.stats().retries, 0u);
}

TEST(PciDelayedTransaction, BusMasterBurstsRunWhileTheTargetWorks) {
  fresh_simulation();
  Rig r(true);
  const int ide = r.pci.add_master("ide");
  std::vector<BurstTrain> deferred;
  struct Log : MasterTrafficListener {
    std::vector<BurstTrain>* out;
    void master_traffic(const BurstTrain&) override {}
    void master_traffic_deferred(const BurstTrain&, const BurstTrain& a) override {
      out->push_back(a);
    }
  } log;
  log.out = &deferred;
  r.pci.add_listener(log);
  const sc_time t0 = sc_time(1, SC_US);
  const sc_time g1 = t0 + r.cpu_to_pci();
  // One 8-clock burst that asks for the bus 20 clocks after the read was latched.
  BurstTrain b;
  b.master = ide;
  b.start = g1 + clocks(20);
  b.period = b.tenure = clocks(8);
  b.end = b.start + clocks(8);
  b.bytes = 16;
  r.pci.announce(b);
  sc_time done;
  Script s("s", [&] {
    sc_core::wait(t0);
    r.inb();
    done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // Attempts at 0, 7, 14 clocks; the one due at 21 meets the burst (20..28) and gets
  // GNT# at 28 + 2 = 30; then 37, 44 (>= 38.3: data). Without the delayed
  // transaction the burst would have waited for the whole microsecond.
  EXPECT_TRUE(deferred.empty());
  EXPECT_EQ(done, g1 + clocks(44 + 3 + kDecode));
  EXPECT_EQ(r.pci.stats().retries, 5u);
}

// --- Memory Write and Invalidate (PCI 2.1 3.5.4) ---

TEST(PciMemoryWriteInvalidate, TimerExpiryWaitsForTheCacheLineBoundary) {
  fresh_simulation();
  const sc_time clk = clocks(1);
  const LatencyTimer lt(32, clk);
  const sc_time frame = sc_time(10, SC_US);
  const sc_time natural = frame + clocks(512);
  // GNT# removed at clock 34 (after the 32-clock expiry): a plain Memory Write leaves
  // after one more data phase, at 35. MWI with 8-dword lines (data phases from clock
  // 1) has done 34 data phases, in its 5th line: it leaves when that ends, at 41.
  EXPECT_EQ(lt.tenure_end(frame, natural, frame + clocks(34)), frame + clocks(35));
  EXPECT_EQ(lt.tenure_end_mwi(frame, natural, frame + clocks(34), 8), frame + clocks(41));
  // GNT# removed early: release at expiry + 1 = 33, a line boundary (4 lines): no extra.
  EXPECT_EQ(lt.tenure_end_mwi(frame, natural, frame + clocks(3), 8), frame + clocks(33));
  // Never beyond the burst's natural end.
  EXPECT_EQ(lt.tenure_end_mwi(frame, frame + clocks(38), frame + clocks(34), 8),
            frame + clocks(38));
  // Line of 0: not MWI.
  EXPECT_EQ(lt.tenure_end_mwi(frame, natural, frame + clocks(34), 0), frame + clocks(35));
}

TEST(PciMemoryWriteInvalidate, HostGrantWaitsForTheLineOfAnMwiMaster) {
  fresh_simulation();
  PciBusParams p;
  p.latency_timer = 32;
  PciBus pci("pci", p);
  const int m = pci.add_master("ide");
  BurstTrain t;
  t.master = m;
  t.start = sc_time(10, SC_US);
  t.period = clocks(200);
  t.tenure = clocks(130);  // 128 data phases + address + idle: long enough to be cut
  t.end = t.start + clocks(200 + 130);
  t.bytes = 1024;
  BurstTrain mwi = t;  // the same master writing with MWI, later
  mwi.start = t.start + sc_time(20, SC_US);
  mwi.end = t.end + sc_time(20, SC_US);
  mwi.mwi_line_clocks = 8;
  pci.announce(t);
  pci.announce(mwi);
  // Host REQ# at clock 34 of a burst: the timer (32) has expired; GNT# goes away.
  EXPECT_EQ(pci.host_grant_time(t.start + clocks(34)),
            t.start + clocks(35 + 2));  // one data phase, then 2 clocks arbitration
  EXPECT_EQ(pci.host_grant_time(mwi.start + clocks(34)),
            mwi.start + clocks(41 + 2));  // the end of the 5th cache line
}

// --- statistics ---

TEST(PciStatistics, LongestTenurePerMasterAndCpuWaitHistogram) {
  fresh_simulation();
  Rig r(false, clocks(0));
  const int ide = r.pci.add_master("ide");
  const int nic = r.pci.add_master("nic");
  auto train = [&](int m, sc_time start, uint64_t n, uint64_t period, uint64_t tenure) {
    BurstTrain t;
    t.master = m;
    t.start = start;
    t.period = clocks(period);
    t.tenure = clocks(tenure);
    t.end = start + clocks((n - 1) * period + tenure);
    t.bytes = n * 16;
    return t;
  };
  r.pci.announce(train(ide, sc_time(100, SC_US), 10, 12, 8));
  r.pci.announce(train(ide, sc_time(200, SC_US), 4, 40, 24));
  r.pci.announce(train(nic, sc_time(300, SC_US), 3, 20, 16));
  // Two CPU reads: one on an idle bus, one 2 clocks into an 8-clock IDE burst.
  const sc_time in_burst = sc_time(100, SC_US) + clocks(2) - r.cpu_to_pci();
  Script s("s", [&] {
    sc_core::wait(sc_time(50, SC_US));
    r.inb();
    sc_core::wait(in_burst - sc_core::sc_time_stamp());
    r.inb();
  });
  sc_core::sc_start();
  const PciStats& st = r.pci.stats();
  EXPECT_EQ(st.longest_tenure.at(ide), clocks(24));
  EXPECT_EQ(st.longest_tenure.at(nic), clocks(16));
  EXPECT_EQ(st.cpu_waits, 2u);
  EXPECT_EQ(st.longest_cpu_wait, clocks(8 - 2 + 2));  // rest of the burst + arbitration
  EXPECT_EQ(st.cpu_wait_total, clocks(8));
  ASSERT_EQ(st.cpu_wait_hist.size(), cpu_wait_buckets_us().size() + 1);
  EXPECT_EQ(st.cpu_wait_hist[0], 2u);  // both under 1 us (0 and 240 ns)
  // A wait of 1.5 us lands in [1, 2), one of 5 ms in the open last bucket.
  r.pci.record_cpu_wait(sc_time(1.5, SC_US));
  r.pci.record_cpu_wait(sc_time(5, SC_MS));
  EXPECT_EQ(r.pci.stats().cpu_wait_hist[1], 1u);
  EXPECT_EQ(r.pci.stats().cpu_wait_hist.back(), 1u);
}

}  // namespace
}  // namespace latsim::pci
