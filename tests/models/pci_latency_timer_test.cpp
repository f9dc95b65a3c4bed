// PCI 2.1 3.5.4 master latency timer: it counts bus clocks from FRAME#; a master
// whose GNT# is removed keeps the bus until its timer has expired and then ends
// the transaction at the next data phase (one clock); a transfer that finishes
// by itself earlier just ends.
#include "models/pci/latency_timer.h"

#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>

namespace latsim::pci {
namespace {

// 33.33 MHz PCI: period rounded to the picosecond = round(1e6 / 33.33) ps.
constexpr uint64_t kClkPs = 30003;
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }

class PciLatencyTimer : public ::testing::Test {
 protected:
  void SetUp() override {
    latsim::testing::fresh_simulation();  // 1 ps resolution before any sc_time exists
    clk = period_of_mhz(33.33);
    frame = sc_time(10, SC_US);
  }
  sc_time clk;
  sc_time frame;  // FRAME# of the burst
};

TEST_F(PciLatencyTimer, BusClockIs30NsAt33MHz) { EXPECT_EQ(to_ps(clk), kClkPs); }

TEST_F(PciLatencyTimer, GntRemovedBeforeExpiryMasterKeepsBusUntilExpiryPlusOneDataPhase) {
  const LatencyTimer lt(64, clk);               // Linux pcibios_set_master default
  const sc_time natural = frame + clocks(512);  // a long burst (2 KiB)
  const sc_time gnt_removed = frame + clocks(10);
  // Timer expires at FRAME# + 64 clocks; the next data phase ends the tenure.
  EXPECT_EQ(lt.tenure_end(frame, natural, gnt_removed), frame + clocks(64 + 1));
  // 64 clocks at 33.33 MHz = 1.920192 us; the tenure is 65 clocks = 1.950195 us.
  EXPECT_EQ(to_ps(lt.tenure_end(frame, natural, gnt_removed) - frame), 1950195u);
}

TEST_F(PciLatencyTimer, GntRemovedAfterExpiryMasterReleasesAtNextDataPhase) {
  const LatencyTimer lt(64, clk);
  const sc_time natural = frame + clocks(512);
  const sc_time gnt_removed = frame + clocks(100);  // timer already expired at 64
  EXPECT_EQ(lt.tenure_end(frame, natural, gnt_removed), gnt_removed + clocks(1));
}

TEST_F(PciLatencyTimer, GntRemovedExactlyAtExpiryReleasesOneClockLater) {
  const LatencyTimer lt(64, clk);
  EXPECT_EQ(lt.tenure_end(frame, frame + clocks(512), frame + clocks(64)), frame + clocks(65));
}

TEST_F(PciLatencyTimer, NaturalEndBeforeTimerEndsTheTenure) {
  const LatencyTimer lt(64, clk);
  const sc_time natural = frame + clocks(12);  // 16-byte burst: 4 overhead + 4 data + idle
  EXPECT_EQ(lt.tenure_end(frame, natural, frame + clocks(1)), natural);
  // Also when GNT# goes away only after the burst is over.
  EXPECT_EQ(lt.tenure_end(frame, natural, frame + clocks(200)), natural);
  // And when the natural end falls between expiry and the next data phase.
  const sc_time just_after_expiry = frame + clocks(64) + ps(1);
  EXPECT_EQ(lt.tenure_end(frame, just_after_expiry, frame), just_after_expiry);
}

TEST_F(PciLatencyTimer, MemoryWriteAndInvalidateFinishesItsCacheLine) {
  const LatencyTimer lt(64, clk);
  // MWI: after expiry + one data phase the master completes the line (here 7 more clocks).
  EXPECT_EQ(lt.tenure_end(frame, frame + clocks(512), frame + clocks(5), 7),
            frame + clocks(64 + 1 + 7));
}

TEST_F(PciLatencyTimer, TimerValueBoundsWorstCaseTenure) {
  LatencyTimer lt(32, clk);
  EXPECT_EQ(lt.clocks(), 32);
  EXPECT_EQ(lt.tenure_end(frame, frame + clocks(512), frame), frame + clocks(33));
  lt.set_clocks(248);  // a BIOS value for a greedy master
  EXPECT_EQ(lt.clocks(), 248);
  EXPECT_EQ(lt.tenure_end(frame, frame + clocks(512), frame), frame + clocks(249));
  lt.set_clocks(0);  // zero: the master must leave at the next data phase after GNT# goes
  EXPECT_EQ(lt.tenure_end(frame, frame + clocks(512), frame + clocks(3)), frame + clocks(4));
}

}  // namespace
}  // namespace latsim::pci
