// The kernel's and the models' generators must stay the same generator: a seed
// means the same thing everywhere in a run.
#include <gtest/gtest.h>

#include "kernel_sim/lib/random.h"
#include "models/common/random.h"

TEST(RandomKernelAndModels, SameSequenceForTheSameSeedAndName) {
  latsim::kernel::Rng k(42, "ide0");
  latsim::Rng m(42, "ide0");
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(k.next(), m.next()) << i;
  EXPECT_DOUBLE_EQ(k.uniform(), m.uniform());
  EXPECT_EQ(k.below(1000), m.below(1000));
  EXPECT_EQ(latsim::kernel::Rng::fnv1a("cc1"), latsim::Rng::fnv1a("cc1"));
}
