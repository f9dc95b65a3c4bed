// BestComm SDMA engine driven as Linux's bestcomm/fec.c does: the FEC receive task's ring
// of descriptors in the SRAM (READY | buffer size, buffer address), TCR's TASK_ENABLE,
// IntMask cleared for the task. A frame entering the FEC's Rx FIFO leaves it in 32-byte
// XLB bursts as the wire brings it; the descriptor is closed (L, length, READY cleared) after
// the last burst and the task's IntPend bit raises the SDMA interrupt. The transmit task
// moves each ready descriptor's buffer when enabled, one frame after the other at wire speed.
#include "models/dma/bestcomm.h"
#include "models/net/ethernet.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <vector>

namespace latsim::dma {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;
using B = Bestcomm;

constexpr uint32_t kRxRing = 0x100, kTxRing = 0x900, kBuf = 0x00400000;
sc_time bytes_on_wire(uint64_t n) { return sc_time(double(n * 80), SC_NS); }  // 100 Mbit/s

struct TrainLog : pci::MasterTrafficListener {
  std::vector<pci::BurstTrain> trains;
  void master_traffic(const pci::BurstTrain& t) override { trains.push_back(t); }
};

struct IrqRecorder : irq::IrqSink {
  std::vector<std::pair<sc_time, bool>> edges;
  void irq_set(unsigned, bool level) override {
    edges.push_back({sc_core::sc_time_stamp(), level});
  }
};

struct Rig {
  pci::PciBus xlb{"xlb"};
  chipset::Dram dram{64ull << 20};
  Bestcomm bc{"bestcomm", BestcommParams{}, dram, xlb};
  latsim::testing::TestInitiator host{"host"};
  TrainLog log;
  IrqRecorder irq;
  Rig() {
    host.socket.bind(xlb.host_socket);
    xlb.target_socket.bind(bc.socket);
    xlb.add_listener(log);
    bc.irq.connect(irq, 0);
  }
  void sram(uint32_t off, uint32_t v) { bc.write(B::kSram + off, 4, v); }
  uint32_t sram(uint32_t off) { return bc.read(B::kSram + off, 4); }
  // bcom_fec_rx_reset + mpc52xx_fec_alloc_rx_buffers + bcom_enable, `ready` descriptors.
  void linux_rx_open(uint32_t num_bd, uint32_t ready) {
    sram(B::kVarTable + 0, kRxRing);
    sram(B::kVarTable + 4, num_bd);
    for (uint32_t i = 0; i < ready; ++i) {
      sram(kRxRing + 8 * i, B::BD_READY | 1522);
      sram(kRxRing + 8 * i + 4, kBuf + 2048 * i);
    }
    bc.write(B::INT_MASK, 4, ~1u);
    bc.write(B::TCR0, 2, B::TASK_ENABLE);
  }
};

TEST(BestcommRx, FrameLeavesTheFifoInXlbBurstsAsTheWireBringsItThenDescriptorAndIrq) {
  fresh_simulation();
  Rig r;
  const sc_time t0 = sc_time(100, SC_US);
  bool taken = false;
  Script s("s", [&] {
    r.linux_rx_open(4, 1);
    // The FEC hands the frame over once its first burst is in the FIFO.
    sc_core::wait(t0 + bytes_on_wire(8 + 32) - sc_core::sc_time_stamp());
    taken = r.bc.rx_frame({t0, 1000, 100.0});
  });
  sc_core::sc_start();
  ASSERT_TRUE(taken);
  // 132 MHz, 8 bytes a clock: a 32-byte burst is 4 beats + 3 clocks, far quicker than
  // the 2.56 us the wire takes for 32 bytes: the last burst follows the last byte.
  const sc_time clk = sc_time(1e6 / 132.0, SC_PS);
  EXPECT_EQ(r.bc.burst_tenure(32), clk * 7.0);
  ASSERT_EQ(r.log.trains.size(), 1u);
  const pci::BurstTrain& t = r.log.trains[0];
  EXPECT_EQ(t.master, r.bc.master());
  EXPECT_EQ(t.start, t0 + bytes_on_wire(8 + 32));
  EXPECT_EQ(t.end, t0 + bytes_on_wire(8 + 1000) + r.bc.burst_tenure(1000 - 31 * 32));
  EXPECT_EQ(t.bytes, 1000u);
  EXPECT_TRUE(t.to_memory);
  EXPECT_EQ(t.tenure, r.bc.burst_tenure(32));
  // Descriptor closed, IntPend bit 0, the SDMA line up at the end of the last burst.
  EXPECT_EQ(r.sram(kRxRing), B::RX_BD_L | 1000u);
  EXPECT_EQ(r.bc.read(B::INT_PEND, 4), 1u);
  ASSERT_EQ(r.irq.edges.size(), 1u);
  EXPECT_EQ(r.irq.edges[0].first, t.end);
  EXPECT_TRUE(r.irq.edges[0].second);
  uint8_t b100 = 0;
  r.dram.read(kBuf + 100, &b100, 1);
  EXPECT_EQ(b100, 100);
  // mpc52xx_sdma_ack: write 1 to clear; the line drops.
  r.bc.write(B::INT_PEND, 4, 1);
  EXPECT_FALSE(r.bc.irq.level());
  EXPECT_EQ(r.bc.stats().rx_frames, 1u);
  EXPECT_EQ(r.bc.stats().irqs, 1u);
}

TEST(BestcommRx, NoReadyDescriptorLosesTheFrameAndMaskedTaskRaisesNoIrq) {
  fresh_simulation();
  Rig r;
  bool first = false, second = true;
  Script s("s", [&] {
    r.linux_rx_open(2, 1);
    r.bc.write(B::INT_MASK, 4, ~0u);  // task 0 masked
    sc_core::wait(sc_time(10, SC_US));
    first = r.bc.rx_frame({sc_core::sc_time_stamp(), 64, 100.0});
    sc_core::wait(sc_time(20, SC_US));
    second = r.bc.rx_frame({sc_core::sc_time_stamp(), 64, 100.0});  // BD 1 never made ready
  });
  sc_core::sc_start();
  EXPECT_TRUE(first);
  EXPECT_FALSE(second);
  EXPECT_EQ(r.bc.stats().rx_dropped_no_bd, 1u);
  EXPECT_EQ(r.bc.read(B::INT_PEND, 4), 1u);
  EXPECT_TRUE(r.irq.edges.empty());
}

TEST(BestcommTx, ReadyDescriptorsMoveWhenEnabledOneFrameAfterTheOtherAtWireSpeed) {
  fresh_simulation();
  Rig r;
  sc_time t_enable;
  Script s("s", [&] {
    r.sram(B::kVarTable + 8, kTxRing);
    r.sram(B::kVarTable + 12, 8);
    for (uint32_t i = 0; i < 2; ++i) {
      r.sram(kTxRing + 8 * i, B::BD_READY | 100);
      r.sram(kTxRing + 8 * i + 4, kBuf + 2048 * i);
    }
    r.bc.write(B::INT_MASK, 4, ~2u);
    sc_core::wait(sc_time(5, SC_US));
    t_enable = sc_core::sc_time_stamp();
    r.bc.write(B::TCR0 + 2, 2, B::TASK_ENABLE);
  });
  sc_core::sc_start();
  ASSERT_EQ(r.log.trains.size(), 2u);
  const sc_time one = r.bc.burst_tenure(32) * 3.0 + r.bc.burst_tenure(4);
  EXPECT_EQ(r.log.trains[0].start, t_enable);
  EXPECT_EQ(r.log.trains[0].end, t_enable + one);
  EXPECT_FALSE(r.log.trains[0].to_memory);
  // The second waits for the first frame (100 + FCS) and the gap to clear the wire.
  const sc_time second = t_enable + one + net::frame_on_wire(104, 100.0) + bytes_on_wire(12);
  EXPECT_EQ(r.log.trains[1].start, second);
  EXPECT_EQ(r.sram(kTxRing) & B::BD_READY, 0u);
  EXPECT_EQ(r.sram(kTxRing + 8) & B::BD_READY, 0u);
  EXPECT_EQ(r.bc.read(B::INT_PEND, 4), 2u);
  EXPECT_EQ(r.bc.stats().tx_frames, 2u);
}

TEST(BestcommParams, KeysRoundTrip) { latsim::testing::expect_keys_round_trip(bestcomm_keys()); }

}  // namespace
}  // namespace latsim::dma
