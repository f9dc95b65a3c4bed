// kernel_sim/time/timer_list.h: timers keyed by expiry jiffy.
#include "kernel_sim/time/timer_list.h"
#include <gtest/gtest.h>
#include <vector>

namespace latsim::kernel {
namespace {

void run(TimerList& tl, uint64_t jiffies) {
  tl.run_expired(jiffies, [](std::function<void()>& fn) { fn(); });
}

TEST(TimerListTest, RunExpiredInExpiryThenInsertionOrder) {
  TimerList tl;
  std::vector<int> ran;
  auto add = [&](uint64_t exp, int tag) {
    return tl.add(exp, [&ran, tag] { ran.push_back(tag); });
  };
  const auto id1 = add(5, 1);
  const auto id2 = add(3, 2);
  add(5, 3);
  add(1, 4);
  add(3, 5);
  add(9, 6);
  EXPECT_LT(id1, id2);
  EXPECT_EQ(tl.size(), 6u);

  run(tl, 0);
  EXPECT_TRUE(ran.empty());
  run(tl, 4);
  EXPECT_EQ(ran, (std::vector<int>{4, 2, 5}));
  EXPECT_EQ(tl.size(), 3u);
  run(tl, 4);  // nothing left that is due
  EXPECT_EQ(ran.size(), 3u);
  run(tl, 5);  // due exactly now: runs
  EXPECT_EQ(ran, (std::vector<int>{4, 2, 5, 1, 3}));
  run(tl, 100);
  EXPECT_EQ(ran, (std::vector<int>{4, 2, 5, 1, 3, 6}));
  EXPECT_EQ(tl.size(), 0u);
}

TEST(TimerListTest, PendingBy) {
  TimerList tl;
  EXPECT_FALSE(tl.pending_by(0));
  EXPECT_FALSE(tl.pending_by(~0ull));
  tl.add(10, [] {});
  tl.add(20, [] {});
  EXPECT_FALSE(tl.pending_by(9));
  EXPECT_TRUE(tl.pending_by(10));
  EXPECT_TRUE(tl.pending_by(11));
  run(tl, 10);
  EXPECT_EQ(tl.size(), 1u);
  EXPECT_FALSE(tl.pending_by(19));
  EXPECT_TRUE(tl.pending_by(20));
}

TEST(TimerListTest, TimerAddedWhileRunningIsOrderedToo) {
  TimerList tl;
  std::vector<int> ran;
  // A periodic timer re-arming itself: a later expiry waits; one due now runs
  // after those already queued at the same jiffy.
  tl.add(2, [&] {
    ran.push_back(1);
    tl.add(2, [&] { ran.push_back(3); });
    tl.add(4, [&] { ran.push_back(4); });
  });
  tl.add(2, [&] { ran.push_back(2); });
  run(tl, 3);
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(tl.size(), 1u);
  EXPECT_TRUE(tl.pending_by(4));
  run(tl, 4);
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace latsim::kernel
