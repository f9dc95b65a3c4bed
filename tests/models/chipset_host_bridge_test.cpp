// North bridge CPU-holdoff policies against one announced bus-master train:
// None (CPU never held), SgEntry (held until the scatter-gather entry is done),
// Grants (held for N consecutive master grants: VIA 8363/8371 + 686B) and
// Rotate (master priority rotates on every grant: held for the current burst only).
// Then the CPU-to-PCI side: posted memory writes, PCI ordering of reads and I/O
// behind them, and Retry with re-arbitration after the REQ# release.
#include "models/chipset/host_bridge.h"
#include "models/pci/target_termination.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace latsim::chipset {
namespace {

using latsim::testing::fresh_simulation;

constexpr uint64_t kClkPs = 30003;  // 33.33 MHz PCI clock
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }

struct TinyTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<TinyTarget> socket;
  std::vector<sc_time> seen_at;  // sc_time_stamp when the cycle reached the target
  explicit TinyTarget(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &TinyTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time&) {
    seen_at.push_back(sc_core::sc_time_stamp());
    if (p.is_read()) *p.get_data_ptr() = 0x42;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

using latsim::test::Script;

// One PRD entry as the IDE controller announces it: 10 bursts of 8 clocks every 12 clocks.
constexpr uint64_t kBursts = 10, kPeriod = 12, kTenure = 8;

struct Rig {
  pci::PciBus pci{"pci"};
  Dram dram{64ull << 20};
  std::unique_ptr<HostBridge> hb;
  pci::BurstTrain tr;
  int ide = 0;

  explicit Rig(CpuHoldoff policy, int grants = 3, bool to_memory = true) {
    HostBridgeParams p;
    p.holdoff = policy;
    p.holdoff_grants = grants;
    hb = std::make_unique<HostBridge>("hb", p, pci, dram);
    ide = pci.add_master("ide");
    tr.master = ide;
    tr.start = sc_time(100, SC_US);
    tr.period = clocks(kPeriod);
    tr.tenure = clocks(kTenure);
    tr.end = tr.start + clocks((kBursts - 1) * kPeriod + kTenure);
    tr.bytes = kBursts * 16;
    tr.to_memory = to_memory;
    pci.announce(tr);  // the host bridge hears it as a MasterTrafficListener
  }
  // A time `c` clocks into burst k.
  sc_time in_burst(uint64_t k, uint64_t c) const { return tr.start + clocks(k * kPeriod + c); }
};

TEST(HostBridgeHoldoff, NoneNeverHoldsTheCpu) {
  fresh_simulation();
  Rig r(CpuHoldoff::None);
  for (uint64_t k : {0, 4, 9})
    for (uint64_t c : {0, 3, 9}) EXPECT_EQ(r.hb->cpu_ready(r.in_burst(k, c)), r.in_burst(k, c));
  EXPECT_EQ(r.hb->next_holdoff(SC_ZERO_TIME), sc_core::sc_max_time());
}

TEST(HostBridgeHoldoff, SgEntryHoldsCpuUntilEntryEnds) {
  fresh_simulation();
  Rig r(CpuHoldoff::SgEntry);
  // Any t inside [start, end) waits for the whole entry, burst or gap alike.
  for (uint64_t k : {0, 4, 9})
    for (uint64_t c : {0, 3, 9}) {
      const sc_time t = r.in_burst(k, c);
      if (t >= r.tr.end) continue;
      EXPECT_EQ(r.hb->cpu_ready(t), r.tr.end) << "burst " << k << " clock " << c;
    }
  EXPECT_EQ(r.hb->cpu_ready(r.tr.start), r.tr.end);
  EXPECT_EQ(r.hb->cpu_ready(r.tr.end - ps(1)), r.tr.end);
  // Outside the entry: no holdoff.
  EXPECT_EQ(r.hb->cpu_ready(r.tr.start - ps(1)), r.tr.start - ps(1));
  EXPECT_EQ(r.hb->cpu_ready(r.tr.end), r.tr.end);
}

TEST(HostBridgeHoldoff, GrantsHoldsCpuForTheCurrentGroupOfThreeBursts) {
  fresh_simulation();
  Rig r(CpuHoldoff::Grants, 3);
  // Bursts are grouped 0-2, 3-5, 6-8, 9: the CPU waits for the last burst of its group.
  auto group_end = [&](uint64_t k) {
    const uint64_t last = (k / 3) * 3 + 2;
    return std::min(r.tr.start + clocks(last * kPeriod + kTenure), r.tr.end);
  };
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(0, 0)), r.in_burst(2, kTenure));
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(1, 10)), r.in_burst(2, kTenure));  // in a gap of the group
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(4, 5)), r.in_burst(5, kTenure));
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(9, 2)), r.tr.end);  // last, short group ends with the train
  for (uint64_t k = 0; k < kBursts; ++k)
    EXPECT_EQ(r.hb->cpu_ready(r.in_burst(k, 1)), group_end(k)) << "burst " << k;
  // In the idle gap after the group's last burst, the CPU gets through at once.
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(5, 9)), r.in_burst(5, 9));
}

TEST(HostBridgeHoldoff, GrantsGroupSizeIsAParameter) {
  fresh_simulation();
  Rig r(CpuHoldoff::Grants, 5);
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(1, 0)), r.in_burst(4, kTenure));
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(7, 0)), r.tr.end);  // bursts 5-9, the train's end
}

TEST(HostBridgeHoldoff, RotateHoldsCpuOnlyForTheCurrentBurst) {
  fresh_simulation();
  Rig r(CpuHoldoff::Rotate);
  for (uint64_t k = 0; k < kBursts; ++k) {
    EXPECT_EQ(r.hb->cpu_ready(r.in_burst(k, 0)), r.in_burst(k, kTenure)) << "burst " << k;
    EXPECT_EQ(r.hb->cpu_ready(r.in_burst(k, 7)), r.in_burst(k, kTenure)) << "burst " << k;
  }
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(3, 8)), r.in_burst(3, 8));  // gap
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(3, 11)), r.in_burst(3, 11));
}

TEST(HostBridgeHoldoff, BackToBackBurstsHoldTheCpuForOneTurnOnly) {
  // udma4 through a 16-byte line buffer saturates the bus: 8-clock bursts every 8 clocks.
  // The CPU waits for its turn (one burst when rotating, one group of grants) and then
  // goes before the master's next burst instead of waiting out the whole entry.
  fresh_simulation();
  pci::PciBus pci{"pci"};
  Dram dram{64ull << 20};
  HostBridgeParams p;
  p.holdoff = CpuHoldoff::Rotate;
  HostBridge hb("hb", p, pci, dram);
  pci::BurstTrain tr;
  tr.master = pci.add_master("ide");
  tr.start = sc_time(100, SC_US);
  tr.period = clocks(8);
  tr.tenure = clocks(8);
  tr.end = tr.start + clocks(256 * 8);
  tr.bytes = 4096;
  tr.to_memory = true;
  pci.announce(tr);
  EXPECT_EQ(hb.cpu_ready(tr.start + clocks(5 * 8 + 3)), tr.start + clocks(6 * 8));
  hb.set_policy(CpuHoldoff::Grants);  // 3 grants: bursts 3-5 are a group
  EXPECT_EQ(hb.cpu_ready(tr.start + clocks(4 * 8 + 3)), tr.start + clocks(6 * 8));
  hb.set_policy(CpuHoldoff::SgEntry);  // the rest of the entry
  EXPECT_EQ(hb.cpu_ready(tr.start + clocks(4 * 8 + 3)), tr.end);
}

TEST(HostBridgeHoldoff, MasterReadingMemoryDoesNotHoldCpu) {
  fresh_simulation();
  Rig r(CpuHoldoff::SgEntry, 3, /*to_memory=*/false);  // a disk write: DMA reads DRAM
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(4, 2)), r.in_burst(4, 2));
  EXPECT_EQ(r.hb->next_holdoff(SC_ZERO_TIME), sc_core::sc_max_time());
}

TEST(HostBridgeHoldoff, MissIsAcceptedWhenTheHoldoffEnds) {
  fresh_simulation();
  Rig r(CpuHoldoff::SgEntry);
  EXPECT_EQ(r.hb->cpu_ready(sc_time(1, SC_US)), sc_time(1, SC_US));  // bus idle
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(2, 3)), r.tr.end);            // held
  r.hb->set_policy(CpuHoldoff::Rotate);
  EXPECT_EQ(r.hb->cpu_ready(r.in_burst(2, 3)), r.in_burst(2, kTenure));
}

TEST(HostBridgeHoldoff, NextHoldoffIsTrainStartOrNowInsideIt) {
  fresh_simulation();
  Rig r(CpuHoldoff::SgEntry);
  EXPECT_EQ(r.hb->next_holdoff(SC_ZERO_TIME), r.tr.start);
  EXPECT_EQ(r.hb->next_holdoff(r.in_burst(3, 9)), r.in_burst(3, 9));
  EXPECT_EQ(r.hb->next_holdoff(r.tr.end), sc_core::sc_max_time());
}

// The full path of an uncached I/O read: held at the host bridge until the IDE's
// entry ends, cpu_to_pci to post the cycle, then PCI GNT# once a second master's
// burst is over (+2 clocks arbitration), then the cycle itself (3 + 2 clocks).
TEST(HostBridgePciAccess, IoCycleBehindTrainPaysHoldoffGrantAndCycle) {
  fresh_simulation();
  Rig r(CpuHoldoff::SgEntry);
  TinyTarget dev("dev");
  r.pci.target_socket.bind(dev.socket);
  r.pci.map(io_addr(0x60), 1, 0, "dev", 2);
  // A NIC reading memory (no CPU holdoff) whose first burst spans the entry's end.
  const int nic = r.pci.add_master("nic");
  pci::BurstTrain tx;
  tx.master = nic;
  tx.start = r.tr.end;
  tx.period = clocks(20);
  tx.tenure = clocks(16);
  tx.end = tx.start + clocks(4 * 20 + 16);
  tx.to_memory = false;
  r.pci.announce(tx);

  const sc_time fsb = r.tr.end;                               // SgEntry holdoff
  const sc_time req = fsb + r.hb->params().cpu_to_pci;        // REQ# on PCI
  ASSERT_TRUE(tx.covers(req) && req < tx.start + tx.tenure);  // inside the NIC's burst 0
  const sc_time grant = tx.start + tx.tenure + clocks(2);     // burst end + arbitration
  // Asked before the run: afterwards the bus also remembers this very cycle's hold.
  EXPECT_EQ(r.pci.host_grant_time(req), grant);

  const sc_time t0 = r.in_burst(4, 2);
  sc_time done;
  uint8_t v = 0;
  Script s("s", [&] {
    sc_core::wait(t0);
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(io_addr(0x60));
    p.set_data_ptr(&v);
    p.set_data_length(1);
    p.set_streaming_width(1);
    r.hb->cpu_pci_access(p);
    done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();

  ASSERT_EQ(dev.seen_at.size(), 1u);
  EXPECT_EQ(dev.seen_at[0], grant);
  EXPECT_EQ(done, grant + clocks(3 + 2));
  EXPECT_EQ(v, 0x42);
}

TEST(HostBridgePciAccess, IdleBusIoCycleCostsPostingPlusCycle) {
  fresh_simulation();
  Rig r(CpuHoldoff::SgEntry);
  TinyTarget dev("dev");
  r.pci.target_socket.bind(dev.socket);
  r.pci.map(io_addr(0x60), 1, 0, "dev", 2);
  sc_time done;
  Script s("s", [&] {
    sc_core::wait(sc_time(1, SC_US));
    uint8_t v = 0;
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(io_addr(0x60));
    p.set_data_ptr(&v);
    p.set_data_length(1);
    p.set_streaming_width(1);
    r.hb->cpu_pci_access(p);
    done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(done, sc_time(1, SC_US) + sc_time(30, SC_NS) + clocks(3 + 2));
}

TEST(HostBridgePciAccess, NoHoldoffPolicyStillWaitsForPciGrant) {
  fresh_simulation();
  Rig r(CpuHoldoff::None);
  TinyTarget dev("dev");
  r.pci.target_socket.bind(dev.socket);
  r.pci.map(io_addr(0x60), 1, 0, "dev", 2);
  const sc_time t0 = r.in_burst(6, 1);
  sc_time done;
  Script s("s", [&] {
    sc_core::wait(t0);
    uint8_t v = 0;
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(io_addr(0x60));
    p.set_data_ptr(&v);
    p.set_data_length(1);
    p.set_streaming_width(1);
    r.hb->cpu_pci_access(p);
    done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // REQ# at t0 + 30 ns (still burst 6): GNT# at burst end + 2 clocks, then 5 clocks.
  EXPECT_EQ(done, r.in_burst(6, kTenure + 2) + clocks(3 + 2));
}

// --- CPU-to-PCI posting, ordering and Retry ---

// A memory/I-O target that adds `own` wait states to each data phase and answers
// the first `retries` attempts with Retry at the 16-clock initial-latency limit.
struct SlowTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<SlowTarget> socket;
  sc_time own;
  int retries = 0;
  std::vector<sc_time> seen_at;
  std::vector<uint32_t> written;
  explicit SlowTarget(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &SlowTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time& delay) {
    seen_at.push_back(sc_core::sc_time_stamp());
    if (retries > 0) {
      --retries;
      delay += clocks(pci::kInitialLatencyLimitClocks - 2);  // 2 = its decode clocks
      return pci::signal_retry(p);
    }
    uint32_t v = 0x42;
    if (p.is_write())
      std::memcpy(&v, p.get_data_ptr(), 4), written.push_back(v);
    else
      std::memcpy(p.get_data_ptr(), &v, 4);
    delay += own;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

constexpr uint64_t kMmio = 0xe0000000;
constexpr uint16_t kPort = 0x60;

struct PostRig {
  pci::PciBus pci{"pci"};
  Dram dram{64ull << 20};
  std::unique_ptr<HostBridge> hb;
  SlowTarget dev{"dev"};

  explicit PostRig(int entries, sc_time own = SC_ZERO_TIME) {
    HostBridgeParams p;
    p.holdoff = CpuHoldoff::None;
    p.posted_write_entries = entries;
    hb = std::make_unique<HostBridge>("hb", p, pci, dram);
    dev.own = own;
    pci.target_socket.bind(dev.socket);
    pci.map(kMmio, 0x100, 0, "dev-mmio", 2);
    pci.map(io_addr(kPort), 4, 0, "dev-io", 2);
  }
  // One CPU access as CpuPort issues it; returns when the CPU may go on.
  uint32_t access(uint64_t addr, bool write, uint32_t v = 0) {
    tlm::tlm_generic_payload p;
    p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.set_address(addr);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    p.set_data_length(4);
    p.set_streaming_width(4);
    hb->cpu_pci_access(p);
    return v;
  }
  sc_time cpu_to_pci() const { return hb->params().cpu_to_pci; }
};

sc_time cycle() { return clocks(3 + 2); }  // idle-bus cycle to a 2-clock-decode target

TEST(HostBridgePostedWrites, MemoryWriteIsPostedIoWriteIsNot) {
  fresh_simulation();
  PostRig r(4);
  const sc_time t0 = sc_time(1, SC_US);
  sc_time posted_done, io_done;
  Script s("s", [&] {
    sc_core::wait(t0);
    r.access(kMmio, true, 7);
    posted_done = sc_core::sc_time_stamp();
    r.access(io_addr(kPort), true, 8);  // PCI 2.2 3.2.5: I/O writes are never posted
    io_done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // The CPU goes on once the bridge has the write; the bridge runs it on PCI.
  EXPECT_EQ(posted_done, t0 + r.cpu_to_pci());
  ASSERT_EQ(r.dev.seen_at.size(), 2u);
  EXPECT_EQ(r.dev.seen_at[0], t0 + r.cpu_to_pci());
  // The I/O write waits for the posted one (one in-order queue), then its own cycle.
  EXPECT_EQ(r.dev.seen_at[1], t0 + r.cpu_to_pci() + cycle());
  EXPECT_EQ(io_done, t0 + r.cpu_to_pci() + cycle() * 2.0);
  EXPECT_EQ(r.dev.written, (std::vector<uint32_t>{7, 8}));
  EXPECT_EQ(r.hb->stats().posted_writes, 1u);
  EXPECT_EQ(r.hb->stats().ordering_wait, cycle());
}

TEST(HostBridgePostedWrites, WithoutPostingAMemoryWriteWaitsForItsCycle) {
  fresh_simulation();
  PostRig r(0);
  const sc_time t0 = sc_time(1, SC_US);
  sc_time done;
  Script s("s", [&] {
    sc_core::wait(t0);
    r.access(kMmio, true, 7);
    done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(done, t0 + r.cpu_to_pci() + cycle());
  EXPECT_EQ(r.hb->stats().posted_writes, 0u);
}

// Two entries in front of a target that holds each write 1 us with wait states:
// the CPU runs on for two stores, then each store waits for the oldest to drain.
TEST(HostBridgePostedWrites, CpuRunsOnUntilTheBufferIsFull) {
  fresh_simulation();
  PostRig r(2, sc_time(1, SC_US));
  const sc_time t0 = sc_time(1, SC_US);
  std::vector<sc_time> done;
  Script s("s", [&] {
    sc_core::wait(t0);
    for (uint32_t i = 1; i <= 4; ++i) {
      r.access(kMmio, true, i);
      done.push_back(sc_core::sc_time_stamp());
    }
  });
  sc_core::sc_start();
  const sc_time post = r.cpu_to_pci(), write = cycle() + sc_time(1, SC_US);
  const sc_time d1 = t0 + post + write;  // first write leaves the buffer
  const sc_time d2 = d1 + write;         // the bus is free at once for the next
  ASSERT_EQ(done.size(), 4u);
  EXPECT_EQ(done[0], t0 + post);
  EXPECT_EQ(done[1], t0 + post * 2.0);
  EXPECT_EQ(done[2], d1);  // the third store is stuck until an entry frees
  EXPECT_EQ(done[3], d2);
  EXPECT_EQ(r.dev.seen_at, (std::vector<sc_time>{t0 + post, d1, d2, d2 + write}));
  EXPECT_EQ(r.dev.written, (std::vector<uint32_t>{1, 2, 3, 4}));
  const auto& st = r.hb->stats();
  EXPECT_EQ(st.posted_writes, 4u);
  EXPECT_EQ(st.max_posted, 2);
  EXPECT_EQ(st.buffer_full_stall, (d1 - (t0 + post * 3.0)) + (d2 - (d1 + post)));
}

TEST(HostBridgePostedWrites, ReadsAndIoFromEitherCpuWaitForEarlierPostedWrites) {
  fresh_simulation();
  PostRig r(4);
  const sc_time t0 = sc_time(1, SC_US);
  sc_time read_done, io_done;
  uint32_t v = 0;
  Script cpu0("cpu0", [&] {
    sc_core::wait(t0);
    for (uint32_t i = 1; i <= 3; ++i) r.access(kMmio, true, i);
    v = r.access(kMmio, false);
    read_done = sc_core::sc_time_stamp();
  });
  Script cpu1("cpu1", [&] {
    sc_core::wait(t0 + sc_time(100, SC_NS));  // after cpu0's read reached the bridge
    r.access(io_addr(kPort), false);
    io_done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  const sc_time post = r.cpu_to_pci();
  const sc_time w3_done = t0 + post + cycle() * 3.0;  // the writes run back to back
  EXPECT_EQ(v, 0x42u);
  EXPECT_EQ(read_done, w3_done + cycle());
  EXPECT_EQ(io_done, w3_done + cycle() * 2.0);
  ASSERT_EQ(r.dev.seen_at.size(), 5u);
  EXPECT_EQ(r.dev.seen_at[3], w3_done);
  EXPECT_EQ(r.hb->stats().ordering_wait,
            (w3_done - (t0 + post * 3.0)) + (w3_done + cycle() - (t0 + sc_time(100, SC_NS))));
}

// PCI 2.1 Retry: each attempt lasts until STOP# at 16 clocks (+3: address, turnaround,
// idle); the bridge releases REQ# for 2 clocks and re-arbitrates. The bus is free
// between attempts: a master's burst in the gap runs, one announced to start inside
// an attempt starts when the attempt ends.
TEST(HostBridgeRetry, ReArbitratesAfterTwoClocksAndMastersRunBetweenAttempts) {
  fresh_simulation();
  PostRig r(4);
  r.dev.retries = 2;
  const sc_time t0 = sc_time(1, SC_US);
  const sc_time attempt = clocks(3 + pci::kInitialLatencyLimitClocks);
  const sc_time g1 = t0 + r.cpu_to_pci();
  const int ide = r.pci.add_master("ide");
  auto burst = [&](sc_time start) {  // one 8-clock burst
    pci::BurstTrain t;
    t.master = ide;
    t.start = start;
    t.period = t.tenure = clocks(8);
    t.end = start + clocks(8);
    t.bytes = 16;
    return t;
  };
  r.pci.announce(burst(g1 + attempt + clocks(1)));      // in the back-off gap after attempt 1
  const sc_time g2 = g1 + attempt + clocks(1 + 8 + 2);  // waits for that burst + arbitration
  r.pci.announce(burst(g2 + clocks(5)));                // would start inside attempt 2
  const sc_time b2 = g2 + attempt;                      // ... so it starts when it ends
  const sc_time g3 = b2 + clocks(8 + 2);
  sc_time done, free_in_attempt, free_in_gap;
  std::vector<pci::BurstTrain> deferred;
  struct Log : pci::MasterTrafficListener {
    std::vector<pci::BurstTrain>* out;
    void master_traffic(const pci::BurstTrain&) override {}
    void master_traffic_deferred(const pci::BurstTrain&, const pci::BurstTrain& a) override {
      out->push_back(a);
    }
  } log;
  log.out = &deferred;
  r.pci.add_listener(log);
  Script s("s", [&] {
    sc_core::wait(t0);
    r.access(kMmio, false);
    done = sc_core::sc_time_stamp();
  });
  Script probe("probe", [&] {
    sc_core::wait(g1 + clocks(10));
    free_in_attempt = r.pci.free_at(sc_core::sc_time_stamp());
    sc_core::wait(clocks(9) + ps(1));  // 1 ps into the gap after attempt 1
    free_in_gap = r.pci.free_at(sc_core::sc_time_stamp());
  });
  sc_core::sc_start();
  EXPECT_EQ(free_in_attempt, g1 + attempt);
  EXPECT_EQ(free_in_gap, g1 + attempt + ps(1));
  EXPECT_EQ(r.dev.seen_at, (std::vector<sc_time>{g1, g2, g3}));
  EXPECT_EQ(done, g3 + cycle());
  ASSERT_EQ(deferred.size(), 1u);
  EXPECT_EQ(deferred[0].start, b2);
  EXPECT_EQ(deferred[0].end, b2 + clocks(8));
  EXPECT_EQ(r.hb->stats().retries, 2u);
  EXPECT_EQ(r.pci.stats().retries, 2u);
  EXPECT_EQ(r.pci.stats().host_busy, attempt * 2.0 + cycle());
}

}  // namespace
}  // namespace latsim::chipset
