// L2 refill misses of a small object (l2_residency.h): the mean count against line-by-line
// draws under random replacement, where each line is gone with 1 - exp(-F / lines).
#include <gtest/gtest.h>
#include <cmath>
#include <cstdint>
#include <vector>
#include "common/random.h"
#include "models/cpu/l2_residency.h"

namespace latsim::cpu {
namespace {

constexpr uint64_t kLines = 8192;  // 256 KiB of 32-byte lines
constexpr uint64_t kObject = 6;    // a task's switch lines, say
int task_key;

// Touch the object `n` times, each after fetching the lines that leave half of it evicted
// (F = lines * ln 2), and return the misses of every touch.
std::vector<uint64_t> touches(L2Residency& l2, int n) {
  const auto half = uint64_t(std::llround(double(kLines) * std::log(2.0)));
  std::vector<uint64_t> out;
  uint64_t fetched = 0;
  l2.touch(&task_key, kObject, fetched);  // first touch: cold
  for (int i = 0; i < n; ++i) {
    fetched += half;
    const uint64_t m = l2.touch(&task_key, kObject, fetched);
    fetched += m;
    out.push_back(m);
  }
  return out;
}

TEST(L2Residency, MeanCountMissesHalfTheObjectEveryTime) {
  L2Residency l2(kLines);
  for (uint64_t m : touches(l2, 1000)) EXPECT_LE(m, 4u);  // 3 (and the carried fraction)
}

TEST(L2Residency, SampledDrawsMissTheWholeObjectOnceIn64) {
  Rng rng(1, "cpu0/l2");
  L2Residency l2(kLines);
  l2.sample_with(&rng);
  const auto v = touches(l2, 20000);
  uint64_t total = 0, all = 0;
  for (uint64_t m : v) total += m, all += m == kObject;
  // Each line gone with p ~ 0.5: mean 3 per touch; all six gone with p^6 = 1/64 (312 of
  // 20000, sd 17.5). The fetch count includes the refills, so p is a little over 0.5.
  EXPECT_NEAR(double(total) / double(v.size()), 3.0, 0.1);
  EXPECT_GT(all, 250u);
  EXPECT_LT(all, 420u);
}

TEST(L2Residency, SampledIsDeterministicForOneSeed) {
  Rng a(7, "cpu1/l2"), b(7, "cpu1/l2");
  L2Residency x(kLines), y(kLines);
  x.sample_with(&a);
  y.sample_with(&b);
  EXPECT_EQ(touches(x, 500), touches(y, 500));
}

}  // namespace
}  // namespace latsim::cpu
