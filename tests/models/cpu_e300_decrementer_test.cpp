// e300 decrementer: the exception v + 1 time-base ticks after mtdec v, the time base at
// the bus clock / 4, and int# taken before a pending decrementer exception.
#include "models/cpu/e300_decrementer.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>

namespace latsim::cpu {
namespace {

using latsim::testing::fresh_simulation;

struct Pin : irq::IrqSink {
  bool level = false;
  sc_time rose;
  void irq_set(unsigned, bool l) override {
    if (l && !level) rose = sc_core::sc_time_stamp();
    level = l;
  }
};

TEST(E300Decrementer, ExpiresAfterCountPlusOneTicks) {
  fresh_simulation();
  E300Decrementer dec("dec", 33.0);  // MPC5200: 132 MHz XLB / 4
  Pin pin;
  dec.core_irq.connect(pin, 0);
  test::Script s("s", [&] {
    sc_core::wait(1, SC_US);
    dec.mtdec(32999);  // one jiffy at HZ=1000 is 33000 ticks
    sc_core::wait(500, SC_US);
    EXPECT_NEAR(double(dec.mfdec()), 32999.0 - 16500.0, 1.0);
    sc_core::wait(600, SC_US);
    EXPECT_TRUE(pin.level);
    EXPECT_EQ(pin.rose, sc_time(1, SC_US) + sc_time(1, SC_MS));
    EXPECT_EQ(dec.acknowledge(), E300Decrementer::kDecrementer);
    EXPECT_FALSE(pin.level);
    EXPECT_EQ(dec.mftb(), uint64_t(33 * 1101));
  });
  sc_core::sc_start(2, SC_MS);
  EXPECT_EQ(dec.decrementer_exceptions(), 1u);
}

TEST(E300Decrementer, ExternalInterruptTakenFirst) {
  fresh_simulation();
  E300Decrementer dec("dec", 33.0);
  Pin pin;
  dec.core_irq.connect(pin, 0);
  test::Script s("s", [&] {
    dec.mtdec(10);
    sc_core::wait(1, SC_US);
    dec.irq_set(0, true);  // int# from the PIC
    EXPECT_EQ(dec.acknowledge(), E300Decrementer::kExternal);
    EXPECT_TRUE(pin.level);  // still pending: int# and the decrementer
    dec.irq_set(0, false);   // the handler acked the source
    EXPECT_TRUE(pin.level);
    EXPECT_EQ(dec.acknowledge(), E300Decrementer::kDecrementer);
    EXPECT_FALSE(pin.level);
    dec.mtdec(0x80000000u);  // negative: no exception
    sc_core::wait(10, SC_MS);
    EXPECT_FALSE(pin.level);
  });
  sc_core::sc_start(20, SC_MS);
}

}  // namespace
}  // namespace latsim::cpu
