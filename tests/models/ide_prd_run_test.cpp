// A READ DMA's back-to-back run of PRD entries and the req_asserted holdoff: each
// entry's train carries the end of the run it belongs to (the next entry follows
// without REQ# dropping when the drive has its first sector by the time its PRD is
// fetched). Under req_asserted a CPU miss waits for the end of the run; under sg_entry
// for the end of its entry. 32 KiB requests of eight 4 KiB entries at udma4.
#include "models/chipset/host_bridge.h"
#include "models/cpu/pentium3.h"
#include "models/ide/ide_controller.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/pci_traffic_fixtures.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <vector>

namespace latsim::ide {
namespace {

using chipset::CpuHoldoff;
using latsim::test::Script;
using latsim::testing::fresh_simulation;
using latsim::testing::HoldingTarget;
using latsim::testing::TrainLog;
using IC = IdeController;

constexpr uint32_t kPrdTable = 0x00100000;
constexpr uint64_t kLba = 5000;
constexpr uint8_t kSectors = 64;  // 32 KiB: max_sectors_kb 32
constexpr int kEntries = 8;       // one 4 KiB page each
constexpr uint64_t kHeldMmio = 0xe0000000;
constexpr double kUdma4 = 66.7;

struct Rig {
  pci::PciBus pci{"pci"};
  chipset::Dram dram{64ull << 20};
  disk::DiskDriveParams disk_params;
  disk::DiskDrive disk{disk_params};
  IdeControllerParams params;
  IdeController ide;
  chipset::HostBridge hb;
  HoldingTarget held{"held", sc_time(2, SC_MS)};
  TrainLog log;

  static IdeControllerParams udma4() {
    IdeControllerParams p;
    p.udma_mode = 4;
    p.prd_fetch_ns = 500;  // one PRD read from DRAM: a gap a CPU miss can fall into
    return p;
  }
  Rig()
      : params(udma4()),
        ide("ide", params, disk, dram, pci),
        hb("hb", chipset::HostBridgeParams{}, pci, dram) {
    pci.target_socket.bind(ide.socket);
    pci.target_socket.bind(held.socket);
    pci.map(kHeldMmio, 0x100, 1, "held", 2);
    pci.add_listener(log);
    for (int i = 0; i < kEntries; ++i) {  // 4 KiB pages, EOT on the last
      PrdEntry e;
      e.base = 0x200000 + 0x1000 * uint32_t(i);
      e.bytes = 4096;
      e.eot = i == kEntries - 1;
      const uint32_t dw[2] = {e.base, e.dw1()};
      dram.write(kPrdTable + 8 * uint32_t(i), dw, 8);
    }
  }
  // Linux ide_dma_setup + __ide_do_rw_disk + ide_dma_start, as register writes.
  void read_dma(uint64_t lba) {
    ide.write32(IC::kBusMaster + 4, kPrdTable);
    ide.write(IC::kBusMaster + 0, IC::WRITE_TO_MEMORY);
    ide.write(IC::kBusMaster + 2, IC::ERROR | IC::INTERRUPT);
    ide.write(IC::kTaskFile + 2, kSectors);
    ide.write(IC::kTaskFile + 3, uint8_t(lba));
    ide.write(IC::kTaskFile + 4, uint8_t(lba >> 8));
    ide.write(IC::kTaskFile + 5, uint8_t(lba >> 16));
    ide.write(IC::kTaskFile + 6, uint8_t(0xe0 | ((lba >> 24) & 0x0f)));
    ide.write(IC::kTaskFile + 7, IC::kReadDma);
    ide.write(IC::kBusMaster + 0, IC::WRITE_TO_MEMORY | IC::START);
  }
  // ide_dma_end + the Status read that drops INTRQ.
  void finish() {
    while (!ide.intrq.level()) sc_core::wait(sc_time(1, SC_US));
    ide.write(IC::kBusMaster + 0, IC::WRITE_TO_MEMORY);
    ide.write(IC::kBusMaster + 2, IC::INTERRUPT);
    ide.read(IC::kTaskFile + 7);
  }
  // A CPU cache miss issued at `t` (from a thread, once t is reached) under `h`.
  sc_time miss_done(CpuHoldoff h, sc_time t) {
    hb.set_policy(h);
    return hb.cpu_ready(t) + cpu::CpuParams{}.dram_latency();
  }
};

struct Entry {
  sc_time start, end;
};
// The controller's rule (ide_controller_test): an entry starts when its PRD is fetched
// and the drive has its first sector, and ends no sooner than its bytes at the UDMA
// rate nor than its last sector plus one sector at the UDMA rate.
std::vector<Entry> expected(const disk::ReadPlan& plan, sc_time dma_start, sc_time fetch) {
  std::vector<Entry> out;
  sc_time t = dma_start + fetch;
  for (uint32_t i = 0; i < kEntries; ++i) {
    const sc_time start = std::max(t, plan.ready(8 * i));
    const sc_time end = std::max(start + transfer_time(4096, kUdma4),
                                 plan.ready(8 * i + 7) + transfer_time(512, kUdma4));
    out.push_back({start, end});
    t = end + fetch;
  }
  return out;
}

// The first command misses: overhead, seek from LBA 0, rotation, then the media pace.
disk::ReadPlan miss_plan(const Rig& r, sc_time at) {
  disk::ReadPlan p;
  p.not_before = at + r.disk_params.command_overhead() + r.disk.seek_time(0, kLba);
  p.arrive0 = p.not_before + r.disk.rotational_wait(kLba, p.not_before);
  p.sector_time = transfer_time(512, r.disk.media_rate_mb_s(kLba));
  return p;
}
// The second, sequential command hits the read-ahead stream the first one started.
disk::ReadPlan hit_plan(const Rig& r, const disk::ReadPlan& first, sc_time at) {
  disk::ReadPlan p;
  p.not_before = at + r.disk_params.cache_hit_overhead();
  p.arrive0 = first.arrive0 + first.sector_time * double(kSectors);
  p.sector_time = first.sector_time;
  return p;
}

// The drive read the sectors ahead long ago: all eight entries follow back to back.
TEST(IdePrdRun, CachedRequestIsOneRunAndHoldsAMissToItsEnd) {
  fresh_simulation();
  Rig r;
  const sc_time lat = cpu::CpuParams{}.dram_latency();
  const sc_time t0 = sc_time(20, SC_US);
  sc_time t1, in_2, gap_2_3;
  sc_time req_in_2, sg_in_2, req_gap, sg_gap;
  std::vector<Entry> exp;
  Script s("s", [&] {
    sc_core::wait(t0);
    r.read_dma(kLba);
    r.finish();
    sc_core::wait(sc_time(10, SC_MS));
    t1 = sc_core::sc_time_stamp();
    r.read_dma(kLba + kSectors);
    exp = expected(hit_plan(r, miss_plan(r, t0), t1), t1, r.params.prd_fetch());
    in_2 = exp[1].start + sc_time(10, SC_US);  // the CPU misses during entry 2
    sc_core::wait(in_2 - sc_core::sc_time_stamp());
    req_in_2 = r.miss_done(CpuHoldoff::ReqAsserted, in_2);
    sg_in_2 = r.miss_done(CpuHoldoff::SgEntry, in_2);
    gap_2_3 = exp[1].end + sc_time(200, SC_NS);  // ... and in the PRD fetch after it
    sc_core::wait(gap_2_3 - sc_core::sc_time_stamp());
    req_gap = r.miss_done(CpuHoldoff::ReqAsserted, gap_2_3);
    sg_gap = r.miss_done(CpuHoldoff::SgEntry, gap_2_3);
  });
  sc_core::sc_start();

  ASSERT_EQ(r.disk.cache_hits(), 1u);
  ASSERT_EQ(r.log.trains.size(), 2u * kEntries);
  for (int i = 1; i < kEntries; ++i)  // back to back: each PRD fetch finds the data there
    ASSERT_EQ(exp[size_t(i)].start, exp[size_t(i) - 1].end + r.params.prd_fetch()) << i;
  for (int i = 0; i < kEntries; ++i) {
    const pci::BurstTrain& tr = r.log.trains[size_t(kEntries + i)];
    EXPECT_EQ(tr.start, exp[size_t(i)].start) << i;
    EXPECT_EQ(tr.end, exp[size_t(i)].end) << i;
    EXPECT_EQ(tr.run_end, exp[kEntries - 1].end) << i;  // REQ# drops with the request
  }
  // 8 x 61.4 us + 7 PRD fetches: held ~430 us instead of the rest of entry 2.
  EXPECT_EQ(req_in_2, exp[7].end + lat);
  EXPECT_EQ(sg_in_2, exp[1].end + lat);
  EXPECT_EQ(req_gap, exp[7].end + lat);
  EXPECT_EQ(sg_gap, gap_2_3 + lat);  // sg_entry: the CPU gets in between entries
}

// The second command issued as the stream reaches its first sector: the drive is
// ~100 us ahead, the 66.7 MB/s transfer catches up with the 44 MB/s media after four
// entries, and REQ# drops until entry 5's first sector arrives. The CPU gets in there.
TEST(IdePrdRun, MediaGapEndsTheRunAndLetsTheCpuIn) {
  fresh_simulation();
  Rig r;
  const sc_time lat = cpu::CpuParams{}.dram_latency();
  const sc_time t0 = sc_time(20, SC_US);
  const disk::ReadPlan first = miss_plan(r, t0);
  const sc_time t1 = first.arrive0 + first.sector_time * double(kSectors);
  const std::vector<Entry> exp = expected(hit_plan(r, first, t1), t1, r.params.prd_fetch());
  const sc_time in_2 = exp[1].start + sc_time(10, SC_US);
  const sc_time at_gap = exp[3].end + sc_time(100, SC_NS);
  const sc_time in_5 = exp[4].start + sc_time(1, SC_US);
  sc_time req_in_2, sg_in_2, req_gap, req_in_5;
  Script s("s", [&] {
    sc_core::wait(t0);
    r.read_dma(kLba);
    r.finish();
    sc_core::wait(t1 - sc_core::sc_time_stamp());
    r.read_dma(kLba + kSectors);
    sc_core::wait(in_2 - sc_core::sc_time_stamp());
    req_in_2 = r.miss_done(CpuHoldoff::ReqAsserted, in_2);
    sg_in_2 = r.miss_done(CpuHoldoff::SgEntry, in_2);
    sc_core::wait(at_gap - sc_core::sc_time_stamp());
    req_gap = r.miss_done(CpuHoldoff::ReqAsserted, at_gap);
    sc_core::wait(in_5 - sc_core::sc_time_stamp());
    req_in_5 = r.miss_done(CpuHoldoff::ReqAsserted, in_5);
  });
  sc_core::sc_start();

  // The premise, from the drive's plan: entries 1-4 back to back, a gap before entry 5.
  for (size_t i = 1; i < 4; ++i) ASSERT_EQ(exp[i].start, exp[i - 1].end + r.params.prd_fetch());
  ASSERT_GT(exp[4].start, exp[3].end + r.params.prd_fetch());
  ASSERT_GT(exp[4].start, at_gap);
  ASSERT_EQ(r.log.trains.size(), 2u * kEntries);
  for (size_t i = 0; i < size_t(kEntries); ++i) {
    const pci::BurstTrain& tr = r.log.trains[kEntries + i];
    EXPECT_EQ(tr.start, exp[i].start) << i;
    EXPECT_EQ(tr.end, exp[i].end) << i;
    // Entries 5-8 wait on the media one by one: each is a run of its own.
    EXPECT_EQ(tr.run_end, i < 4 ? exp[3].end : exp[i].end) << i;
  }
  EXPECT_EQ(req_in_2, exp[3].end + lat);
  EXPECT_EQ(sg_in_2, exp[1].end + lat);
  EXPECT_EQ(req_gap, at_gap + lat);
  EXPECT_EQ(req_in_5, exp[4].end + lat);
}

// A host cycle held for 2 ms takes the bus while the drive is still seeking and defers
// entry 1 past its start. Meanwhile the media reads the whole request: the deferred
// entry's run now reaches the last entry (the master recomputes it; a plain shift of
// its one-entry run would not).
TEST(IdePrdRun, DeferredEntryRunCoversTheDataThatArrivedMeanwhile) {
  fresh_simulation();
  Rig r;
  r.hb.set_policy(CpuHoldoff::ReqAsserted);
  const sc_time t0 = sc_time(20, SC_US);
  pci::BurstTrain announced;
  sc_time req_in_1;
  Script s("s", [&] {
    sc_core::wait(t0);
    r.read_dma(kLba);
    announced = r.log.trains.at(0);
    sc_core::wait(announced.start - sc_time(1, SC_MS) - sc_core::sc_time_stamp());
    uint32_t v = 0;
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(kHeldMmio);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    p.set_data_length(4);
    p.set_streaming_width(4);
    r.hb.cpu_pci_access(p);  // the bus is the host's for 2 ms
    const pci::BurstTrain& moved = r.log.deferred.at(0);
    sc_core::wait(moved.start + sc_time(10, SC_US) - sc_core::sc_time_stamp());
    req_in_1 = r.hb.cpu_ready(sc_core::sc_time_stamp());
  });
  sc_core::sc_start();

  // As first announced, udma4 outran the 44 MB/s media: a one-entry run.
  EXPECT_EQ(announced.run_end, announced.end);
  ASSERT_EQ(r.log.deferred.size(), 1u);
  ASSERT_EQ(r.log.trains.size(), size_t(kEntries));
  const pci::BurstTrain& moved = r.log.deferred[0];
  ASSERT_EQ(r.log.trains[1].start, moved.end + r.params.prd_fetch());  // the data is there
  for (size_t i = 2; i < size_t(kEntries); ++i)
    ASSERT_EQ(r.log.trains[i].start, r.log.trains[i - 1].end + r.params.prd_fetch());
  EXPECT_EQ(moved.run_end, r.log.trains.back().end);
  EXPECT_EQ(req_in_1, r.log.trains.back().end);
}

}  // namespace
}  // namespace latsim::ide
