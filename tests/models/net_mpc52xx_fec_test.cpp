// MPC5200 FEC driven as fec_mpc52xx's mpc52xx_fec_start does (ECNTRL ETHER_EN, IMASK):
// frames from the cable enter the Rx FIFO and go to BestComm's receive task once its first
// burst is in; without a ready descriptor the FIFO overruns (IEVENT RFIFO_ERROR, the FEC's
// interrupt when unmasked); with ETHER_EN off frames are not received.
#include "models/net/ethernet.h"
#include "models/net/mpc52xx_fec.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>

namespace latsim::net {
namespace {

using latsim::test::Script;
using latsim::testing::fresh_simulation;
using B = dma::Bestcomm;
using F = Mpc52xxFec;

sc_time bytes_on_wire(uint64_t n) { return sc_time(double(n * 80), SC_NS); }  // 100 Mbit/s

Mpc52xxFecParams frames_at(sc_time t, uint32_t bytes, uint64_t count) {
  Mpc52xxFecParams p;
  p.fitted = true;
  p.rx.kind = ArrivalKind::Constant;
  p.rx.start = t;
  p.rx.frame_bytes = {bytes};
  p.rx.max_frames = count;
  p.rx.frames_per_s = 10000;
  return p;
}

struct Rig {
  pci::PciBus xlb{"xlb"};
  chipset::Dram dram{64ull << 20};
  B bc{"bestcomm", dma::BestcommParams{}, dram, xlb};
  latsim::testing::TestInitiator host{"host"};
  F fec;
  explicit Rig(const Mpc52xxFecParams& p) : fec("fec", p, bc) {
    host.socket.bind(xlb.host_socket);
    xlb.target_socket.bind(bc.socket);
    xlb.target_socket.bind(fec.socket);
  }
  void ready_descriptors(uint32_t n) {
    bc.write(B::kSram + B::kVarTable, 4, 0x100);
    bc.write(B::kSram + B::kVarTable + 4, 4, 8);
    for (uint32_t i = 0; i < n; ++i) {
      bc.write(B::kSram + 0x100 + 8 * i, 4, B::BD_READY | 1522);
      bc.write(B::kSram + 0x100 + 8 * i + 4, 4, 0x400000 + 2048 * i);
    }
    bc.write(B::TCR0, 2, B::TASK_ENABLE);
  }
};

TEST(Mpc52xxFecRx, FramesGoToBestcommOnceTheirFirstBurstIsInTheFifo) {
  fresh_simulation();
  const sc_time t0 = sc_time(50, SC_US);
  Rig r(frames_at(t0, 500, 2));
  Script s("s", [&] {
    r.ready_descriptors(2);
    r.fec.write(F::ECNTRL, 4, F::ECNTRL_ETHER_EN);
  });
  sc_core::sc_start();
  EXPECT_EQ(r.fec.stats().frames_arrived, 2u);
  EXPECT_EQ(r.fec.stats().frames_dropped_fifo, 0u);
  EXPECT_EQ(r.bc.stats().rx_frames, 2u);
  EXPECT_EQ(r.bc.read(B::kSram + 0x100, 4), B::RX_BD_L | 500u);
  EXPECT_EQ(r.bc.read(B::kSram + 0x108, 4), B::RX_BD_L | 500u);
}

TEST(Mpc52xxFecRx, WithoutADescriptorTheFifoOverrunsAndRaisesRfifoError) {
  fresh_simulation();
  Rig r(frames_at(sc_time(50, SC_US), 200, 3));
  Script s("s", [&] {
    r.ready_descriptors(1);
    r.fec.write(F::IMASK, 4, F::IEVENT_RFIFO_ERROR);
    r.fec.write(F::ECNTRL, 4, F::ECNTRL_ETHER_EN);
  });
  sc_core::sc_start();
  EXPECT_EQ(r.bc.stats().rx_frames, 1u);
  EXPECT_EQ(r.fec.stats().frames_dropped_fifo, 2u);
  EXPECT_EQ(r.fec.read(F::IEVENT, 4), F::IEVENT_RFIFO_ERROR);
  EXPECT_TRUE(r.fec.irq.level());
  r.fec.write(F::IEVENT, 4, F::IEVENT_RFIFO_ERROR);  // write 1 to clear
  EXPECT_FALSE(r.fec.irq.level());
}

TEST(Mpc52xxFecRx, EtherEnOffReceivesNothing) {
  fresh_simulation();
  Rig r(frames_at(sc_time(50, SC_US), 200, 2));
  Script s("s", [&] { r.ready_descriptors(2); });
  sc_core::sc_start();
  EXPECT_EQ(r.fec.stats().frames_dropped_disabled, 2u);
  EXPECT_EQ(r.bc.stats().rx_frames, 0u);
}

TEST(Mpc52xxFecParams, KeysRoundTrip) {
  latsim::testing::expect_keys_round_trip(mpc52xx_fec_keys());
}

}  // namespace
}  // namespace latsim::net
