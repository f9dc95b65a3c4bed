// The one generator of every component: a seed and a name mean the same stream in
// every build, so runs stay byte-identical across refactors.
#include <gtest/gtest.h>

#include "common/random.h"

TEST(Rng, PinnedSplitmix64StreamForASeedAndName) {
  latsim::Rng r(42, "ide0");
  EXPECT_EQ(r.next(), 0x2214bec6bfd4b312ull);
  EXPECT_EQ(r.next(), 0x5ed59854851fb321ull);
  EXPECT_EQ(latsim::Rng::fnv1a("cc1"), 0xcf4cf551033efeb8ull);
}

TEST(Rng, ComponentsWithOtherNamesGetOtherStreams) {
  latsim::Rng a(42, "ide0"), b(42, "ide1");
  EXPECT_NE(a.next(), b.next());
}

TEST(Rng, UniformStaysInItsHalfOpenRange) {
  latsim::Rng r(7, "x");
  for (int i = 0; i < 10000; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
  EXPECT_EQ(r.below(0), 0u);
}
