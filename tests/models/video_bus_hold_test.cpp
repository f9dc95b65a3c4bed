// The rude X driver (seed 000, Jones & Regehr): a CPU writes into the card's full
// command FIFO without reading InFIFOSpace first. Wired as on the board: CPUs ->
// host bridge (posted writes) -> 33 MHz PCI -> Permedia 2-class card, the IDE bus
// master and a slow ISA-style target. With a pre-2.1 card the write is held with
// wait states, so the bus is the host's until the FIFO drains; with PCI 2.1 the
// card answers Retry and the bus is free between attempts. Posting lets the CPU
// go on until the bridge's buffer fills, in both cases.
#include "models/chipset/host_bridge.h"
#include "models/ide/ide_controller.h"
#include "models/video/permedia2.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace latsim::video {
namespace {

using latsim::testing::fresh_simulation;
using IC = ide::IdeController;
using P2 = Permedia2;

constexpr uint64_t kClkPs = 30003;  // 33.33 MHz PCI clock
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }
constexpr uint64_t kFb = 0xe0000000;  // the card's control aperture
constexpr uint16_t kBm = 0xd000;
constexpr uint32_t kPrdTable = 0x00100000;
constexpr uint64_t kBlockColor = 0x8ac8;  // a core register: one FIFO entry, 12 ns
sc_time load() { return sc_time(12, SC_NS); }

using latsim::test::Script;

// An ISA cycle behind the south bridge: the PCI transaction waits 1 us for it.
struct IsaCycle : sc_core::sc_module {
  tlm_utils::simple_target_socket<IsaCycle> socket;
  std::vector<sc_time> seen_at;
  explicit IsaCycle(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &IsaCycle::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time& delay) {
    seen_at.push_back(sc_core::sc_time_stamp());
    if (p.is_read()) std::memset(p.get_data_ptr(), 0, p.get_data_length());
    delay += sc_time(1, SC_US);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct TrainLog : pci::MasterTrafficListener {
  std::vector<pci::BurstTrain> trains;    // as announced
  std::vector<pci::BurstTrain> deferred;  // as moved by a transaction holding the bus
  void master_traffic(const pci::BurstTrain& t) override { trains.push_back(t); }
  void master_traffic_deferred(const pci::BurstTrain&, const pci::BurstTrain& a) override {
    deferred.push_back(a);
  }
};

struct Rig {
  pci::PciBus pci{"pci"};
  chipset::Dram dram{64ull << 20};
  disk::DiskDriveParams disk_params;
  disk::DiskDrive disk{disk_params};
  ide::IdeController ide{"ide", ide::IdeControllerParams{}, disk, dram, pci};
  Permedia2 card;
  IsaCycle isa{"isa"};
  std::unique_ptr<chipset::HostBridge> hb;
  TrainLog log;

  explicit Rig(FullFifoWrite mode, int posted = 4) : card("card", card_params(mode)) {
    chipset::HostBridgeParams hp;
    hp.holdoff = chipset::CpuHoldoff::None;  // only PCI matters here, not the FSB
    hp.posted_write_entries = posted;
    hb = std::make_unique<chipset::HostBridge>("hb", hp, pci, dram);
    pci.target_socket.bind(card.socket);  // 0
    pci.target_socket.bind(ide.socket);   // 1
    pci.target_socket.bind(isa.socket);   // 2
    pci.map(kFb, 0x10000, 0, "video", 2);
    pci.map(io_addr(0x1f0), 8, 1, "ide-taskfile", 2, IC::kTaskFile);
    pci.map(io_addr(kBm), 8, 1, "ide-busmaster", 2, IC::kBusMaster);
    pci.map(io_addr(0x80), 1, 2, "isa", 2);
    pci.add_listener(log);
    // Two 4 KiB PRD entries: 16 sectors.
    const uint32_t prd[4] = {0x200000, 4096, 0x201000, 4096 | ide::PrdEntry::kEot};
    dram.write(kPrdTable, prd, sizeof prd);
  }
  static Permedia2Params card_params(FullFifoWrite mode) {
    Permedia2Params p;
    p.fifo_entries = 2;  // small, so that three writes fill it
    p.full_write = mode;
    return p;
  }
  // One CPU access through the host bridge; returns when the CPU may go on.
  uint32_t cpu(uint64_t addr, bool write, uint32_t v = 0, unsigned len = 4) {
    tlm::tlm_generic_payload p;
    p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.set_address(addr);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    p.set_data_length(len);
    p.set_streaming_width(len);
    hb->cpu_pci_access(p);
    return v;
  }
  // X starts a window-sized copy (1000x700 at 40 ns/pixel: 28 ms) and queues two
  // loads behind it: the FIFO is full. Returns when the core takes the head entry.
  sc_time start_copy_and_fill_fifo() {
    cpu(kFb + P2::kRectangleSize, true, (700u << 16) | 1000u);
    cpu(kFb + P2::kConfig, true, P2::kConfigReadSource);
    cpu(kFb + P2::kRender, true, P2::kRenderRectangle);
    cpu(kFb + kBlockColor, true, 1);
    cpu(kFb + kBlockColor, true, 2);
    sc_core::wait(sc_time(2, SC_US));  // all posted writes reached the card
    return card.core_busy_until() - load() * 2.0;
  }
  // Linux ide-dma: PRD pointer, direction, task file, READ DMA, START (16 sectors).
  void read_dma(uint64_t lba) {
    cpu(io_addr(kBm + 4), true, kPrdTable, 4);
    cpu(io_addr(kBm), true, IC::WRITE_TO_MEMORY, 1);
    cpu(io_addr(0x1f2), true, 16, 1);
    cpu(io_addr(0x1f3), true, uint8_t(lba), 1);
    cpu(io_addr(0x1f4), true, uint8_t(lba >> 8), 1);
    cpu(io_addr(0x1f5), true, uint8_t(lba >> 16), 1);
    cpu(io_addr(0x1f6), true, 0xe0, 1);
    cpu(io_addr(0x1f7), true, IC::kReadDma, 1);
    cpu(io_addr(kBm), true, IC::WRITE_TO_MEMORY | IC::START, 1);
  }
  sc_time post() const { return hb->params().cpu_to_pci; }
};

// When the host bridge gets GNT# at `req` while entry `tr` runs: after the burst in
// progress plus 2 clocks of arbitration (8-clock bursts are not cut by the timer).
sc_time grant_during(const pci::BurstTrain& tr, sc_time req) {
  const sc_time end = tr.burst_end_at(req);
  return end > req ? end + clocks(2) : req;
}

// PCI 2.0: the rude write is held from its GNT# until the copy ends. The IDE entry
// that ends meanwhile fetches its next PRD and starts only after the hold; the
// other CPU's ISA cycle waits for it too; the writing CPU went on (posted).
TEST(VideoRudeWrite, Pci20HeldWriteHoldsTheBusSoTheNextIdeEntryStartsAfterIt) {
  fresh_simulation();
  Rig r(FullFifoWrite::Pci20Hold);
  sc_time copy_done, t1, rude_done, isa_done, isa_req;
  Script cpu0("cpu0", [&] {
    sc_core::wait(sc_time(10, SC_US));
    copy_done = r.start_copy_and_fill_fifo();
    sc_core::wait(sc_time(30, SC_US) - sc_core::sc_time_stamp());
    t1 = r.log.trains.at(0).start + sc_time(20, SC_US);  // entry 0 is moving data
    sc_core::wait(t1 - sc_core::sc_time_stamp());
    r.cpu(kFb + kBlockColor, true, 3);  // no InFIFOSpace check
    rude_done = sc_core::sc_time_stamp();
  });
  Script cpu1("cpu1", [&] {
    sc_core::wait(sc_time(20, SC_US));
    r.read_dma(5000);
    while (r.log.trains.empty() ||
           sc_core::sc_time_stamp() < r.log.trains[0].start + sc_time(50, SC_US))
      sc_core::wait(sc_time(10, SC_US));
    isa_req = sc_core::sc_time_stamp();
    r.cpu(io_addr(0x80), false, 0, 1);  // inb_p's port-0x80 delay
    isa_done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();

  ASSERT_EQ(r.log.trains.size(), 2u);
  const pci::BurstTrain& e0 = r.log.trains[0];
  const sc_time grant = grant_during(e0, t1 + r.post());
  ASSERT_LT(e0.end, copy_done);         // entry 0 ends inside the hold
  EXPECT_EQ(rude_done, t1 + r.post());  // posted: the CPU's store retired at once
  // Wait states from the data phase (3 + 2 clocks in) until the core took the head.
  EXPECT_EQ(r.card.stats().hold_total, copy_done - (grant + clocks(5)));
  EXPECT_EQ(r.pci.stats().longest_transaction, copy_done - grant);
  // Entry 1: its PRD fetch needs the bus, so it is announced to start a fetch after
  // the hold.
  EXPECT_EQ(r.log.trains[1].start, copy_done + r.ide.params().prd_fetch());
  // The other CPU's ISA cycle, queued in the bridge, got the bus when the hold ended,
  // before the entry's first burst: the entry then waited for it too.
  ASSERT_LT(isa_req, copy_done);
  ASSERT_EQ(r.isa.seen_at.size(), 1u);
  EXPECT_EQ(r.isa.seen_at[0], copy_done);
  EXPECT_EQ(isa_done, copy_done + clocks(5) + sc_time(1, SC_US));
  ASSERT_EQ(r.log.deferred.size(), 1u);
  EXPECT_EQ(r.log.deferred[0].start, isa_done);
}

// PCI 2.1: the card ends each attempt with Retry at 16 clocks; the bridge releases
// REQ# for 2 clocks and tries again. The bus is free in between, so the IDE entry
// that ends meanwhile starts its successor a PRD fetch after the attempt in
// progress, long before the copy is done. The other CPU's ISA cycle still waits:
// PCI ordering keeps it behind the posted write the bridge is retrying.
TEST(VideoRudeWrite, Pci21RetriedWriteLeavesTheBusToTheIdeEntryBetweenAttempts) {
  fresh_simulation();
  Rig r(FullFifoWrite::Pci21Retry);
  sc_time copy_done, t1, rude_done, isa_done, free_at_e0;
  Script cpu0("cpu0", [&] {
    sc_core::wait(sc_time(10, SC_US));
    copy_done = r.start_copy_and_fill_fifo();
    sc_core::wait(sc_time(30, SC_US) - sc_core::sc_time_stamp());
    t1 = r.log.trains.at(0).start + sc_time(20, SC_US);
    sc_core::wait(t1 - sc_core::sc_time_stamp());
    r.cpu(kFb + kBlockColor, true, 3);
    rude_done = sc_core::sc_time_stamp();
    // Look at the bus just after entry 0's end (the attempt then is on record).
    sc_core::wait(r.log.trains[0].end + ps(1) - sc_core::sc_time_stamp());
    free_at_e0 = r.pci.free_at(r.log.trains[0].end);
  });
  Script cpu1("cpu1", [&] {
    sc_core::wait(sc_time(20, SC_US));
    r.read_dma(5000);
    while (r.log.trains.empty() ||
           sc_core::sc_time_stamp() < r.log.trains[0].start + sc_time(50, SC_US))
      sc_core::wait(sc_time(10, SC_US));
    r.cpu(io_addr(0x80), false, 0, 1);
    isa_done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();

  ASSERT_EQ(r.log.trains.size(), 2u);
  const sc_time e0_end = r.log.trains[0].end;
  ASSERT_LT(e0_end, copy_done);
  EXPECT_EQ(rude_done, t1 + r.post());
  // Entry 1 starts a PRD fetch after the attempt (if any) in progress at entry 0's end.
  const sc_time attempt = clocks(3 + 16);
  EXPECT_GE(free_at_e0, e0_end);
  EXPECT_LT(free_at_e0, e0_end + attempt);
  EXPECT_EQ(r.log.trains[1].start, free_at_e0 + r.ide.params().prd_fetch());
  // ... or right after the attempt that took the bus first, if one did.
  for (const auto& d : r.log.deferred) EXPECT_LT(d.start, r.log.trains[1].start + attempt);
  EXPECT_LT(r.log.trains[1].end + attempt, copy_done);  // the transfer ran between retries
  // The card never held the bus: the longest transaction is the ISA cycle.
  EXPECT_EQ(r.card.stats().hold_total, SC_ZERO_TIME);
  EXPECT_GT(r.card.stats().retries, 1000u);  // ~28 ms of attempts every ~21 clocks
  EXPECT_EQ(r.card.stats().retries, r.hb->stats().retries);
  EXPECT_EQ(r.pci.stats().longest_transaction, clocks(5) + sc_time(1, SC_US));
  EXPECT_GT(isa_done, copy_done);  // ordering: behind the retried write
}

// With posting, the rude writer stalls only when the bridge's buffer is full: four
// stores retire at once (the first one held on the bus), the fifth waits for the
// held write to end, the sixth for the next write's 5-clock cycle.
TEST(VideoRudeWrite, PostedWritesLetTheCpuRunOnUntilTheBufferFills) {
  fresh_simulation();
  Rig r(FullFifoWrite::Pci20Hold, 4);
  sc_time copy_done, t1, stall0;
  std::vector<sc_time> done;
  Script cpu0("cpu0", [&] {
    sc_core::wait(sc_time(10, SC_US));
    copy_done = r.start_copy_and_fill_fifo();
    t1 = sc_core::sc_time_stamp();
    stall0 = r.hb->stats().buffer_full_stall;  // the set-up's five stores stalled briefly
    for (uint32_t i = 0; i < 6; ++i) {
      r.cpu(kFb + kBlockColor, true, i);
      done.push_back(sc_core::sc_time_stamp());
    }
  });
  sc_core::sc_start();
  ASSERT_EQ(done.size(), 6u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(done[i], t1 + r.post() * double(i + 1)) << i;
  EXPECT_EQ(done[4], copy_done);              // the held write left the buffer
  EXPECT_EQ(done[5], copy_done + clocks(5));  // the next one's cycle, FIFO no longer full
  EXPECT_EQ(r.hb->stats().max_posted, 4);
  EXPECT_EQ(r.hb->stats().buffer_full_stall - stall0,
            (copy_done - (t1 + r.post() * 5.0)) + (clocks(5) - r.post()));
}

// Without posting the first rude store itself waits for the whole hold: the core
// is stuck in that instruction, so not even an interrupt could be taken.
TEST(VideoRudeWrite, WithoutPostingTheFirstRudeStoreWaitsForTheWholeHold) {
  fresh_simulation();
  Rig r(FullFifoWrite::Pci20Hold, 0);
  sc_time copy_done, done;
  Script cpu0("cpu0", [&] {
    sc_core::wait(sc_time(10, SC_US));
    copy_done = r.start_copy_and_fill_fifo();
    r.cpu(kFb + kBlockColor, true, 3);
    done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(done, copy_done);
}

// Polling InFIFOSpace after posted writes: the read waits for them (PCI ordering)
// and then sees the entries they took.
TEST(VideoRudeWrite, StatusReadAfterPostedWritesWaitsForThemAndCountsThem) {
  fresh_simulation();
  Rig r(FullFifoWrite::Pci20Hold);
  sc_time t1, read_done;
  uint32_t space = 99;
  Script cpu0("cpu0", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.cpu(kFb + P2::kRectangleSize, true, (10u << 16) | 10u);
    r.cpu(kFb + P2::kRender, true, P2::kRenderRectangle);  // 1.32 us of filling
    sc_core::wait(sc_time(1, SC_US));  // both writes are done; the fill runs 1.32 us
    t1 = sc_core::sc_time_stamp();
    r.cpu(kFb + kBlockColor, true, 1);  // waits in the FIFO behind the fill
    space = r.cpu(kFb + P2::kInFifoSpace, false);
    read_done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  // The write: posted at t1 + 30 ns, on the bus at once, 5 clocks. Then the read.
  const sc_time write_done = t1 + r.post() + clocks(5);
  EXPECT_EQ(read_done, write_done + clocks(5));
  EXPECT_EQ(space, 1u);  // depth 2, one entry waiting behind the fill
  EXPECT_EQ(r.hb->stats().ordering_wait, write_done - (t1 + r.post()));
}

}  // namespace
}  // namespace latsim::video
