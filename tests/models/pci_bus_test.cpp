// 33 MHz PCI bus: when the host bridge gets GNT# while a bus master's burst
// train is active (burst end + 2 clocks arbitration, bounded by the master's
// latency timer), address decode to targets, per-access cycle time, master abort;
// a host transaction holds the bus until its target ends it (free_at), and a
// master's train not yet started then is deferred to the hold's end.
#include "models/pci/pci_bus.h"
#include "models/pci/target_termination.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <functional>
#include <vector>

namespace latsim::pci {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;

constexpr uint64_t kClkPs = 30003;  // round(1e6 / 33.33) ps
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }
constexpr int kArbitrationClocks = 2;  // highest-priority master's arbitration latency

// A target that records what it was asked and answers a fixed pattern.
struct TinyTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<TinyTarget> socket;
  std::vector<uint64_t> addresses;
  std::vector<sc_time> delays_seen;
  sc_time own_delay;
  uint8_t last_written = 0;
  explicit TinyTarget(sc_core::sc_module_name n, sc_time own = SC_ZERO_TIME)
      : sc_module(n), socket("socket"), own_delay(own) {
    socket.register_b_transport(this, &TinyTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time& delay) {
    addresses.push_back(p.get_address());
    delays_seen.push_back(delay);
    if (p.is_read())
      for (unsigned i = 0; i < p.get_data_length(); ++i) p.get_data_ptr()[i] = uint8_t(0xa0 + i);
    else
      last_written = p.get_data_ptr()[0];
    delay += own_delay;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// Runs a test body as an SC_THREAD.
using latsim::test::Script;

// A DMA train: `n` bursts every `period` clocks, each occupying the bus `tenure` clocks.
BurstTrain train(int master, sc_time start, uint64_t n, uint64_t period, uint64_t tenure) {
  BurstTrain t;
  t.master = master;
  t.start = start;
  t.period = clocks(period);
  t.tenure = clocks(tenure);
  t.end = start + clocks((n - 1) * period + tenure);  // last data phase done
  t.bytes = n * 16;
  return t;
}

TEST(PciBusGrant, IdleBusGrantsHostAtOnce) {
  fresh_simulation();
  PciBus pci{"pci"};
  EXPECT_EQ(to_ps(pci.clock()), kClkPs);
  EXPECT_EQ(pci.host_grant_time(sc_time(5, SC_US)), sc_time(5, SC_US));
}

TEST(PciBusGrant, InsideABurstHostWaitsForBurstEndPlusArbitration) {
  fresh_simulation();
  PciBus pci{"pci"};
  const int ide = pci.add_master("ide");
  EXPECT_EQ(ide, 1);
  const sc_time start = sc_time(10, SC_US);
  pci.announce(train(ide, start, 10, 12, 8));  // 16-byte bursts: 8 clocks of 12
  // REQ# at 2 clocks into burst 3: burst 3 ends at start + 3*12 + 8 clocks.
  const sc_time t = start + clocks(3 * 12 + 2);
  EXPECT_EQ(pci.host_grant_time(t), start + clocks(3 * 12 + 8 + kArbitrationClocks));
  // First clock of the train (FRAME# of burst 0).
  EXPECT_EQ(pci.host_grant_time(start), start + clocks(8 + kArbitrationClocks));
  // Last burst: its end is the train's end.
  EXPECT_EQ(pci.host_grant_time(start + clocks(9 * 12 + 7)),
            start + clocks(9 * 12 + 8 + kArbitrationClocks));
}

TEST(PciBusGrant, BetweenBurstsAndOutsideTheTrainNoWait) {
  fresh_simulation();
  PciBus pci{"pci"};
  const int ide = pci.add_master("ide");
  const sc_time start = sc_time(10, SC_US);
  const BurstTrain tr = train(ide, start, 10, 12, 8);
  pci.announce(tr);
  for (uint64_t gap_clock : {8, 9, 11}) {  // idle clocks 8..11 of burst 3's period
    const sc_time t = start + clocks(3 * 12 + gap_clock);
    EXPECT_EQ(pci.host_grant_time(t), t) << "clock " << gap_clock;
  }
  EXPECT_EQ(pci.host_grant_time(start - ps(1)), start - ps(1));
  EXPECT_EQ(pci.host_grant_time(tr.end), tr.end);
}

TEST(PciBusGrant, BackToBackBurstsYieldToTheHostAfterOneBurst) {
  fresh_simulation();
  PciBus pci{"pci"};
  const int ide = pci.add_master("ide");
  const sc_time start = sc_time(10, SC_US);
  // udma4 through a 16-byte line buffer: 8-clock tenures every 8 clocks, the bus saturated.
  pci.announce(train(ide, start, 256, 8, 8));
  // REQ# 3 clocks into burst 5: the host gets GNT# at that burst's end plus arbitration,
  // and the master's next burst queues behind it rather than being waited for too.
  const sc_time t = start + clocks(5 * 8 + 3);
  EXPECT_EQ(pci.host_grant_time(t), start + clocks(6 * 8 + kArbitrationClocks));
}

TEST(PciBusGrant, LatencyTimerBoundsWaitForALongTenure) {
  fresh_simulation();
  PciBus pci{"pci"};
  const int m = pci.add_master("greedy");
  const sc_time start = sc_time(10, SC_US);
  pci.announce(train(m, start, 4, 300, 256));  // 256-clock tenures (1 KiB bursts)
  const sc_time frame = start + clocks(300);   // burst 1
  // REQ# (GNT# removed from the master) 10 clocks into the burst: the master keeps
  // the bus until its 64-clock timer expires, then one data phase (PCI 2.1 3.5.4).
  EXPECT_EQ(pci.host_grant_time(frame + clocks(10)), frame + clocks(64 + 1 + kArbitrationClocks));
  // After expiry the master leaves at the next data phase.
  EXPECT_EQ(pci.host_grant_time(frame + clocks(100)), frame + clocks(100 + 1 + kArbitrationClocks));
  // A lower timer bounds it tighter.
  pci.latency_timer().set_clocks(32);
  EXPECT_EQ(pci.host_grant_time(frame + clocks(10)), frame + clocks(32 + 1 + kArbitrationClocks));
  // Latency timer mechanism off: the host waits for the whole 256-clock tenure.
  pci.set_latency_timer_enabled(false);
  EXPECT_EQ(pci.host_grant_time(frame + clocks(10)), frame + clocks(256 + kArbitrationClocks));
}

TEST(PciBusGrant, ShortBurstsAreNotCutByTheTimer) {
  fresh_simulation();
  PciBus pci{"pci"};
  const int m = pci.add_master("ide");
  const sc_time start = sc_time(10, SC_US);
  pci.announce(train(m, start, 5, 12, 8));
  pci.set_latency_timer_enabled(false);
  const sc_time without = pci.host_grant_time(start + clocks(1));
  pci.set_latency_timer_enabled(true);
  EXPECT_EQ(pci.host_grant_time(start + clocks(1)), without);
  EXPECT_EQ(without, start + clocks(8 + kArbitrationClocks));
}

TEST(PciBusGrant, AnnouncedTrainReachesListenersAndStats) {
  fresh_simulation();
  struct Log : MasterTrafficListener {
    std::vector<BurstTrain> trains;
    void master_traffic(const BurstTrain& t) override { trains.push_back(t); }
  } log;
  PciBus pci{"pci"};
  pci.add_listener(log);
  const int m = pci.add_master("ide");
  const BurstTrain tr = train(m, sc_time(10, SC_US), 10, 12, 8);
  pci.announce(tr);
  ASSERT_EQ(log.trains.size(), 1u);
  EXPECT_EQ(log.trains[0].start, tr.start);
  EXPECT_EQ(log.trains[0].end, tr.end);
  // Busy time = tenure x number of periods in [start, end): (9*12+8)/12 = 9.667 periods.
  const double bursts = (tr.end - tr.start) / tr.period;
  EXPECT_EQ(pci.stats().busy, tr.tenure * bursts);
  EXPECT_EQ(pci.stats().master_busy.at(m), tr.tenure * bursts);
  EXPECT_EQ(pci.master_names(), (std::vector<std::string>{"host-bridge", "ide"}));
}

TEST(PciBusTransport, DecodesToTargetWithOffsetAndCharges3PlusInitialLatencyClocks) {
  fresh_simulation();
  PciBus pci{"pci"};
  TinyTarget fast("fast"), slow("slow", sc_time(40, SC_NS));
  TestInitiator host("host");
  host.socket.bind(pci.host_socket);
  pci.target_socket.bind(fast.socket);  // port 0
  pci.target_socket.bind(slow.socket);  // port 1
  pci.map(io_addr(0x1f0), 8, 0, "taskfile", 2, 0x000);
  pci.map(io_addr(0x3f6), 1, 0, "control", 2, 0x100);
  pci.map(0xfec00000, 0x20, 1, "mmio", 6, 0);

  std::vector<sc_time> delays;
  uint32_t mmio_value = 0;
  uint8_t status = 0;
  Script s("s", [&] {
    sc_time d = SC_ZERO_TIME;
    status = host.read8(io_addr(0x1f7), d);  // taskfile + 7
    delays.push_back(d);
    d = SC_ZERO_TIME;
    host.write8(io_addr(0x3f6), 0x02, d);  // control register: target offset 0x100
    delays.push_back(d);
    d = sc_time(7, SC_NS);  // an already annotated delay is added to, not replaced
    mmio_value = host.read32(0xfec00010, d);
    delays.push_back(d);
  });
  sc_core::sc_start();

  ASSERT_EQ(fast.addresses.size(), 2u);
  EXPECT_EQ(fast.addresses[0], 0x7u);
  EXPECT_EQ(fast.addresses[1], 0x100u);
  EXPECT_EQ(fast.last_written, 0x02);
  EXPECT_EQ(status, 0xa0);
  ASSERT_EQ(slow.addresses.size(), 1u);
  EXPECT_EQ(slow.addresses[0], 0x10u);
  EXPECT_EQ(mmio_value, 0xa3a2a1a0u);
  // Address phase + turnaround + one data phase (3) + target's DEVSEL/initial wait states,
  // charged before the target adds its own time.
  ASSERT_EQ(delays.size(), 3u);
  EXPECT_EQ(delays[0], clocks(3 + 2));
  EXPECT_EQ(fast.delays_seen[0], clocks(3 + 2));
  EXPECT_EQ(delays[1], clocks(3 + 2));
  EXPECT_EQ(slow.delays_seen[0], sc_time(7, SC_NS) + clocks(3 + 6));
  EXPECT_EQ(delays[2], sc_time(7, SC_NS) + clocks(3 + 6) + sc_time(40, SC_NS));
  EXPECT_EQ(pci.stats().cpu_transactions, 3u);
}

TEST(PciBusTransport, MasterAbortReadsAllOnesAfterSubtractiveTimeout) {
  fresh_simulation();
  PciBus pci{"pci"};
  TinyTarget t("t");
  TestInitiator host("host");
  host.socket.bind(pci.host_socket);
  pci.target_socket.bind(t.socket);
  pci.map(io_addr(0x1f0), 8, 0, "taskfile", 2);
  uint32_t v32 = 0, written = 0x12345678;
  uint8_t v8 = 0;
  sc_time d32, d8, dw;
  Script s("s", [&] {
    d32 = SC_ZERO_TIME;
    v32 = host.read32(0xe0000000, d32);
    d8 = SC_ZERO_TIME;
    v8 = host.read8(io_addr(0x1f8), d8);  // one past the mapped range
    dw = SC_ZERO_TIME;
    host.access(tlm::TLM_WRITE_COMMAND, io_addr(0x2f8), &written, 4, dw);
  });
  sc_core::sc_start();
  EXPECT_EQ(v32, 0xffffffffu);
  EXPECT_EQ(v8, 0xff);
  EXPECT_EQ(d32, clocks(6));  // no DEVSEL#: master abort after the decode timeout
  EXPECT_EQ(d8, clocks(6));
  EXPECT_EQ(dw, clocks(6));
  // TLM-2.0: a target never modifies the data array of a write.
  EXPECT_EQ(written, 0x12345678u);
  EXPECT_TRUE(t.addresses.empty());
  EXPECT_EQ(pci.stats().cpu_transactions, 0u);
}

TEST(PciBusHold, HeldTransactionKeepsTheBusAndDefersATrainThatWouldStartInside) {
  fresh_simulation();
  PciBus pci{"pci"};
  TinyTarget slow("slow", sc_time(10, SC_US));  // wait states until a FIFO entry drains
  TestInitiator host("host");
  host.socket.bind(pci.host_socket);
  pci.target_socket.bind(slow.socket);
  pci.map(0xe0000000, 0x100, 0, "video", 2);
  std::vector<std::pair<BurstTrain, BurstTrain>> told;  // what the master heard
  const int ide = pci.add_master(
      "ide", [&](const BurstTrain& b, const BurstTrain& a) { told.emplace_back(b, a); });
  struct Log : MasterTrafficListener {
    int deferred = 0;
    void master_traffic(const BurstTrain&) override {}
    void master_traffic_deferred(const BurstTrain&, const BurstTrain&) override { deferred++; }
  } log;
  pci.add_listener(log);
  const sc_time t0 = sc_time(5, SC_US);
  const sc_time hold_end = t0 + clocks(3 + 2) + sc_time(10, SC_US);
  const BurstTrain inside = train(ide, t0 + sc_time(2, SC_US), 4, 12, 8);
  const BurstTrain after = train(ide, hold_end + sc_time(1, SC_US), 4, 12, 8);
  pci.announce(inside);
  pci.announce(after);
  sc_time free_inside, grant_inside, free_at_end;
  Script s("s", [&] {
    sc_core::wait(t0);
    sc_time d = SC_ZERO_TIME;
    host.write8(0xe0000000, 1, d);
    sc_core::wait(sc_time(1, SC_US));
    free_inside = pci.free_at(sc_core::sc_time_stamp());
    grant_inside = pci.host_grant_time(sc_core::sc_time_stamp());
    free_at_end = pci.free_at(hold_end);
  });
  sc_core::sc_start();
  EXPECT_EQ(free_inside, hold_end);
  EXPECT_EQ(free_at_end, hold_end);  // [start, end): free again at the end
  // The master whose REQ# waited through the hold goes first, then arbitration.
  EXPECT_EQ(grant_inside, hold_end + clocks(8 + kArbitrationClocks));
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].first.start, inside.start);
  EXPECT_EQ(told[0].second.start, hold_end);
  EXPECT_EQ(told[0].second.end, inside.end + (hold_end - inside.start));
  EXPECT_EQ(told[0].second.period, inside.period);
  EXPECT_EQ(log.deferred, 1);
  EXPECT_EQ(pci.stats().host_busy, hold_end - t0);
  EXPECT_EQ(pci.stats().longest_transaction, hold_end - t0);
  EXPECT_EQ(pci.stats().retries, 0u);
}

// A Retry ends the attempt at the 16-clock limit: the bus is held only that long.
TEST(PciBusHold, RetriedAttemptHoldsTheBusOnlyUntilStop) {
  fresh_simulation();
  struct Retrier : sc_core::sc_module {
    tlm_utils::simple_target_socket<Retrier> socket;
    explicit Retrier(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
      socket.register_b_transport(this, &Retrier::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& p, sc_time& delay) {
      delay += clocks(kInitialLatencyLimitClocks - 2);
      signal_retry(p);
    }
  } target("target");
  PciBus pci{"pci"};
  TestInitiator host("host");
  host.socket.bind(pci.host_socket);
  pci.target_socket.bind(target.socket);
  pci.map(0xe0000000, 0x100, 0, "video", 2);
  tlm::tlm_response_status st = tlm::TLM_OK_RESPONSE;
  sc_time d, free_in, free_after;
  Script s("s", [&] {
    uint32_t v = 1;
    d = SC_ZERO_TIME;
    st = host.access(tlm::TLM_WRITE_COMMAND, 0xe0000000, &v, 4, d);
    free_in = pci.free_at(clocks(18));
    free_after = pci.free_at(clocks(19));
  });
  sc_core::sc_start();
  EXPECT_TRUE(st == tlm::TLM_INCOMPLETE_RESPONSE);
  EXPECT_EQ(d, clocks(3 + kInitialLatencyLimitClocks));
  EXPECT_EQ(free_in, clocks(19));
  EXPECT_EQ(free_after, clocks(19));
  EXPECT_EQ(pci.stats().retries, 1u);
  EXPECT_EQ(pci.stats().host_busy, clocks(19));
}

}  // namespace
}  // namespace latsim::pci
