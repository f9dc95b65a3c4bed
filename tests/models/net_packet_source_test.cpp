// The models' own deterministic randomness (splitmix64 seeded by scenario seed and
// component name, exponential by inversion) and the NIC's packet arrival process:
// constant rate on an exact grid, Poisson-like gaps that repeat for a seed and
// change with it, frame sizes from a set, and the wire as the upper limit.
#include "common/random.h"
#include "models/net/ethernet.h"
#include "models/net/packet_source.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <set>
#include <vector>

namespace latsim::net {
namespace {

using latsim::testing::fresh_simulation;

TEST(RandomSplitmix64, SameSeedAndNameRepeatOtherSeedOrNameDiffers) {
  Rng a(42, "top.nic.rx"), b(42, "top.nic.rx"), c(43, "top.nic.rx"), d(42, "top.nic2.rx");
  int same_c = 0, same_d = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t va = a.next();
    EXPECT_EQ(va, b.next());
    same_c += va == c.next();
    same_d += va == d.next();
  }
  EXPECT_EQ(same_c, 0);
  EXPECT_EQ(same_d, 0);
}

TEST(RandomSplitmix64, MatchesTheReferenceSplitmix64Outputs) {
  // State 0 after mixing in the name; one draw is discarded, so these are the
  // reference splitmix64 outputs 2 and 3 for state 0.
  const uint64_t basis = Rng::fnv1a("");
  EXPECT_EQ(basis, 1469598103934665603ull);
  Rng s(basis, "");  // seed ^ fnv1a("") == 0
  EXPECT_EQ(s.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(s.next(), 0x06c45d188009454full);
}

TEST(RandomSplitmix64, UniformIsInRangeAndExponentialHasItsMean) {
  Rng r(7, "exp");
  double sum = 0, lo = 1, hi = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = r.uniform();
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 1.0);
  for (int i = 0; i < n; ++i) sum += r.exponential(250.0);
  EXPECT_NEAR(sum / n, 250.0, 2.5);  // 1 %; the standard error is 0.56
}

TEST(Rtl8139PacketSource, ConstantRateArrivesOnAnExactGrid) {
  fresh_simulation();
  PacketSourceParams p;
  p.kind = ArrivalKind::Constant;
  p.frames_per_s = 3000;  // 333.333... us: the grid must not drift by rounding
  p.frame_bytes = {64};
  p.start = sc_time(100, SC_US);
  PacketSource s(p, 100.0, "nic.rx");
  for (uint64_t k = 0; k < 3000; ++k) {
    ASSERT_TRUE(s.has_next());
    const Arrival a = s.next();
    EXPECT_EQ(a.first_bit, sc_time(100, SC_US) + ps(uint64_t(std::llround(k * 1e12 / 3000)))) << k;
    EXPECT_EQ(a.frame_bytes, 64u);
  }
}

TEST(Rtl8139PacketSource, ARateAboveTheLineIsPacedByTheWire) {
  fresh_simulation();
  PacketSourceParams p;
  p.kind = ArrivalKind::Constant;
  p.frames_per_s = 1e6;
  p.frame_bytes = {1518};
  PacketSource s(p, 100.0, "nic.rx");
  sc_time prev = s.next().first_bit;
  EXPECT_EQ(prev, SC_ZERO_TIME);
  for (int i = 0; i < 10; ++i) {
    const sc_time t = s.next().first_bit;
    // preamble + frame + inter-frame gap = 1538 byte times of 80 ns
    EXPECT_EQ(t - prev, sc_time(1538 * 80, SC_NS));
    prev = t;
  }
}

std::vector<Arrival> draw(uint64_t seed, int n) {
  PacketSourceParams p;
  p.kind = ArrivalKind::Poisson;
  p.frames_per_s = 5000;
  p.frame_bytes = {64, 576, 1518};
  p.seed = seed;
  PacketSource s(p, 100.0, "top.nic.rx");
  std::vector<Arrival> out;
  for (int i = 0; i < n; ++i) out.push_back(s.next());
  return out;
}

TEST(Rtl8139PacketSource, PoissonRepeatsForASeedAndDiffersForAnother) {
  fresh_simulation();
  const auto a = draw(1, 20000), b = draw(1, 20000), c = draw(2, 20000);
  int same_time = 0;
  std::set<uint32_t> sizes;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first_bit, b[i].first_bit);
    EXPECT_EQ(a[i].frame_bytes, b[i].frame_bytes);
    same_time += a[i].first_bit == c[i].first_bit;
    sizes.insert(a[i].frame_bytes);
    if (i > 0) {  // never two frames on the wire at once
      const sc_time gap = a[i].first_bit - a[i - 1].first_bit;
      EXPECT_GE(gap, frame_on_wire(a[i - 1].frame_bytes, 100.0) + wire_time(kIfgBytes, 100.0));
    }
  }
  EXPECT_LT(same_time, 5);
  EXPECT_EQ(sizes, (std::set<uint32_t>{64, 576, 1518}));
  // 5000 frames/s on average (the link barely constrains it at ~4 % load)
  const double rate = double(a.size()) / a.back().first_bit.to_seconds();
  EXPECT_NEAR(rate, 5000.0, 5000.0 * 0.03);
}

TEST(Rtl8139PacketSource, OffOrExhaustedHasNoMoreFrames) {
  fresh_simulation();
  PacketSourceParams p;
  PacketSource off(p, 100.0, "a");
  EXPECT_FALSE(off.has_next());
  p.kind = ArrivalKind::Poisson;
  p.max_frames = 3;
  PacketSource three(p, 100.0, "b");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(three.has_next());
    three.next();
  }
  EXPECT_FALSE(three.has_next());
  EXPECT_EQ(three.generated(), 3u);
}

}  // namespace
}  // namespace latsim::net
