// MESI traffic between two P6 caches for one shared object (mesi_directory.h).
#include <gtest/gtest.h>
#include "models/cpu/mesi_directory.h"

namespace latsim::cpu {
namespace {

int jiffies_key, xtime_key;

TEST(MesiDirectory, FirstTouchIsTheL2ModelsColdMiss) {
  MesiDirectory d;
  EXPECT_EQ(d.access(0, &jiffies_key, 1, true), 0u);
  EXPECT_EQ(d.access(0, &jiffies_key, 1, true), 0u);  // Modified here: no bus traffic
  EXPECT_EQ(d.access(0, &jiffies_key, 1, false), 0u);
  EXPECT_EQ(d.transactions(), 0u);
}

TEST(MesiDirectory, ReadAfterTheOtherCpusWriteFetchesEveryLine) {
  MesiDirectory d;
  d.access(0, &xtime_key, 2, true);
  EXPECT_EQ(d.access(1, &xtime_key, 2, false), 2u);  // HITM: both lines from CPU0's cache
  EXPECT_EQ(d.access(1, &xtime_key, 2, false), 0u);  // Shared now
  EXPECT_EQ(d.access(0, &xtime_key, 2, false), 0u);  // CPU0 kept its copy (Shared)
}

TEST(MesiDirectory, WriteToASharedLineInvalidatesTheOtherCopy) {
  MesiDirectory d;
  d.access(0, &jiffies_key, 1, true);
  d.access(1, &jiffies_key, 1, false);
  EXPECT_EQ(d.access(0, &jiffies_key, 1, true), 1u);  // S -> M: an invalidate on the bus
  EXPECT_EQ(d.access(0, &jiffies_key, 1, true), 0u);
  EXPECT_EQ(d.access(1, &jiffies_key, 1, false), 1u);  // CPU1's copy was invalidated
  EXPECT_EQ(d.transactions(), 3u);
}

TEST(MesiDirectory, AlternatingWritersPayEveryTime) {
  // The timer interrupt's globals when IRQ0 alternates between the CPUs.
  MesiDirectory d;
  d.access(0, &xtime_key, 2, true);
  uint64_t n = 0;
  for (int tick = 1; tick <= 10; ++tick) n += d.access(tick % 2, &xtime_key, 2, true);
  EXPECT_EQ(n, 20u);
  // Objects are independent.
  EXPECT_EQ(d.access(1, &jiffies_key, 1, true), 0u);
}

}  // namespace
}  // namespace latsim::cpu
