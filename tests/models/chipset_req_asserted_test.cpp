// The req_asserted holdoff: a fixed-priority, non-rotating arbiter lets the CPU onto the
// FSB only when the bus master drops REQ#, i.e. at the end of its run of back-to-back
// scatter-gather entries (BurstTrain::run_end), not at the end of each entry (sg_entry).
// Two entries of one run are announced as the IDE controller does: the second only when
// the first ends, the first already carrying the run's end.
#include "models/chipset/host_bridge.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <memory>

namespace latsim::chipset {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;

constexpr uint64_t kClkPs = 30003;  // 33.33 MHz PCI clock
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }

struct TinyTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<TinyTarget> socket;
  explicit TinyTarget(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &TinyTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time&) {
    if (p.is_read()) *p.get_data_ptr() = 0x42;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// Entry 0 [100 us, 160 us), a 500 ns PRD fetch, entry 1 [160.5 us, 220.5 us): one run.
// (Functions: no sc_time may exist before the test sets the time resolution.)
sc_time start0() { return sc_time(100, SC_US); }
sc_time end0() { return sc_time(160, SC_US); }
sc_time start1() { return sc_time(160.5, SC_US); }
sc_time end1() { return sc_time(220.5, SC_US); }

struct Rig {
  pci::PciBus pci{"pci"};
  Dram dram{64ull << 20};
  std::unique_ptr<HostBridge> hb;
  TinyTarget dev{"dev"};
  int ide = 0;

  explicit Rig(CpuHoldoff policy, bool io_waits_req = true, bool io_holdoff = true) {
    HostBridgeParams p;
    p.holdoff = policy;
    p.io_waits_req = io_waits_req;
    p.io_holdoff = io_holdoff;
    hb = std::make_unique<HostBridge>("hb", p, pci, dram);
    ide = pci.add_master("ide");
    pci.target_socket.bind(dev.socket);
    pci.map(io_addr(0x40), 4, 0, "pit", 2);
  }
  pci::BurstTrain entry(sc_time start, sc_time end) const {
    pci::BurstTrain tr;
    tr.master = ide;
    tr.start = start;
    tr.end = end;
    tr.period = clocks(12);
    tr.tenure = clocks(8);
    tr.bytes = 4096;
    tr.run_end = end1();  // both entries belong to the run ending with entry 1
    return tr;
  }
  // Announce entry 0 now and entry 1 when entry 0 ends, as the IDE engine does.
  void announce_run() {
    pci.announce(entry(start0(), end0()));
    sc_core::wait(end0() - sc_core::sc_time_stamp());
    pci.announce(entry(start1(), end1()));
  }
};

TEST(HostBridgeReqAsserted, MissInTheFirstEntryWaitsForTheEndOfTheRun) {
  fresh_simulation();
  Rig r(CpuHoldoff::ReqAsserted);
  r.pci.announce(r.entry(start0(), end0()));
  EXPECT_EQ(r.hb->cpu_ready(start0()), end1());
  EXPECT_EQ(r.hb->cpu_ready(sc_time(130, SC_US)), end1());
  // Entry 1 is not announced yet: the PRD-fetch gap is still inside the run.
  EXPECT_EQ(r.hb->cpu_ready(end0() + sc_time(200, SC_NS)), end1());
  EXPECT_EQ(r.hb->next_holdoff(end0() + sc_time(200, SC_NS)), end0() + sc_time(200, SC_NS));
  // Outside the run: no holdoff.
  EXPECT_EQ(r.hb->cpu_ready(start0() - ps(1)), start0() - ps(1));
  EXPECT_EQ(r.hb->cpu_ready(end1()), end1());
  EXPECT_EQ(r.hb->next_holdoff(sc_time(50, SC_US)), start0());
}

TEST(HostBridgeReqAsserted, SgEntryIgnoresTheRunAndLetsTheCpuInBetweenEntries) {
  fresh_simulation();
  Rig r(CpuHoldoff::SgEntry);
  r.pci.announce(r.entry(start0(), end0()));
  EXPECT_EQ(r.hb->cpu_ready(sc_time(130, SC_US)), end0());
  EXPECT_EQ(r.hb->cpu_ready(end0() + sc_time(200, SC_NS)), end0() + sc_time(200, SC_NS));
}

TEST(HostBridgeReqAsserted, WithoutARunEndATrainHoldsToItsOwnEnd) {
  fresh_simulation();
  Rig r(CpuHoldoff::ReqAsserted);
  pci::BurstTrain tr = r.entry(start0(), end0());
  tr.run_end = SC_ZERO_TIME;  // a master that does not describe its runs (NIC, sound)
  r.pci.announce(tr);
  EXPECT_EQ(r.hb->cpu_ready(sc_time(130, SC_US)), end0());
}

TEST(HostBridgeReqAsserted, MissInTheSecondEntryAlsoWaitsForTheRunEnd) {
  fresh_simulation();
  Rig r(CpuHoldoff::ReqAsserted);
  sc_time ready_in_1, ready_in_gap;
  Script s("s", [&] {
    r.announce_run();
    ready_in_gap = r.hb->cpu_ready(end0() + sc_time(100, SC_NS));  // entry 0 ended, 1 is known
    sc_core::wait(sc_time(180, SC_US) - sc_core::sc_time_stamp());
    ready_in_1 = r.hb->cpu_ready(sc_core::sc_time_stamp());
  });
  sc_core::sc_start();
  EXPECT_EQ(ready_in_gap, end1());
  EXPECT_EQ(ready_in_1, end1());
}

// A CPU I/O read (the PIT) issued in entry 0: held to the run's end by default, to the
// entry's end with io_waits_req=false. The bus is idle then, so the rest is the cycle.
AccessStall pit_read_at(Rig& r, sc_time t0) {
  AccessStall st;
  Script s("s", [&] {
    sc_core::wait(t0);
    uint8_t v = 0;
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(io_addr(0x40));
    p.set_data_ptr(&v);
    p.set_data_length(1);
    p.set_streaming_width(1);
    st = r.hb->cpu_pci_access(p);
  });
  Script m("m", [&] { r.announce_run(); });
  sc_core::sc_start();
  return st;
}

TEST(HostBridgeReqAsserted, IoCycleWaitsForReqByDefault) {
  fresh_simulation();
  Rig r(CpuHoldoff::ReqAsserted);
  const sc_time t0 = sc_time(130, SC_US);
  EXPECT_EQ(pit_read_at(r, t0).memory, end1() - t0);
}

TEST(HostBridgeReqAsserted, IoCycleWaitsOneEntryWhenTheArbiterGrantsBetweenEntries) {
  fresh_simulation();
  Rig r(CpuHoldoff::ReqAsserted, /*io_waits_req=*/false);
  const sc_time t0 = sc_time(130, SC_US);
  EXPECT_EQ(pit_read_at(r, t0).memory, end0() - t0);
  EXPECT_EQ(r.hb->cpu_ready(t0), end1());  // a memory miss still waits for REQ#
}

// platform.host_bridge.io_holdoff=false: the holdoff is the memory controller's; a PIT
// read inside an entry goes out at once (the bus is idle between the master's bursts
// here), while a memory miss issued then still waits for the entry's end.
TEST(HostBridgeReqAsserted, WithoutIoHoldoffOnlyMemoryWaits) {
  fresh_simulation();
  Rig r(CpuHoldoff::SgEntry, /*io_waits_req=*/true, /*io_holdoff=*/false);
  const sc_time t0 = sc_time(130, SC_US);
  EXPECT_EQ(pit_read_at(r, t0).memory, SC_ZERO_TIME);
  EXPECT_EQ(r.hb->cpu_ready(t0), end0());
}

}  // namespace
}  // namespace latsim::chipset
