// Intel 8254 PIT: Linux 2.6.9's channel 0 programming, exact OUT0 edge times,
// the counter latch command and the LSB/MSB flip-flops.
#include "models/timer/i8254.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>
#include <vector>

namespace latsim::timer {
namespace {

using sc_core::sc_start;

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;

// Every target socket must be bound before elaboration completes.
struct Pit {
  I8254 pit{"pit"};
  TestInitiator bus{"bus"};
  Pit() { bus.socket.bind(pit.socket); }
};

struct EdgeRecorder : irq::IrqSink {
  std::vector<uint64_t> rises;  // ps
  bool level = false;
  void irq_set(unsigned, bool l) override {
    level = l;
    if (l) rises.push_back(to_ps(sc_core::sc_time_stamp()));
  }
};

// Linux 2.6.9 setup_pit_timer(): outb_p(0x34, PIT_MODE); LATCH & 0xff; LATCH >> 8.
void program_hz1000(I8254& pit) {
  pit.write(3, 0x34);  // ch0, LSB then MSB, mode 2, binary
  pit.write(0, 1193 & 0xff);
  pit.write(0, 1193 >> 8);
}

uint16_t latch_and_read(I8254& pit) {
  pit.write(3, 0x00);  // counter latch, ch0
  const uint8_t lo = pit.read(0);
  const uint8_t hi = pit.read(0);
  return uint16_t(lo | (hi << 8));
}

TEST(I8254, ClockTicksAreExactPicoseconds) {
  fresh_simulation();
  EXPECT_EQ(to_ps(I8254::tick_time(1)), 838095u);  // 838095.2 ps rounded
  EXPECT_EQ(to_ps(I8254::tick_time(1193182)), 1000000000000u);
  EXPECT_EQ(I8254::ticks_at(I8254::tick_time(596)), 596u);
  EXPECT_EQ(I8254::ticks_at(I8254::tick_time(596) - ps(1)), 595u);
}

TEST(I8254, Mode2Irq0EdgesAtExactTimes) {
  fresh_simulation();
  Pit board;
  I8254& pit = board.pit;
  EdgeRecorder irq0;
  pit.out0.connect(irq0, 0);
  program_hz1000(pit);  // at t=0: the count is loaded on CLK tick 1
  sc_start(sc_time(1, SC_SEC));
  // Edge n is at tick 1 + 1193 n, i.e. round((1 + 1193 n) * 1e12 / 1193182) ps.
  ASSERT_EQ(irq0.rises.size(), 1000u);
  EXPECT_EQ(irq0.rises.front(), 1000685562u);
  EXPECT_EQ(irq0.rises[1], 2000533028u);
  EXPECT_EQ(irq0.rises[999], 999848304785u);
  EXPECT_FALSE(irq0.level);  // pulse(): one rising edge, line back low
}

TEST(I8254, LatchReturnsExactCount) {
  fresh_simulation();
  Pit board;
  I8254& pit = board.pit;
  program_hz1000(pit);
  sc_start(sc_time(500, SC_US));
  // Tick 596 is the last one at or before 500 us; 595 decrements since the load.
  EXPECT_EQ(latch_and_read(pit), 1193 - 595);
  // At the edge tick the count has just been reloaded; one tick before it reads 1.
  sc_start(I8254::tick_time(1 + 2 * 1193) - sc_core::sc_time_stamp());
  EXPECT_EQ(latch_and_read(pit), 1193);
  sc_start(I8254::tick_time(1 + 3 * 1193 - 1) - sc_core::sc_time_stamp());
  EXPECT_EQ(latch_and_read(pit), 1);
  EXPECT_FALSE(pit.out(0));  // mode 2: OUT low for the clock at count 1
}

TEST(I8254, LatchFreezesUntilReadOut) {
  fresh_simulation();
  Pit board;
  I8254& pit = board.pit;
  program_hz1000(pit);
  sc_start(sc_time(500, SC_US));
  pit.write(3, 0x00);
  sc_start(sc_time(100, SC_US));  // count moves on, the latch does not
  EXPECT_EQ(pit.read(0), uint8_t(598));
  pit.write(3, 0x00);  // latched again before the MSB is read: ignored
  EXPECT_EQ(pit.read(0), uint8_t(598 >> 8));
  // Read out completely: the next latch samples the current time.
  EXPECT_EQ(latch_and_read(pit), pit.count(0));
  EXPECT_NE(pit.count(0), 598);
}

TEST(I8254, LsbMsbFlipFlops) {
  fresh_simulation();
  Pit board;
  I8254& pit = board.pit;
  pit.write(3, 0x34);
  pit.write(0, 0x34);  // LSB only: no count yet
  sc_start(sc_time(10, SC_US));
  pit.write(3, 0xE2);                   // read-back: latch status of ch0
  EXPECT_EQ(pit.read(0) & 0x40, 0x40);  // null count
  pit.write(0, 0x12);                   // MSB: count 0x1234 loads on the next tick
  sc_start(sc_time(10, SC_US));
  // Unlatched reads alternate LSB, MSB; reads and writes have separate flip-flops.
  const uint16_t c = pit.count(0);
  EXPECT_EQ(pit.read(0), uint8_t(c));
  EXPECT_EQ(pit.read(0), uint8_t(c >> 8));
  EXPECT_EQ(pit.read(0), uint8_t(c));  // LSB again
  EXPECT_EQ(pit.read(0), uint8_t(c >> 8));
  // Read-back of status and count: status byte first, then LSB, MSB.
  pit.write(3, 0xC2);            // read-back, latch count and status of ch0
  EXPECT_EQ(pit.read(0), 0xB4);  // OUT high, count loaded, RW=3, mode 2, binary
  EXPECT_EQ(pit.read(0), uint8_t(c));
  EXPECT_EQ(pit.read(0), uint8_t(c >> 8));
  // A control word resets the flip-flop even mid-sequence.
  pit.read(0);
  pit.write(3, 0x34);
  pit.write(0, 0x00);
  pit.write(0, 0x10);  // 0x1000, loaded on the next tick
  pit.write(3, 0x54);  // ch1, LSB only, mode 2
  pit.write(1, 18);
  pit.write(3, 0xA4);  // ch2, MSB only, mode 2
  pit.write(2, 0x02);  // count 0x200
  const sc_time now = sc_core::sc_time_stamp();
  sc_start(I8254::tick_time(I8254::ticks_at(now) + 2) - now);  // one decrement since the load
  EXPECT_EQ(pit.read(0), 0xFF);                                // 0x0FFF: LSB first again
  EXPECT_EQ(pit.read(0), 0x0F);
  EXPECT_EQ(pit.read(1), 18 - 1);  // LSB only: every read is the LSB
  EXPECT_EQ(pit.read(1), 18 - 1);
  EXPECT_EQ(pit.read(2), 0x01);  // 0x1FF, MSB only
  EXPECT_EQ(pit.read(2), 0x01);
}

TEST(I8254, Mode3SquareWave) {
  fresh_simulation();
  Pit board;
  I8254& pit = board.pit;
  EdgeRecorder irq0;
  pit.out0.connect(irq0, 0);
  pit.write(3, 0x36);  // ch0, LSB/MSB, mode 3 (the BIOS setting)
  pit.write(0, 1000 & 0xff);
  pit.write(0, 1000 >> 8);
  sc_start(I8254::tick_time(1 + 499));  // 499 clocks after the load: still high, count 2
  EXPECT_TRUE(pit.out(0));
  EXPECT_EQ(pit.count(0), 2);
  sc_start(I8254::tick_time(1 + 500) - sc_core::sc_time_stamp());
  EXPECT_FALSE(pit.out(0));  // second half of the period
  EXPECT_EQ(pit.count(0), 1000);
  // sc_start(t) stops before the events at exactly t: run one ps past the edge.
  sc_start(I8254::tick_time(1 + 3000) + ps(1) - sc_core::sc_time_stamp());
  ASSERT_EQ(irq0.rises.size(), 3u);  // one rising edge per period
  EXPECT_EQ(irq0.rises[0], to_ps(I8254::tick_time(1 + 1000)));
  EXPECT_EQ(irq0.rises[2], to_ps(I8254::tick_time(1 + 3000)));
}

TEST(I8254, Mode0TerminalCount) {
  fresh_simulation();
  Pit board;
  I8254& pit = board.pit;
  EdgeRecorder irq0;
  pit.out0.connect(irq0, 0);
  pit.write(3, 0x30);  // ch0, LSB/MSB, mode 0
  pit.write(0, 100);
  pit.write(0, 0);
  sc_start(I8254::tick_time(1 + 150));
  ASSERT_EQ(irq0.rises.size(), 1u);
  EXPECT_EQ(irq0.rises[0], to_ps(I8254::tick_time(1 + 100)));
  EXPECT_TRUE(irq0.level);                     // OUT stays high after terminal count
  EXPECT_EQ(latch_and_read(pit), 65536 - 50);  // the counter keeps wrapping down
}

TEST(I8254, NewCountInMode2TakesEffectAtEndOfPeriod) {
  fresh_simulation();
  Pit board;
  I8254& pit = board.pit;
  EdgeRecorder irq0;
  pit.out0.connect(irq0, 0);
  program_hz1000(pit);
  sc_start(sc_time(1500, SC_US));  // in the second period
  pit.write(0, 100);
  pit.write(0, 0);
  sc_start(I8254::tick_time(1 + 2 * 1193 + 200) + ps(1) - sc_core::sc_time_stamp());
  ASSERT_EQ(irq0.rises.size(), 4u);
  EXPECT_EQ(irq0.rises[1], to_ps(I8254::tick_time(1 + 2 * 1193)));
  EXPECT_EQ(irq0.rises[2], to_ps(I8254::tick_time(1 + 2 * 1193 + 100)));
  EXPECT_EQ(irq0.rises[3], to_ps(I8254::tick_time(1 + 2 * 1193 + 200)));
}

TEST(I8254, BTransportSamplesAtAnnotatedTimeAndAddsLatency) {
  fresh_simulation();
  Pit board;
  I8254& pit = board.pit;
  pit.access_latency = sc_time(1, SC_US);
  program_hz1000(pit);
  sc_start(sc_time(400, SC_US));
  sc_time delay(100, SC_US);  // the latch reaches the chip 100 us after now
  board.bus.write8(3, 0x00, delay);
  EXPECT_EQ(delay, sc_time(101, SC_US));
  const uint8_t lo = board.bus.read8(0, delay);
  const uint8_t hi = board.bus.read8(0, delay);
  EXPECT_EQ(delay, sc_time(103, SC_US));
  uint16_t wide = 0;
  EXPECT_EQ(board.bus.access(tlm::TLM_READ_COMMAND, 0, &wide, 2, delay),
            tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(uint16_t(lo | hi << 8), 1193 - 595);  // sampled at 500 us
}

}  // namespace
}  // namespace latsim::timer
