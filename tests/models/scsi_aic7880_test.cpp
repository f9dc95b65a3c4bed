// The AIC-7880 driven as the 2.4 aic7xxx driver does: hardware SCBs (READ(10)/WRITE(10)
// CDB, SG pointer, tag, disconnect allowed) in host memory, their numbers in the QINFIFO,
// KERNEL_QINPOS written. The sequencer fetches each SCB and selects the disk; the disk
// disconnects while it seeks, reconnects for the data, which moves to memory as one PCI
// burst train at the 40 MB/s bus rate; the SCB number lands in the QOUTFIFO and INTA#
// rises until CLRINT.
#include "models/scsi/aic7880.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/pci_traffic_fixtures.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <cstring>
#include <string>
#include <vector>

namespace latsim::scsi {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;
using latsim::testing::TrainLog;
using A = Aic7880;

constexpr uint64_t kScbArray = 0x100000, kShared = 0x102000, kSgLists = 0x104000;

struct IrqRecorder : irq::IrqSink {
  std::vector<std::pair<sc_time, bool>> edges;
  void irq_set(unsigned, bool level) override {
    edges.push_back({sc_core::sc_time_stamp(), level});
  }
};

struct Rig {
  pci::PciBus pci;
  chipset::Dram dram{64ull << 20};
  disk::DiskDriveParams disk_params;
  disk::DiskDrive disk{disk_params};
  Aic7880Params params;
  Ddys target;
  Aic7880 hba;
  TestInitiator host;
  TrainLog log;
  IrqRecorder irq;
  uint8_t qin = 0;

  explicit Rig(Aic7880Params p = {}, const std::string& n = "a")
      : pci((n + "_pci").c_str()),
        params(p),
        target(disk, p.bus_mb_s),
        hba((n + "_hba").c_str(), p, target, dram, pci),
        host((n + "_host").c_str()) {
    host.socket.bind(pci.host_socket);
    pci.target_socket.bind(hba.socket);
    pci.map(io_addr(0xe800), 0x100, 0, "aic7880", 2);
    pci.add_listener(log);
    hba.inta.connect(irq, 9);
    std::vector<uint8_t> empty(256, A::kScbListNull);
    dram.write(kShared, empty.data(), empty.size());
    hba.write(A::HSCB_ADDR, 4, uint32_t(kScbArray));
    hba.write(A::SHARED_DATA_ADDR, 4, uint32_t(kShared));
    hba.write(A::HCNTRL, 1, A::INTEN);
  }

  // ahc_linux_run_device_queue + ahc_queue_scb for one command of `sectors` at `lba`.
  void queue(uint8_t tag, bool write, uint64_t lba, uint16_t sectors, bool post = true) {
    uint8_t hscb[A::kScbBytes] = {};
    hscb[0] = write ? A::kWrite10 : A::kRead10;
    for (int i = 0; i < 4; ++i) hscb[2 + i] = uint8_t(lba >> (24 - 8 * i));
    hscb[7] = uint8_t(sectors >> 8);
    hscb[8] = uint8_t(sectors);
    const uint32_t sg = uint32_t(kSgLists + tag * 2048u);
    std::memcpy(hscb + A::SCB_SGPTR, &sg, 4);
    hscb[A::SCB_CONTROL] = A::TAG_ENB | A::DISCENB;
    hscb[A::SCB_TAG] = tag;
    dram.write(kScbArray + tag * A::kScbBytes, hscb, sizeof hscb);
    const uint32_t seg[2] = {0x200000u + tag * 0x20000u, uint32_t(sectors) * 512 | A::kSgLast};
    dram.write(sg, seg, sizeof seg);
    dram.write(kShared + 256 + qin, &tag, 1);
    ++qin;
    if (post) hba.write(A::KERNEL_QINPOS, 1, qin);
  }
  uint8_t qout(unsigned i) const {
    uint8_t t = 0;
    dram.read(kShared + i, &t, 1);
    return t;
  }
  // The sequencer's time from KERNEL_QINPOS to the CDB sent, on an idle bus.
  sc_time to_cdb_sent() const {
    return pci.clock() * double(params.burst_overhead_clocks + A::kScbBytes / 4) +
           params.instructions(params.command_instructions) + sc_time(params.selection_us, SC_US);
  }
  sc_time reselect() const {
    return sc_time(params.reselection_us, SC_US) +
           params.instructions(params.reselect_instructions);
  }
  sc_time completion() const {
    return sc_time(params.status_us, SC_US) + params.instructions(params.complete_instructions);
  }
};

constexpr uint64_t kLba = 2000000;

TEST(Aic7880, ReadDisconnectsDuringSeekAndReconnectsForOneTrainAt40MBps) {
  fresh_simulation();
  Rig r;
  disk::DiskDrive ref_disk(r.disk_params);  // the same drive, to plan the same command
  Ddys ref(ref_disk, 40.0);
  const sc_time t0 = sc_time(10, SC_US);
  Script s("s", [&] {
    sc_core::wait(t0);
    r.queue(0, false, kLba, 128);
  });
  sc_core::sc_start();

  const TargetPlan plan = ref.queue(false, kLba, 128, t0 + r.to_cdb_sent());
  EXPECT_TRUE(plan.disconnects);
  EXPECT_EQ(r.hba.stats().disconnects, 1u);
  ASSERT_EQ(r.log.trains.size(), 1u);
  const pci::BurstTrain& tr = r.log.trains[0];
  EXPECT_EQ(tr.master, r.hba.master());
  EXPECT_TRUE(tr.to_memory);
  EXPECT_EQ(tr.bytes, 128u * 512);
  EXPECT_EQ(tr.start, plan.reselect + r.reselect());  // the target reconnects
  // The whole transfer at the Ultra Wide rate: the target waited for its buffer.
  EXPECT_EQ(tr.end - tr.start, transfer_time(512, 40.0) * 128.0);
  EXPECT_EQ(tr.period, (tr.end - tr.start) / double(128 * 512 / 128));  // 128-byte bursts
  EXPECT_EQ(tr.tenure, r.pci.clock() * double(4 + 128 / 4));
  // Command complete: the SCB number in the QOUTFIFO and INTA# up.
  ASSERT_EQ(r.irq.edges.size(), 1u);
  EXPECT_EQ(r.irq.edges[0].first, tr.end + r.completion());
  EXPECT_TRUE(r.irq.edges[0].second);
  EXPECT_EQ(r.qout(0), 0u);
  EXPECT_EQ(r.qout(1), A::kScbListNull);
  EXPECT_EQ(r.hba.read(A::INTSTAT, 1) & A::CMDCMPLT, A::CMDCMPLT);
}

TEST(Aic7880, SequencerOverheadGrowsWithItsInstructions) {
  fresh_simulation();
  Aic7880Params slow;
  slow.command_instructions = 1150;  // 100 us more at 10 MIPS
  Rig fast({}, "fast"), lazy(slow, "lazy");
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    fast.queue(0, true, kLba, 8);
    lazy.queue(0, true, kLba, 8);
  });
  sc_core::sc_start();
  ASSERT_EQ(fast.log.trains.size(), 1u);
  ASSERT_EQ(lazy.log.trains.size(), 1u);
  EXPECT_FALSE(fast.log.trains[0].to_memory);  // a write: the adapter reads memory
  EXPECT_EQ(lazy.log.trains[0].start - fast.log.trains[0].start, sc_time(100, SC_US));
}

TEST(Aic7880, TaggedCommandsQueueAtTheTargetAndCompleteInOrder) {
  fresh_simulation();
  Rig r;
  size_t outstanding = 0;
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    for (uint8_t tag = 0; tag < 4; ++tag) r.queue(tag, false, kLba + tag * 500000u, 16, false);
    r.hba.write(A::KERNEL_QINPOS, 1, r.qin);  // four SCBs posted at once
    outstanding = r.hba.outstanding();
  });
  sc_core::sc_start();
  EXPECT_EQ(outstanding, 4u);
  EXPECT_EQ(r.hba.stats().max_outstanding, 4u);
  EXPECT_EQ(r.hba.outstanding(), 0u);
  ASSERT_EQ(r.log.trains.size(), 4u);
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(r.qout(i), i);
  for (unsigned i = 1; i < 4; ++i) EXPECT_GE(r.log.trains[i].start, r.log.trains[i - 1].end);
  // INTA# stays up from the first completion: the driver never cleared it.
  ASSERT_EQ(r.irq.edges.size(), 1u);
}

// Two commands far apart: with disconnection the second is selected while the first
// seeks, so its own seek overlaps; without it the first holds the bus to its status.
TEST(Aic7880, DisconnectFreesTheBusForTheNextSelection) {
  fresh_simulation();
  Aic7880Params held;
  held.disconnect = false;
  Rig on({}, "on"), off(held, "off");
  Script s("s", [&] {
    sc_core::wait(sc_time(10, SC_US));
    for (Rig* r : {&on, &off}) {
      r->queue(0, false, kLba, 64);
      r->queue(1, false, kLba + 20000000, 64);
    }
  });
  sc_core::sc_start();
  EXPECT_EQ(on.hba.stats().selections_delayed, 0u);
  EXPECT_EQ(off.hba.stats().selections_delayed, 1u);
  EXPECT_EQ(off.hba.stats().disconnects, 0u);
  ASSERT_EQ(on.log.trains.size(), 2u);
  ASSERT_EQ(off.log.trains.size(), 2u);
  // The first seeks either way; disconnected, it pays the reconnection.
  EXPECT_EQ(on.log.trains[0].start, off.log.trains[0].start + on.reselect());
  // Held, the bus carries the seeks and rotations too (over a millisecond each here).
  EXPECT_LT(on.hba.stats().bus_busy + sc_time(2, SC_MS), off.hba.stats().bus_busy);
  EXPECT_GE(on.log.trains[1].start, on.log.trains[0].end);
}

TEST(Aic7880, ClrintDropsIntaAndWithoutIntenItNeverRises) {
  fresh_simulation();
  Rig r({}, "r");
  Aic7880Params p;
  Rig quiet(p, "quiet");
  Script s("s", [&] {
    quiet.hba.write(A::HCNTRL, 1, 0);
    sc_core::wait(sc_time(10, SC_US));
    r.queue(0, false, kLba, 8);
    quiet.queue(0, false, kLba, 8);
    sc_core::wait(sc_time(50, SC_MS));
    r.hba.write(A::CLRINT, 1, A::CMDCMPLT);
  });
  sc_core::sc_start();
  ASSERT_EQ(r.irq.edges.size(), 2u);
  EXPECT_FALSE(r.irq.edges[1].second);
  EXPECT_EQ(r.irq.edges[1].first, sc_time(10, SC_US) + sc_time(50, SC_MS));
  EXPECT_EQ(r.hba.stats().irqs, 1u);
  EXPECT_TRUE(quiet.irq.edges.empty());
  EXPECT_EQ(quiet.qout(0), 0u);  // completed all the same
}

}  // namespace
}  // namespace latsim::scsi
