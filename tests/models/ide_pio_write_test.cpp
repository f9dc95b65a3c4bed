// IDE PIO data-in (READ SECTORS): INTRQ and DRQ when each sector is in the drive's
// buffer, then the host moves the sector through the data port, every word or
// dword one PCI I/O cycle plus the ATA PIO cycles of the mode (t0 = 120 ns in
// mode 4, 600 ns in mode 0); a 512-byte sector with 32-bit transfers is 128 I/O
// cycles. And WRITE DMA: the bus master reads memory, INTRQ when the data is in
// the drive's write cache, or on the media without it.
#include "models/ide/ide_controller.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <vector>

namespace latsim::ide {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;
using IC = IdeController;

constexpr uint64_t kClkPs = 30003;  // 33.33 MHz PCI clock
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }
constexpr uint16_t kBmBase = 0xd000;
constexpr uint32_t kPrdTable = 0x00100000;
constexpr uint64_t kLba = 5000;

struct IrqRecorder : irq::IrqSink {
  std::vector<std::pair<sc_time, bool>> edges;
  void irq_set(unsigned, bool level) override {
    edges.emplace_back(sc_core::sc_time_stamp(), level);
  }
};

struct TrainLog : pci::MasterTrafficListener {
  std::vector<pci::BurstTrain> trains;
  void master_traffic(const pci::BurstTrain& t) override { trains.push_back(t); }
};

struct Rig {
  pci::PciBus pci{"pci"};
  chipset::Dram dram{64ull << 20};
  disk::DiskDriveParams disk_params;
  disk::DiskDrive disk;
  IdeController ide;
  TestInitiator host{"host"};
  IrqRecorder irq;
  TrainLog log;

  Rig(IdeControllerParams p, disk::DiskDriveParams d = {})
      : disk_params(d), disk(d), ide("ide", p, disk, dram, pci) {
    host.socket.bind(pci.host_socket);
    pci.target_socket.bind(ide.socket);
    pci.map(io_addr(0x1f0), 8, 0, "ide-taskfile", 2, IC::kTaskFile);
    pci.map(io_addr(0x3f6), 1, 0, "ide-control", 2, IC::kControl);
    pci.map(io_addr(kBmBase), 8, 0, "ide-busmaster", 2, IC::kBusMaster);
    pci.add_listener(log);
    ide.intrq.connect(irq, 14);
  }
  void out8(uint16_t port, uint8_t v) {
    sc_time d = SC_ZERO_TIME;
    host.write8(io_addr(port), v, d);
    sc_core::wait(d);
  }
  uint8_t in8(uint16_t port) {
    sc_time d = SC_ZERO_TIME;
    const uint8_t v = host.read8(io_addr(port), d);
    sc_core::wait(d);
    return v;
  }
  void in32(uint16_t port) {
    sc_time d = SC_ZERO_TIME;
    host.read32(io_addr(port), d);
    sc_core::wait(d);
  }
  void in16(uint16_t port) {
    sc_time d = SC_ZERO_TIME;
    uint16_t v = 0;
    host.access(tlm::TLM_READ_COMMAND, io_addr(port), &v, 2, d);
    sc_core::wait(d);
  }
  // Task file and command as __ide_do_rw_disk writes them (LBA28, drive 0).
  sc_time command(uint8_t cmd, uint64_t lba, uint8_t n) {
    out8(0x1f2, n);
    out8(0x1f3, uint8_t(lba));
    out8(0x1f4, uint8_t(lba >> 8));
    out8(0x1f5, uint8_t(lba >> 16));
    out8(0x1f6, uint8_t(0xe0 | ((lba >> 24) & 0x0f)));
    const sc_time at = sc_core::sc_time_stamp();
    out8(0x1f7, cmd);
    return at;
  }
};

// The drive's read plan for a cache miss from LBA 0 (as the ide_controller test).
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

TEST(IdePio, SectorWith32BitTransfersIs128IoCyclesOfPciPlusTwoAtaCycles) {
  fresh_simulation();
  IdeControllerParams p;
  p.pio_mode = 4;
  Rig r(p);
  disk::DiskDrive reference(r.disk_params);  // the same drive, to compute the plan
  sc_time cmd, irq1_seen, sector1_start, sector1_end, sector2_end;
  uint8_t st1 = 0, st_mid = 0, st_end = 0;
  uint64_t accesses_after_1 = 0;
  Script s("s", [&] {
    sc_core::wait(sc_time(20, SC_US));
    cmd = r.command(IC::kReadSectors, kLba, 2);
    while (!r.ide.intrq.level()) sc_core::wait(sc_time(10, SC_NS));
    irq1_seen = sc_core::sc_time_stamp();
    st1 = r.in8(0x1f7);  // task_in_intr: Status acknowledges INTRQ
    sector1_start = sc_core::sc_time_stamp();
    for (int i = 0; i < 128; ++i) r.in32(0x1f0);  // ide_insl(IDE_DATA_REG, buf, 128)
    sector1_end = sc_core::sc_time_stamp();
    accesses_after_1 = r.ide.stats().pio_accesses;
    st_mid = r.ide.read(IC::kControl);  // Alternate Status
    r.in8(0x1f7);
    for (int i = 0; i < 128; ++i) r.in32(0x1f0);
    sector2_end = sc_core::sc_time_stamp();
    st_end = r.in8(0x1f7);
  });
  sc_core::sc_start();
  const disk::ReadPlan plan = miss_plan(reference, r.disk_params, kLba, 2, cmd);
  // INTRQ rises when sector 0 is in the buffer; the poll loop sees it within 10 ns.
  ASSERT_GE(r.irq.edges.size(), 2u);
  EXPECT_EQ(r.irq.edges[0].first, plan.ready(0));
  EXPECT_TRUE(r.irq.edges[0].second);
  EXPECT_EQ(st1, IC::DRQ | IC::DRDY);
  EXPECT_FALSE(r.irq.edges[1].second);  // dropped by the Status read
  // Each inl: address + DEVSEL (2) + data phase + turnaround = 5 PCI clocks, with the
  // controller in wait states for two 16-bit ATA cycles of 120 ns.
  const sc_time per_dword = clocks(5) + sc_time(240, SC_NS);
  EXPECT_EQ(sector1_end - sector1_start, per_dword * 128.0);
  EXPECT_EQ(accesses_after_1, 128u);
  // Sector 1 came off the media long before (11.6 us after sector 0): the drive
  // raises DRQ and INTRQ as soon as the 128th access of sector 0 is over.
  ASSERT_LT(plan.ready(1), sector1_end);
  ASSERT_GE(r.irq.edges.size(), 3u);
  EXPECT_EQ(r.irq.edges[2].first, sector1_end);
  EXPECT_TRUE(r.irq.edges[2].second);
  EXPECT_EQ(st_mid, IC::DRQ | IC::DRDY);
  // The last DRQ block read: the command is done, no further interrupt.
  EXPECT_EQ(st_end, IC::DRDY);
  EXPECT_EQ(r.irq.edges.size(), 4u);  // up, down, up, down
  EXPECT_EQ(r.ide.stats().pio_sectors, 2u);
  EXPECT_EQ(r.ide.stats().pio_accesses, 256u);
  EXPECT_EQ(r.ide.stats().bytes, 1024u);
  EXPECT_EQ(sector2_end - (sector1_end + clocks(5)), per_dword * 128.0);
}

TEST(IdePio, SixteenBitTransfersInPioMode0Cost256CyclesOf600Ns) {
  fresh_simulation();
  IdeControllerParams p;
  p.pio_mode = 0;
  Rig r(p);
  sc_time start, end;
  Script s("s", [&] {
    sc_core::wait(sc_time(20, SC_US));
    r.command(IC::kReadSectors, kLba, 1);
    while (!r.ide.intrq.level()) sc_core::wait(sc_time(10, SC_NS));
    r.in8(0x1f7);
    start = sc_core::sc_time_stamp();
    for (int i = 0; i < 256; ++i) r.in16(0x1f0);  // ide_insw(IDE_DATA_REG, buf, 256)
    end = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(end - start, (clocks(5) + sc_time(600, SC_NS)) * 256.0);
  EXPECT_EQ(r.ide.stats().pio_accesses, 256u);
  EXPECT_EQ(r.ide.stats().pio_sectors, 1u);
  EXPECT_EQ(r.ide.read(IC::kControl), IC::DRDY);
}

// WRITE DMA of 16 sectors from one 8 KiB PRD entry: the bus master reads memory.
struct WriteRun {
  sc_time cmd, start_write;
  std::vector<pci::BurstTrain> trains;
  std::vector<std::pair<sc_time, bool>> irq;
  disk::WritePlan plan;
};

WriteRun write_dma(bool cache) {
  fresh_simulation();
  disk::DiskDriveParams d;
  d.write_cache = cache;
  Rig r(IdeControllerParams{}, d);
  const uint32_t dw[2] = {0x200000, 8192 | PrdEntry::kEot};
  r.dram.write(kPrdTable, dw, 8);
  WriteRun out;
  Script s("s", [&] {
    sc_core::wait(sc_time(20, SC_US));
    sc_time dd = SC_ZERO_TIME;
    r.host.write32(io_addr(kBmBase + 4), kPrdTable, dd);
    sc_core::wait(dd);
    r.out8(kBmBase, 0x00);  // direction: the bus master reads memory
    out.cmd = r.command(IC::kWriteDma, kLba, 16);
    out.start_write = sc_core::sc_time_stamp();
    r.out8(kBmBase, IC::START);
  });
  sc_core::sc_start();
  disk::DiskDrive reference(d);
  out.plan = reference.write(kLba, 16, out.cmd, transfer_time(512, 33.3));
  out.trains = r.log.trains;
  out.irq = r.irq.edges;
  EXPECT_EQ(r.ide.stats().write_commands, 1u);
  EXPECT_EQ(r.ide.stats().bytes_written, 8192u);
  return out;
}

TEST(IdeWriteDma, WithWriteCacheIntrqWhenTheDataIsInTheDrive) {
  const WriteRun w = write_dma(true);
  ASSERT_EQ(w.trains.size(), 1u);
  const pci::BurstTrain& t = w.trains[0];
  EXPECT_FALSE(t.to_memory);  // memory reads: no CPU holdoff
  // The drive takes data 15 us after the command (write overhead); the PRD fetch
  // after START is done by then, so the entry starts then and runs at udma2.
  EXPECT_EQ(w.plan.ready(0), w.cmd + sc_time(15, SC_US));
  EXPECT_EQ(t.start, w.plan.ready(0));
  EXPECT_EQ(t.end, t.start + transfer_time(8192, 33.3));
  ASSERT_EQ(w.irq.size(), 1u);
  EXPECT_EQ(w.irq[0].first, t.end);
  EXPECT_TRUE(w.plan.write_back);
  EXPECT_GT(w.plan.media_done, t.end + sc_time(1, SC_MS));  // flushed later: seek + rotation
}

TEST(IdeWriteDma, WithoutWriteCacheIntrqWhenTheDataIsOnTheMedia) {
  const WriteRun w = write_dma(false);
  ASSERT_EQ(w.trains.size(), 1u);
  EXPECT_FALSE(w.plan.write_back);
  ASSERT_EQ(w.irq.size(), 1u);
  EXPECT_GT(w.plan.media_done, w.trains[0].end);
  EXPECT_EQ(w.irq[0].first, w.plan.media_done);
}

}  // namespace
}  // namespace latsim::ide
