// MPC5200 interrupt controller programmed as Linux 2.6.24's mpc52xx_pic.c does
// (mpc52xx_init_irq, the irq_chips' mask bits) and decoded as mpc52xx_get_irq decodes it.
#include "models/irq/mpc52xx_pic.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"

#include <gtest/gtest.h>

namespace latsim::irq {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;
using P = Mpc52xxPic;

struct Pin : IrqSink {
  bool level = false;
  void irq_set(unsigned, bool l) override { level = l; }
};

struct Board {
  Mpc52xxPic pic{"pic"};
  TestInitiator bus{"bus"};
  Pin core_int, core_cint;
  sc_time delay = SC_ZERO_TIME;
  Board() {
    bus.socket.bind(pic.socket);
    pic.core_int.connect(core_int, 0);
    pic.core_cint.connect(core_cint, 0);
  }
  uint32_t rd(unsigned off) { return bus.read32(off, delay); }
  void wr(unsigned off, uint32_t v) { bus.write32(off, v, delay); }
  // mpc52xx_init_irq: every source masked but the BestComm, critical to int#, priorities 0.
  void init_irq() {
    wr(P::PER_MASK, 0x7ffffc00);
    wr(P::MAIN_MASK, 0x00010fff);
    wr(P::CTRL, (rd(P::CTRL) & 0x00ff0000) | 0x0f000000 | P::CTRL_MEE | P::CTRL_CEB);
    for (unsigned r : {P::PER_PRI1, P::PER_PRI2, P::PER_PRI3, P::MAIN_PRI1, P::MAIN_PRI2}) wr(r, 0);
  }
  // mpc52xx_get_irq's decode: {L1, L2} of the source it would name.
  std::pair<unsigned, unsigned> get_irq() {
    const uint32_t s = rd(P::ENC_STATUS);
    unsigned l2;
    if (s & P::ENC_CSE) {
      l2 = (s >> 8) & 3;
      if (l2 != P::kCritHiInt) return {0, l2};
    } else if (s & P::ENC_MSE) {
      l2 = (s >> 16) & 0x1f;
      if (l2 != P::kMainLoInt) return {1, l2};
    } else if (!(s & P::ENC_PSE)) {
      return {9, 0};  // NO_IRQ_IGNORE
    }
    return {2, (s >> 24) & 0x1f};
  }
  void set_per(unsigned n, bool level) { pic.irq_set(P::per_pin(n), level); }
};

TEST(Mpc52xxPic, KeysRoundTrip) { latsim::testing::expect_keys_round_trip(mpc52xx_pic_keys()); }

TEST(Mpc52xxPic, ResetMasksEverySource) {
  fresh_simulation();
  Board b;
  b.set_per(P::kPerBestcomm, true);
  b.pic.irq_set(P::main_pin(1), true);
  EXPECT_FALSE(b.core_int.level);
  EXPECT_FALSE(b.core_cint.level);
  EXPECT_EQ(b.rd(P::ENC_STATUS), 0u);
}

// The BestComm is fixed HI: critical source 2, routed by CEb to int#; the peripheral
// encoded field names source 0, mpc52xx_get_irq's "bestcomm" case.
TEST(Mpc52xxPic, BestcommIsHighPriorityThroughCriticalToInt) {
  fresh_simulation();
  Board b;
  b.init_irq();
  b.set_per(P::kPerBestcomm, true);
  EXPECT_TRUE(b.core_int.level);
  EXPECT_FALSE(b.core_cint.level);
  const uint32_t s = b.rd(P::ENC_STATUS);
  EXPECT_EQ(s & (P::ENC_CSE | 0x300), P::ENC_CSE | (P::kCritHiInt << P::ENC_CSN_SHIFT));
  EXPECT_EQ(s & 0x3f000000u, P::ENC_PSE);  // PSe flag, source 0 (MPC5200BUM: reads 0x20)
  EXPECT_EQ(b.get_irq(), (std::pair<unsigned, unsigned>{2, 0}));
  EXPECT_EQ(b.rd(P::PER_STATUS), 0x80000000u);
  b.set_per(P::kPerBestcomm, false);  // the SDMA's IntPend acked: the level goes
  EXPECT_FALSE(b.core_int.level);
  EXPECT_EQ(b.pic.int_assertions(), 1u);
}

TEST(Mpc52xxPic, CriticalGoesToCintWithoutCeb) {
  fresh_simulation();
  Board b;
  b.init_irq();
  b.wr(P::CTRL, b.rd(P::CTRL) & ~P::CTRL_CEB);
  b.set_per(P::kPerBestcomm, true);
  EXPECT_FALSE(b.core_int.level);
  EXPECT_TRUE(b.core_cint.level);
}

// LO peripherals arrive as main source 4; equal priorities: the lower number wins, else
// the higher priority; the msb of a priority nibble makes it HI (critical).
TEST(Mpc52xxPic, PeripheralPriorityAndBank) {
  fresh_simulation();
  Board b;
  b.init_irq();
  b.wr(P::PER_MASK, 0x00000000);  // all peripherals unmasked (mpc52xx_periph_unmask)
  b.set_per(5, true);
  b.set_per(3, true);
  EXPECT_TRUE(b.core_int.level);
  EXPECT_EQ((b.rd(P::ENC_STATUS) >> P::ENC_MSN_SHIFT) & 0x1f, P::kMainLoInt);
  EXPECT_EQ(b.get_irq(), (std::pair<unsigned, unsigned>{2, 3}));
  b.wr(P::PER_PRI1, 0x00000700);  // peripheral 5: priority 7
  EXPECT_EQ(b.get_irq(), (std::pair<unsigned, unsigned>{2, 5}));
  b.wr(P::PER_PRI1, 0x00000800);  // peripheral 5: HI bank
  EXPECT_TRUE(b.rd(P::ENC_STATUS) & P::ENC_CSE);
  EXPECT_EQ(b.get_irq(), (std::pair<unsigned, unsigned>{2, 5}));
}

// mpc52xx_periph_mask: bit 31 - l2; main sources: bit 16 - l2 in the hardware.
TEST(Mpc52xxPic, MaskBitsPerSource) {
  fresh_simulation();
  Board b;
  b.init_irq();
  b.set_per(P::kPerBestcomm, true);
  b.wr(P::PER_MASK, b.rd(P::PER_MASK) | 0x80000000u);
  EXPECT_FALSE(b.core_int.level);
  b.set_per(P::kPerBestcomm, false);
  b.pic.irq_set(P::main_pin(8), true);
  EXPECT_FALSE(b.core_int.level);  // init leaves sources 5-16 masked
  b.wr(P::MAIN_MASK, b.rd(P::MAIN_MASK) & ~(1u << (16 - 8)));
  EXPECT_TRUE(b.core_int.level);
  EXPECT_EQ(b.get_irq(), (std::pair<unsigned, unsigned>{1, 8}));
  EXPECT_EQ(b.rd(P::MAIN_STATUS), 1u << (16 - 8));
}

}  // namespace
}  // namespace latsim::irq
