// Bus-master IDE driven as Linux 2.6.9 ide-dma does for a READ DMA: PRD table in
// DRAM, PRD pointer (BM+4), direction, clear status, task file (LBA28, count),
// command 0xC8, START. Each PRD entry becomes one burst train on the PCI bus that
// starts when the drive has the entry's first sector and moves no faster than the
// UDMA rate nor earlier than the media delivers; INTRQ (IRQ 14) rises when the last
// entry is done and drops when the driver reads the ATA Status register.
#include "models/ide/ide_controller.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/pci_traffic_fixtures.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <functional>
#include <vector>

namespace latsim::ide {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::HoldingTarget;
using latsim::testing::TestInitiator;
using latsim::testing::TrainLog;
using IC = IdeController;

constexpr uint64_t kClkPs = 30003;  // 33.33 MHz PCI clock
constexpr uint16_t kBmBase = 0xd000;
constexpr uint32_t kPrdTable = 0x00100000;

constexpr uint64_t kHeldMmio = 0xe0000000;

struct IrqRecorder : irq::IrqSink {
  struct Edge {
    sc_time at;
    unsigned pin;
    bool level;
  };
  std::vector<Edge> edges;
  void irq_set(unsigned pin, bool level) override {
    edges.push_back({sc_core::sc_time_stamp(), pin, level});
  }
};

using latsim::test::Script;

struct Prd {
  uint32_t base, bytes;  // bytes 0x10000 is written as 0
  bool eot;
};

// A machine slice: PCI bus, DRAM, the disk and controller as the platform maps them.
struct Rig {
  pci::PciBus pci{"pci"};
  chipset::Dram dram{64ull << 20};
  disk::DiskDriveParams disk_params;
  disk::DiskDrive disk{disk_params};
  IdeControllerParams params;
  IdeController ide;
  TestInitiator host{"host"};
  TrainLog log;
  IrqRecorder irq;

  explicit Rig(IdeControllerParams p = {}) : params(p), ide("ide", p, disk, dram, pci) {
    host.socket.bind(pci.host_socket);
    pci.target_socket.bind(ide.socket);
    pci.map(io_addr(0x1f0), 8, 0, "ide-taskfile", 2, IC::kTaskFile);
    pci.map(io_addr(0x3f6), 1, 0, "ide-control", 2, IC::kControl);
    pci.map(io_addr(kBmBase), 8, 0, "ide-busmaster", 2, IC::kBusMaster);
    pci.add_listener(log);
    ide.intrq.connect(irq, 14);
  }

  void write_prd_table(const std::vector<Prd>& entries) {
    for (size_t i = 0; i < entries.size(); ++i) {
      PrdEntry e;
      e.base = entries[i].base;
      e.bytes = entries[i].bytes;
      e.eot = entries[i].eot;
      const uint32_t dw[2] = {e.base, e.dw1()};
      dram.write(kPrdTable + 8 * i, dw, 8);
    }
  }

  // Linux ide_dma_setup + __ide_do_rw_disk + ide_dma_start, as register accesses.
  // Returns the times of the command write and of the START write.
  std::pair<sc_time, sc_time> linux_read_dma_direct(uint64_t lba, uint8_t nsect) {
    ide.write32(IC::kBusMaster + 4, kPrdTable);          // outl(dmatable_dma, BM+4)
    ide.write(IC::kBusMaster + 0, IC::WRITE_TO_MEMORY);  // reading = 1 << 3
    ide.write(IC::kBusMaster + 2, ide.read(IC::kBusMaster + 2) | IC::ERROR | IC::INTERRUPT);
    ide.write(IC::kTaskFile + 2, nsect);
    ide.write(IC::kTaskFile + 3, uint8_t(lba));
    ide.write(IC::kTaskFile + 4, uint8_t(lba >> 8));
    ide.write(IC::kTaskFile + 5, uint8_t(lba >> 16));
    ide.write(IC::kTaskFile + 6, uint8_t(0xe0 | ((lba >> 24) & 0x0f)));  // LBA, drive 0
    const sc_time cmd = sc_core::sc_time_stamp();
    ide.write(IC::kTaskFile + 7, IC::kReadDma);
    const sc_time start = sc_core::sc_time_stamp();
    ide.write(IC::kBusMaster + 0, IC::WRITE_TO_MEMORY | IC::START);
    return {cmd, start};
  }

  // The same through the host's TLM socket and the PCI bus; every access is waited out.
  void out8(uint64_t port, uint8_t v) {
    sc_time d = SC_ZERO_TIME;
    host.write8(io_addr(uint16_t(port)), v, d);
    sc_core::wait(d);
  }
  uint8_t in8(uint64_t port) {
    sc_time d = SC_ZERO_TIME;
    const uint8_t v = host.read8(io_addr(uint16_t(port)), d);
    sc_core::wait(d);
    return v;
  }
  std::pair<sc_time, sc_time> linux_read_dma_socket(uint64_t lba, uint8_t nsect) {
    sc_time d = SC_ZERO_TIME;
    host.write32(io_addr(kBmBase + 4), kPrdTable, d);
    sc_core::wait(d);
    out8(kBmBase + 0, IC::WRITE_TO_MEMORY);
    out8(kBmBase + 2, in8(kBmBase + 2) | IC::ERROR | IC::INTERRUPT);
    out8(0x1f2, nsect);
    out8(0x1f3, uint8_t(lba));
    out8(0x1f4, uint8_t(lba >> 8));
    out8(0x1f5, uint8_t(lba >> 16));
    out8(0x1f6, uint8_t(0xe0 | ((lba >> 24) & 0x0f)));
    const sc_time cmd = sc_core::sc_time_stamp();
    out8(0x1f7, IC::kReadDma);
    const sc_time start = sc_core::sc_time_stamp();
    out8(kBmBase + 0, IC::WRITE_TO_MEMORY | IC::START);
    return {cmd, start};
  }
};

struct ExpectedEntry {
  sc_time start, end;
  uint64_t bytes;
};

// The controller's rule: an entry starts when the PRD is fetched and the drive has
// its first sector; it ends no sooner than its bytes at the UDMA rate and no sooner
// than its last sector from the media plus that sector at the UDMA rate. The next
// PRD is fetched after the entry ends.
std::vector<ExpectedEntry> expected_entries(const disk::ReadPlan& plan, sc_time dma_start,
                                            const std::vector<Prd>& prds, double udma,
                                            sc_time fetch) {
  std::vector<ExpectedEntry> out;
  sc_time t = dma_start + fetch;
  uint64_t off = 0;
  for (const auto& e : prds) {
    const uint32_t first = uint32_t(off / 512), last = uint32_t((off + e.bytes - 1) / 512);
    const sc_time start = std::max(t, plan.ready(first));
    const sc_time end =
        std::max(start + transfer_time(e.bytes, udma), plan.ready(last) + transfer_time(512, udma));
    out.push_back({start, end, e.bytes});
    off += e.bytes;
    t = end + fetch;
  }
  return out;
}

// The drive's plan for a cache miss: overhead, seek from LBA 0, rotation, media pace.
disk::ReadPlan miss_plan(const disk::DiskDrive& disk, const disk::DiskDriveParams& p, uint64_t lba,
                         uint32_t n, sc_time at) {
  disk::ReadPlan plan;
  plan.lba = lba;
  plan.sectors = n;
  plan.not_before = at + p.command_overhead() + disk.seek_time(0, lba);
  plan.arrive0 = plan.not_before + disk.rotational_wait(lba, plan.not_before);
  plan.sector_time = transfer_time(512, disk.media_rate_mb_s(lba));
  return plan;
}

const std::vector<Prd> kThreeEntries = {
    {0x200000, 4096, false}, {0x201000, 8192, false}, {0x203000, 4096, true}};  // 16 KiB
constexpr uint64_t kLba = 5000;                                                 // cylinder 4
constexpr uint8_t kSectors = 32;

TEST(IdeBusMasterDma, ReadDmaAnnouncesOneTrainPerPrdEntryAtUdma2Pace) {
  fresh_simulation();
  Rig r;
  r.write_prd_table(kThreeEntries);
  const sc_time t0 = sc_time(20, SC_US);
  std::pair<sc_time, sc_time> when;
  uint8_t mid_alt_status = 0, mid_bm = 0;
  Script s("s", [&] {
    sc_core::wait(t0);
    when = r.linux_read_dma_direct(kLba, kSectors);
    sc_core::wait(sc_time(1, SC_MS));
    mid_alt_status = r.ide.read(IC::kControl);  // Alternate Status: no INTRQ side effect
    mid_bm = r.ide.read(IC::kBusMaster + 2);
  });
  sc_core::sc_start();

  EXPECT_EQ(when.first, t0);
  EXPECT_DOUBLE_EQ(r.ide.udma_rate(), 33.3);  // udma2
  const disk::ReadPlan plan = miss_plan(r.disk, r.disk_params, kLba, kSectors, t0);
  const auto exp = expected_entries(plan, t0, kThreeEntries, 33.3, r.params.prd_fetch());
  ASSERT_EQ(r.log.trains.size(), 3u);
  const sc_time tenure = ps(kClkPs * (4 + 16 / 4));  // arbitration + address + 4 data + idle
  for (size_t i = 0; i < 3; ++i) {
    const auto& tr = r.log.trains[i];
    SCOPED_TRACE("PRD entry " + std::to_string(i));
    EXPECT_EQ(tr.master, 1);  // first master after the host bridge
    EXPECT_EQ(tr.start, exp[i].start);
    EXPECT_EQ(tr.end, exp[i].end);
    EXPECT_EQ(tr.bytes, exp[i].bytes);
    EXPECT_TRUE(tr.to_memory);
    EXPECT_EQ(tr.period,
              (exp[i].end - exp[i].start) / double(exp[i].bytes / 16));  // 16-byte bursts
    EXPECT_EQ(tr.tenure, tenure);
    // One PRD entry is fetched at START, each next one when the previous is done.
    EXPECT_EQ(r.log.announced_at[i], i == 0 ? t0 : r.log.trains[i - 1].end);
  }
  // Spelled out: the drive is faster than udma2 (44 vs 33.3 MB/s), so entry 0 starts
  // when its first sector is in the buffer and each entry takes bytes / 33.3 MB/s;
  // the next one follows after the PRD fetch.
  EXPECT_EQ(r.log.trains[0].start, plan.arrive0);
  EXPECT_EQ(to_ps(r.log.trains[0].end - r.log.trains[0].start), 123003003u);  // 4096 B @ 33.3 MB/s
  EXPECT_EQ(r.log.trains[1].start, r.log.trains[0].end + sc_time(120, SC_NS));
  EXPECT_EQ(to_ps(r.log.trains[1].end - r.log.trains[1].start), 246006006u);  // 8192 B
  EXPECT_EQ(r.log.trains[2].start, r.log.trains[1].end + sc_time(120, SC_NS));
  EXPECT_EQ(to_ps(r.log.trains[2].end - r.log.trains[2].start), 123003003u);

  // IRQ 14 rose exactly at the end of the last entry and stays up until Status is read.
  ASSERT_EQ(r.irq.edges.size(), 1u);
  EXPECT_EQ(r.irq.edges[0].at, exp[2].end);
  EXPECT_EQ(r.irq.edges[0].pin, 14u);
  EXPECT_TRUE(r.irq.edges[0].level);
  EXPECT_TRUE(r.ide.intrq.level());

  // Mid-transfer (1 ms later, before the drive even has data): busy and active.
  ASSERT_LT(t0 + sc_time(1, SC_MS), exp[2].end);
  EXPECT_EQ(mid_alt_status, IC::BSY | IC::DRDY);
  EXPECT_EQ(mid_bm, IC::DRV0_DMA | IC::ACTIVE);
  // Done: BM status INTERRUPT set and ACTIVE cleared, drive ready.
  EXPECT_EQ(r.ide.read(IC::kBusMaster + 2), IC::DRV0_DMA | IC::INTERRUPT);
  EXPECT_EQ(r.ide.read(IC::kControl), IC::DRDY);
  EXPECT_TRUE(r.ide.intrq.level());  // Alternate Status did not acknowledge

  const IdeStats& st = r.ide.stats();
  EXPECT_EQ(st.commands, 1u);
  EXPECT_EQ(st.prd_entries, 3u);
  EXPECT_EQ(st.bytes, 16384u);
  EXPECT_EQ(st.prd_64k_violations, 0u);
  EXPECT_EQ(st.busy, exp[2].end - t0);
  EXPECT_EQ(st.longest_entry, exp[1].end - exp[1].start);
}

TEST(IdeBusMasterDma, DriverEndSequenceAndStatusReadDropIntrq) {
  fresh_simulation();
  Rig r;
  r.write_prd_table(kThreeEntries);
  sc_time irq_seen, ack_at;
  uint8_t bm_after_clear = 0xff, status = 0;
  Script s("s", [&] {
    sc_core::wait(sc_time(20, SC_US));
    r.linux_read_dma_direct(kLba, kSectors);
    while (!r.ide.intrq.level()) sc_core::wait(sc_time(1, SC_US));
    irq_seen = sc_core::sc_time_stamp();
    sc_core::wait(sc_time(3, SC_US));                      // interrupt entry, then ide_dma_end:
    r.ide.write(IC::kBusMaster + 0, IC::WRITE_TO_MEMORY);  // stop: clear START
    const uint8_t stat = r.ide.read(IC::kBusMaster + 2);
    r.ide.write(IC::kBusMaster + 2, stat | IC::ERROR | IC::INTERRUPT);  // write 1 to clear
    bm_after_clear = r.ide.read(IC::kBusMaster + 2);
    ack_at = sc_core::sc_time_stamp();
    status = r.ide.read(IC::kTaskFile + 7);  // ATA Status: acknowledges INTRQ
  });
  sc_core::sc_start();
  EXPECT_EQ(bm_after_clear, IC::DRV0_DMA);  // INTERRUPT cleared, DMA-capable bit kept
  EXPECT_EQ(status, IC::DRDY);
  ASSERT_EQ(r.irq.edges.size(), 2u);
  EXPECT_TRUE(r.irq.edges[0].level);
  EXPECT_FALSE(r.irq.edges[1].level);
  EXPECT_EQ(r.irq.edges[1].at, ack_at);
  EXPECT_FALSE(r.ide.intrq.level());
  EXPECT_EQ(r.ide.read(IC::kTaskFile + 7), IC::DRDY);  // a second read changes nothing
  EXPECT_EQ(r.irq.edges.size(), 2u);
}

TEST(IdeBusMasterDma, ThroughThePciSocketTimesFollowTheRegisterWrites) {
  fresh_simulation();
  Rig r;
  r.write_prd_table(kThreeEntries);
  std::pair<sc_time, sc_time> when;
  uint8_t status = 0;
  sc_time ack_at;
  Script s("s", [&] {
    sc_core::wait(sc_time(20, SC_US));
    when = r.linux_read_dma_socket(kLba, kSectors);
    while (!r.ide.intrq.level()) sc_core::wait(sc_time(1, SC_US));
    ack_at = sc_core::sc_time_stamp();
    status = r.in8(0x1f7);
  });
  sc_core::sc_start();
  // Each port access is a PCI cycle of 3 + 2 clocks (the IDE decodes with 2 wait states):
  // 1 outl + 2 outb + 1 inb + 5 task-file outb before the command.
  const sc_time cycle = ps(kClkPs * 5);
  EXPECT_EQ(when.first, sc_time(20, SC_US) + cycle * 9.0);
  EXPECT_EQ(when.second, when.first + cycle);
  const disk::ReadPlan plan = miss_plan(r.disk, r.disk_params, kLba, kSectors, when.first);
  const auto exp = expected_entries(plan, when.second, kThreeEntries, 33.3, r.params.prd_fetch());
  ASSERT_EQ(r.log.trains.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.log.trains[i].start, exp[i].start) << i;
    EXPECT_EQ(r.log.trains[i].end, exp[i].end) << i;
  }
  ASSERT_EQ(r.irq.edges.size(), 2u);
  EXPECT_EQ(r.irq.edges[0].at, exp[2].end);
  EXPECT_EQ(status, IC::DRDY);
  EXPECT_EQ(r.irq.edges[1].at, ack_at);  // the ATA status read reached the drive at once
  EXPECT_EQ(r.ide.read32(IC::kBusMaster + 4), kPrdTable);
}

TEST(IdeBusMasterDma, Lba28TakesBits24To27FromTheDeviceRegister) {
  fresh_simulation();
  Rig r;
  r.write_prd_table(kThreeEntries);
  const uint64_t lba = 0x2345678;  // 37 M sectors in: the high nibble (2) is in Device
  ASSERT_LT(lba, r.disk_params.capacity());
  const sc_time t0 = sc_time(20, SC_US);
  Script s("s", [&] {
    sc_core::wait(t0);
    r.linux_read_dma_direct(lba, kSectors);
  });
  sc_core::sc_start();
  const disk::ReadPlan plan = miss_plan(r.disk, r.disk_params, lba, kSectors, t0);
  const auto exp = expected_entries(plan, t0, kThreeEntries, 33.3, r.params.prd_fetch());
  ASSERT_EQ(r.log.trains.size(), 3u);
  EXPECT_EQ(r.log.trains[0].start, exp[0].start);  // a long seek to the inner half
  EXPECT_EQ(r.log.trains[2].end, exp[2].end);
  EXPECT_GT(r.log.trains[0].start - t0,
            r.disk_params.command_overhead() + r.disk_params.avg_seek());
}

TEST(IdeBusMasterDma, PrdEntryCrossing64KiBIsCounted) {
  fresh_simulation();
  Rig r;
  // 8 KiB from 0x20f000 crosses 0x210000; a full 64 KiB region (count 0) at an
  // aligned base does not.
  const std::vector<Prd> prds = {{0x20f000, 8192, false}, {0x220000, 0x10000, true}};
  r.write_prd_table(prds);
  EXPECT_EQ(PrdEntry::decode(r.dram.read32(kPrdTable + 8), r.dram.read32(kPrdTable + 12)).bytes,
            0x10000u)
      << "count field 0 means 64 KiB";
  Script s("s", [&] {
    sc_core::wait(sc_time(20, SC_US));
    r.linux_read_dma_direct(kLba, 16 + 128);
  });
  sc_core::sc_start();
  EXPECT_EQ(r.ide.stats().prd_64k_violations, 1u);
  EXPECT_EQ(r.ide.stats().prd_entries, 2u);
  EXPECT_EQ(r.ide.stats().bytes, 8192u + 65536u);
  ASSERT_EQ(r.log.trains.size(), 2u);
  EXPECT_EQ(r.log.trains[1].bytes, 65536u);
}

TEST(IdeBusMasterDma, MediaBoundEntriesFollowTheDriveAtUdma5) {
  fresh_simulation();
  IdeControllerParams p;
  p.udma_mode = 5;  // 100 MB/s: now the 44 MB/s media is the bottleneck
  Rig r(p);
  r.write_prd_table(kThreeEntries);
  const sc_time t0 = sc_time(20, SC_US);
  Script s("s", [&] {
    sc_core::wait(t0);
    r.linux_read_dma_direct(kLba, kSectors);
  });
  sc_core::sc_start();
  const disk::ReadPlan plan = miss_plan(r.disk, r.disk_params, kLba, kSectors, t0);
  const auto exp = expected_entries(plan, t0, kThreeEntries, 100.0, p.prd_fetch());
  ASSERT_EQ(r.log.trains.size(), 3u);
  // Entry i ends one UDMA sector-time after its last sector arrives, and the next
  // entry starts when its first sector arrives (later than end + PRD fetch).
  const sc_time udma_sector = transfer_time(512, 100.0);
  EXPECT_EQ(r.log.trains[0].end, plan.ready(7) + udma_sector);
  EXPECT_EQ(r.log.trains[1].start, plan.ready(8));
  EXPECT_EQ(r.log.trains[1].end, plan.ready(23) + udma_sector);
  EXPECT_EQ(r.log.trains[2].start, plan.ready(24));
  EXPECT_EQ(r.log.trains[2].end, plan.ready(31) + udma_sector);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.log.trains[i].start, exp[i].start) << i;
    EXPECT_EQ(r.log.trains[i].end, exp[i].end) << i;
  }
  ASSERT_EQ(r.irq.edges.size(), 1u);
  EXPECT_EQ(r.irq.edges[0].at, plan.ready(31) + udma_sector);
}

TEST(IdeBusMasterDma, SequentialCommandHitsCacheAndStartsAfterHitOverhead) {
  fresh_simulation();
  Rig r;
  r.write_prd_table(kThreeEntries);
  sc_time t1;
  Script s("s", [&] {
    sc_core::wait(sc_time(20, SC_US));
    r.linux_read_dma_direct(kLba, kSectors);
    while (!r.ide.intrq.level()) sc_core::wait(sc_time(1, SC_US));
    r.ide.read(IC::kTaskFile + 7);
    r.ide.write(IC::kBusMaster + 0, IC::WRITE_TO_MEMORY);
    r.ide.write(IC::kBusMaster + 2, IC::INTERRUPT);
    sc_core::wait(sc_time(50, SC_US));
    t1 = sc_core::sc_time_stamp();
    r.linux_read_dma_direct(kLba + kSectors, kSectors);  // the next 16 KiB
  });
  sc_core::sc_start();
  EXPECT_EQ(r.disk.cache_hits(), 1u);
  ASSERT_EQ(r.log.trains.size(), 6u);
  // The sectors were read ahead into the buffer long ago: the entry waits only for the
  // 0.1 ms cache-hit command overhead, then runs at the UDMA rate.
  EXPECT_EQ(r.log.trains[3].start, t1 + r.disk_params.cache_hit_overhead());
  EXPECT_EQ(r.log.trains[3].end, r.log.trains[3].start + transfer_time(4096, 33.3));
  ASSERT_EQ(r.irq.edges.size(), 3u);
  EXPECT_EQ(r.irq.edges[2].at, r.log.trains[5].end);
}

TEST(IdeBusMasterDma, NienMasksIntrqButBusMasterStatusStillReportsCompletion) {
  fresh_simulation();
  Rig r;
  r.write_prd_table(kThreeEntries);
  Script s("s", [&] {
    sc_core::wait(sc_time(20, SC_US));
    r.ide.write(IC::kControl, 0x02);  // Device Control nIEN (polled I/O)
    r.linux_read_dma_direct(kLba, kSectors);
  });
  sc_core::sc_start();
  EXPECT_TRUE(r.irq.edges.empty());
  EXPECT_EQ(r.ide.read(IC::kBusMaster + 2), IC::DRV0_DMA | IC::INTERRUPT);
  EXPECT_EQ(r.ide.stats().bytes, 16384u);
}

// The bus is held by a host write (wait states for 30 ms) when the engine fetches
// its PRD entry, as if the previous entry had ended then: the fetch and the entry
// need GNT#, so the entry starts a PRD fetch after the hold ends.
TEST(IdeBusMasterDma, EntryAnnouncedWhileTheBusIsHeldStartsAPrdFetchAfterTheHold) {
  fresh_simulation();
  Rig r;
  HoldingTarget held("held", sc_time(30, SC_MS));
  r.pci.target_socket.bind(held.socket);  // port 1
  r.pci.map(kHeldMmio, 0x100, 1, "held", 2);
  r.write_prd_table(kThreeEntries);
  const sc_time t0 = sc_time(20, SC_US);
  sc_time hold_end, t1;
  Script s("s", [&] {
    sc_core::wait(t0);
    sc_time d = SC_ZERO_TIME;
    r.host.write32(kHeldMmio, 1, d);  // the bus is the host's until t0 + d
    hold_end = t0 + d;
    sc_core::wait(sc_time(1, SC_US));
    t1 = sc_core::sc_time_stamp();
    r.linux_read_dma_direct(kLba, kSectors);
  });
  sc_core::sc_start();
  EXPECT_EQ(hold_end, t0 + ps(kClkPs * 5) + sc_time(30, SC_MS));
  const disk::ReadPlan plan = miss_plan(r.disk, r.disk_params, kLba, kSectors, t1);
  ASSERT_LT(plan.ready(0), hold_end);  // the drive had the data long before
  const auto exp = expected_entries(plan, hold_end, kThreeEntries, 33.3, r.params.prd_fetch());
  ASSERT_EQ(r.log.trains.size(), 3u);
  EXPECT_EQ(r.log.trains[0].start, hold_end + r.params.prd_fetch());
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.log.trains[i].start, exp[i].start) << i;
    EXPECT_EQ(r.log.trains[i].end, exp[i].end) << i;
  }
  EXPECT_TRUE(r.log.deferred.empty());
  EXPECT_EQ(r.pci.stats().longest_transaction, hold_end - t0);
}

// An entry announced while the drive is still seeking, and a held write that takes
// the bus before the entry starts and keeps it past that: the entry starts when the
// hold ends (same length), the next PRD fetch and INTRQ move with it.
TEST(IdeBusMasterDma, EntryWaitingForTheDriveIsDeferredByAHoldCoveringItsStart) {
  fresh_simulation();
  Rig r;
  HoldingTarget held("held", sc_time(2, SC_MS));
  r.pci.target_socket.bind(held.socket);
  r.pci.map(kHeldMmio, 0x100, 1, "held", 2);
  r.write_prd_table(kThreeEntries);
  const sc_time t0 = sc_time(20, SC_US);
  pci::BurstTrain first;  // entry 0 as first announced
  sc_time t1, hold_end;
  Script s("s", [&] {
    sc_core::wait(t0);
    r.linux_read_dma_direct(kLba, kSectors);
    first = r.log.trains.at(0);
    t1 = first.start - sc_time(1, SC_MS);  // the drive delivers in ms: still seeking
    sc_core::wait(t1 - sc_core::sc_time_stamp());
    sc_time d = SC_ZERO_TIME;
    r.host.write32(kHeldMmio, 1, d);
    hold_end = t1 + d;
  });
  sc_core::sc_start();
  ASSERT_GT(hold_end, first.start);
  ASSERT_EQ(r.log.deferred.size(), 1u);
  const pci::BurstTrain& moved = r.log.deferred[0];
  EXPECT_EQ(moved.start, hold_end);
  EXPECT_EQ(moved.end, first.end + (hold_end - first.start));
  ASSERT_EQ(r.log.trains.size(), 3u);
  EXPECT_EQ(r.log.announced_at[1], moved.end);  // the next PRD is fetched when it is done
  EXPECT_EQ(r.log.trains[1].start, moved.end + r.params.prd_fetch());
  ASSERT_EQ(r.irq.edges.size(), 1u);
  EXPECT_EQ(r.irq.edges[0].at, r.log.trains[2].end);
  EXPECT_EQ(r.ide.stats().busy, r.log.trains[2].end - t0);
}

}  // namespace
}  // namespace latsim::ide

namespace latsim::ide {
namespace {

// platform.ide.latency_timer: the function's own header, as setpci writes it; -1 keeps
// the bus-wide value pcibios_set_master gave every master.
TEST(IdeControllerLatencyTimer, ByDefaultTheBusWideValue) {
  fresh_simulation();
  Rig rig;
  EXPECT_EQ(rig.ide.pci_config().latency_timer(), 64);
}

TEST(IdeControllerLatencyTimer, ItsOwnValueWhenSet) {
  fresh_simulation();
  IdeControllerParams p;
  p.latency_timer = 16;
  Rig rig(p);
  EXPECT_EQ(rig.ide.pci_config().latency_timer(), 16);
}

}  // namespace
}  // namespace latsim::ide
