// The video-FIFO freeze (docs/MODEL.md, "Video card"), through the X server's own FIFO code
// (workloads/glint_fifo) on a CPU port of the board: a Pentium II-class
// core, the host bridge with its posted-write buffer, the 33 MHz PCI bus and a
// Permedia 2-class card. X starts a window-sized copy and keeps storing. A timer
// interrupt that becomes pending meanwhile is taken:
//   rude, PCI 2.0 : when the held store ends, i.e. when the copy drains (the core
//                   is stuck in a store that cannot retire);
//   poll, cached  : at the end of the status read in flight (the driver spins on
//                   InFIFOSpace between instructions, the bus is never held);
// and with a PCI 2.1 card the IDE bus master moves its data during the copy.
#include "models/chipset/host_bridge.h"
#include "models/cpu/local_apic.h"
#include "models/cpu/pentium3.h"
#include "models/ide/ide_controller.h"
#include "models/irq/apic_bus.h"
#include "models/video/permedia2.h"
#include "platform/cpu_port.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"
#include "workloads/glint_fifo.h"

#include <gtest/gtest.h>
#include <memory>
#include <vector>

namespace latsim::platform {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;
using workloads::FifoPolicy;
using workloads::GlintFifo;
namespace pm2 = workloads::pm2;
using IC = ide::IdeController;

constexpr uint64_t kFb = 0xe0000000;
constexpr uint16_t kBm = 0xd000;
constexpr uint32_t kPrdTable = 0x00100000;
constexpr unsigned kTimerVector = 0x31;  // IRQ 0 as Linux 2.6 assigns it

struct TrainLog : pci::MasterTrafficListener {
  std::vector<pci::BurstTrain> trains;
  void master_traffic(const pci::BurstTrain& t) override { trains.push_back(t); }
  void master_traffic_deferred(const pci::BurstTrain&, const pci::BurstTrain& a) override {
    trains.push_back(a);  // where it really runs
  }
};

struct Access {
  sc_time start, end;
};

struct Rig {
  pci::PciBus pci{"pci"};
  chipset::Dram dram{64ull << 20};
  disk::DiskDriveParams disk_params;
  disk::DiskDrive disk{disk_params};
  ide::IdeController ide{"ide", ide::IdeControllerParams{}, disk, dram, pci};
  video::Permedia2 card;
  std::unique_ptr<chipset::HostBridge> hb;
  cpu::LocalApic apic{"lapic", 0, 66.67};
  irq::ApicBusHub apic_bus;
  std::unique_ptr<cpu::Pentium3> core;
  std::unique_ptr<CpuPort> port;
  TrainLog log;
  std::vector<sc_time> taken;  // when the core took each interrupt
  std::vector<Access> reads;   // the driver's status reads
  std::unique_ptr<GlintFifo> fifo;

  Rig(FifoPolicy policy, video::FullFifoWrite mode) : card("card", card_params(mode)) {
    chipset::HostBridgeParams hp;
    hp.holdoff = chipset::CpuHoldoff::None;  // 440BX-class: only PCI matters
    hp.posted_write_entries = 4;
    hb = std::make_unique<chipset::HostBridge>("hb", hp, pci, dram);
    pci.target_socket.bind(card.socket);  // 0
    pci.target_socket.bind(ide.socket);   // 1
    pci.map(kFb, 0x10000, 0, "video", 2);
    pci.map(io_addr(0x1f0), 8, 1, "ide-taskfile", 2, IC::kTaskFile);
    pci.map(io_addr(kBm), 8, 1, "ide-busmaster", 2, IC::kBusMaster);
    pci.add_listener(log);
    apic_bus.attach(0, apic);
    cpu::CpuParams cp;
    cp.mhz = 333.0;  // Pentium II 333
    core = std::make_unique<cpu::Pentium3>("cpu", 0, cp, *hb, apic);
    port = std::make_unique<CpuPort>(*core, 333.0, apic_bus);
    core->set_interrupt_flag(true);  // user mode: interrupts on
    GlintFifo::Ops ops;
    ops.readl = [this](uint64_t a) {
      const sc_time t0 = sc_core::sc_time_stamp();
      const uint32_t v = port->readl(a);
      reads.push_back({t0, sc_core::sc_time_stamp()});
      return v;
    };
    ops.writel = [this](uint32_t v, uint64_t a) { port->writel(v, a); };
    ops.run = [this](uint64_t cycles) { run(cycles); };
    fifo = std::make_unique<GlintFifo>(policy, kFb, 256, 6, 4, std::move(ops));
    const uint32_t prd[4] = {0x200000, 4096, 0x201000, 4096 | ide::PrdEntry::kEot};
    dram.write(kPrdTable, prd, sizeof prd);
  }
  static video::Permedia2Params card_params(video::FullFifoWrite mode) {
    video::Permedia2Params p;  // 256 entries, the model's default drain table
    p.full_write = mode;
    return p;
  }
  // Driver code: interrupts are taken at its instruction boundaries (and return at once).
  void run(uint64_t cycles) {
    kernel::Work w{cycles, 0};
    while (!port->run(w)) {
      taken.push_back(sc_core::sc_time_stamp());
      const kernel::Trap t = port->take_interrupt();
      port->iret(t, true);
    }
  }
  // X: a 1000x700 screen-to-screen copy, then `n` more stores (a redraw behind it).
  // Returns when the core will be done with the copy.
  sc_time copy_then_store(unsigned n, sc_time& copy_done) {
    fifo->wait(3);
    fifo->write(pm2::ConfigReadSource, pm2::Config);
    fifo->write(700u << 16 | 1000u, pm2::RectangleSize);
    fifo->write(pm2::PrimitiveRectangle, pm2::Render);
    sc_core::wait(sc_time(2, SC_US));  // the posted stores reached the card
    copy_done = card.core_busy_until();
    const sc_time t0 = sc_core::sc_time_stamp();
    for (unsigned i = 0; i < n; ++i) {
      fifo->wait(1);
      fifo->write(~0u, pm2::BitMaskPattern);
    }
    return t0;
  }
  // Linux ide-dma: PRD pointer, direction, task file, READ DMA, START (16 sectors).
  void read_dma(uint64_t lba) {
    port->outl(kPrdTable, kBm + 4);
    port->outb(IC::WRITE_TO_MEMORY, kBm);
    port->outb(16, 0x1f2);
    port->outb(uint8_t(lba), 0x1f3);
    port->outb(uint8_t(lba >> 8), 0x1f4);
    port->outb(uint8_t(lba >> 16), 0x1f5);
    port->outb(0xe0, 0x1f6);
    port->outb(IC::kReadDma, 0x1f7);
    port->outb(IC::WRITE_TO_MEMORY | IC::START, kBm);
  }
  // The first instruction boundary at or after `t`: the end of a status read in
  // flight then, else the next core clock of the driver's own code.
  sc_time boundary_after(sc_time t) const {
    for (const auto& a : reads)
      if (a.start <= t && t < a.end) return a.end;
    const uint64_t c = to_ps(core->period());
    return ps((to_ps(t) + c - 1) / c * c);
  }
};

constexpr unsigned kStores = 600;  // more than FIFO + posting buffer: the FIFO fills

// Rude + PCI 2.0: the pending timer interrupt waits for the copy to drain.
TEST(VideoFifoDriver, RudeStoreIntoFullPci20FifoDelaysTheTimerInterruptByTheDrain) {
  fresh_simulation();
  Rig r(FifoPolicy::Rude, video::FullFifoWrite::Pci20Hold);
  sc_time copy_done, irq_at;
  Script x("x", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.copy_then_store(kStores, copy_done);
  });
  Script timer("timer", [&] {
    sc_core::wait(sc_time(1, SC_MS));  // the FIFO is long full, the store held
    irq_at = sc_core::sc_time_stamp();
    ASSERT_EQ(r.card.level(), 256u);
    r.apic.accept(kTimerVector, irq::DeliveryMode::Fixed);
  });
  sc_core::sc_start();
  ASSERT_EQ(r.taken.size(), 1u);
  // Taken when the held store ends: the core takes the FIFO's head when the copy is done.
  EXPECT_EQ(r.taken[0], copy_done);
  EXPECT_GT(copy_done - irq_at, sc_time(27, SC_MS));  // 700000 px x 40 ns, less 1 ms
  EXPECT_GT(r.card.stats().longest_hold, sc_time(27, SC_MS));
  EXPECT_EQ(r.fifo->stats().status_reads, 0u);
}

// Poll: the driver reads InFIFOSpace before every store and spins while it reads 0.
TEST(VideoFifoDriver, PollingDriverTakesTheTimerInterruptAtTheNextInstruction) {
  fresh_simulation();
  Rig r(FifoPolicy::Poll, video::FullFifoWrite::Pci20Hold);
  sc_time copy_done, irq_at;
  Script x("x", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.copy_then_store(kStores, copy_done);
  });
  Script timer("timer", [&] {
    sc_core::wait(sc_time(1, SC_MS));
    irq_at = sc_core::sc_time_stamp();
    ASSERT_EQ(r.card.level(), 256u);
    r.apic.accept(kTimerVector, irq::DeliveryMode::Fixed);
  });
  sc_core::sc_start();
  ASSERT_EQ(r.taken.size(), 1u);
  EXPECT_EQ(r.taken[0], r.boundary_after(irq_at));
  EXPECT_LT(r.taken[0] - irq_at, sc_time(1, SC_US));
  EXPECT_EQ(r.card.stats().full_writes, 0u);  // no store ever met a full FIFO
  EXPECT_EQ(r.card.stats().hold_total, SC_ZERO_TIME);
  EXPECT_EQ(r.fifo->stats().writes, kStores + 3);
  EXPECT_GT(r.fifo->stats().spin_reads, 1000u);  // it spun for the copy's ~28 ms
}

// Cached free count: reads only when the copy runs out; the same answer as poll.
TEST(VideoFifoDriver, CachedCountDriverTakesTheTimerInterruptAtTheNextInstruction) {
  fresh_simulation();
  Rig r(FifoPolicy::Cached, video::FullFifoWrite::Pci20Hold);
  sc_time copy_done, irq_at;
  Script x("x", [&] {
    sc_core::wait(sc_time(10, SC_US));
    r.copy_then_store(kStores, copy_done);
  });
  Script timer("timer", [&] {
    sc_core::wait(sc_time(1, SC_MS));
    irq_at = sc_core::sc_time_stamp();
    ASSERT_EQ(r.card.level(), 256u);
    r.apic.accept(kTimerVector, irq::DeliveryMode::Fixed);
  });
  sc_core::sc_start();
  ASSERT_EQ(r.taken.size(), 1u);
  EXPECT_EQ(r.taken[0], r.boundary_after(irq_at));
  EXPECT_LT(r.taken[0] - irq_at, sc_time(1, SC_US));
  EXPECT_EQ(r.card.stats().full_writes, 0u);
  EXPECT_EQ(r.card.stats().hold_total, SC_ZERO_TIME);
  // Reads that found room: a handful, one per refill of the cached count, not one
  // per store as with poll.
  const auto& f = r.fifo->stats();
  EXPECT_LE(f.status_reads - f.spin_reads, f.writes / 50);
}

// The IDE read started before the copy: with a PCI 2.1 card (Retry) both its
// scatter-gather entries move during the copy; with a 2.0 card the second waits
// for the held store, after the copy.
void ide_during_copy(video::FullFifoWrite mode, bool moves) {
  fresh_simulation();
  Rig r(FifoPolicy::Rude, mode);
  sc_time copy_done;
  Script x("x", [&] {
    sc_core::wait(sc_time(5, SC_US));
    r.read_dma(5000);
    r.copy_then_store(kStores, copy_done);
  });
  sc_core::sc_start();
  ASSERT_GE(r.log.trains.size(), 2u);
  ASSERT_LT(r.log.trains[0].start, copy_done);  // the disk delivers during the copy
  const sc_time last_end = r.log.trains.back().end;
  if (moves) {
    EXPECT_LT(last_end, copy_done);
    // Wait states only within the 2.1 limit (an entry drains within 16 clocks).
    EXPECT_LT(r.card.stats().longest_hold, ps(16 * 30003));
    EXPECT_GT(r.card.stats().retries, 1000u);
  } else {
    EXPECT_GT(r.log.trains.back().start, copy_done - sc_time(1, SC_NS));
    EXPECT_GT(r.card.stats().longest_hold, sc_time(1, SC_MS));
  }
}

TEST(VideoFifoDriver, Pci21TargetLetsIdeDmaMoveDuringTheRudeStall) {
  ide_during_copy(video::FullFifoWrite::Pci21Retry, true);
}

TEST(VideoFifoDriver, Pci20TargetHoldsIdeDmaUntilTheCopyDrains) {
  ide_during_copy(video::FullFifoWrite::Pci20Hold, false);
}

}  // namespace
}  // namespace latsim::platform
