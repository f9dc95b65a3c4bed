// kernel_sim/time/timer_list.h: the 2.6 tvec_base wheel (tv1..tv5) with cascades.
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

TEST(TimerListTest, DelUnlinksAPendingTimer) {
  TimerList tl;
  std::vector<int> ran;
  const auto a = tl.add(10, [&] { ran.push_back(1); });
  tl.add(10, [&] { ran.push_back(2); });
  const auto far = tl.add(5000, [&] { ran.push_back(3); });
  EXPECT_TRUE(tl.del(a));
  EXPECT_FALSE(tl.del(a));   // already gone
  EXPECT_TRUE(tl.del(far));  // from an outer wheel
  EXPECT_EQ(tl.size(), 1u);
  run(tl, 6000);
  EXPECT_EQ(ran, (std::vector<int>{2}));
  EXPECT_EQ(tl.cascaded_total(), 0u);  // nothing was left to move
}

// internal_add_timer's levels: tv1 < 256 jiffies away, tv2 < 2^14, tv3 < 2^20.
// Each cascade moves one outer slot's timers down one level, counted exactly.
TEST(TimerListTest, OuterWheelsCascadeWhenTv1Wraps) {
  TimerList tl;
  std::vector<uint64_t> ran_at;
  std::vector<uint64_t> moves;
  uint64_t now = 0;
  auto add = [&](uint64_t exp) { tl.add(exp, [&, exp] { ran_at.push_back(exp); }); };
  for (uint64_t e = 256; e < 266; ++e) add(e);  // tv2 slot 1
  add(300);                                     // tv2 slot 1 too (300 >> 8 == 1)
  add(600);                                     // tv2 slot 2
  add(70000);                                   // tv3 slot 4 (70000 >> 14 == 4)
  auto step = [&](uint64_t to) {
    for (; now <= to; ++now)
      tl.run_expired(
          now, [](std::function<void()>& fn) { fn(); }, [&](uint64_t n) { moves.push_back(n); });
  };
  step(255);
  EXPECT_TRUE(ran_at.empty());
  EXPECT_TRUE(moves.empty());  // jiffy 0's wrap found every outer slot 0 empty
  step(256);                   // tv1 wraps: tv2 slot 1 (11 timers) comes down
  EXPECT_EQ(moves, (std::vector<uint64_t>{11}));
  EXPECT_EQ(ran_at, (std::vector<uint64_t>{256}));
  step(511);
  EXPECT_EQ(ran_at.size(), 11u);
  EXPECT_EQ(ran_at.back(), 300u);
  step(512);  // tv2 slot 2: the timer at 600
  EXPECT_EQ(moves, (std::vector<uint64_t>{11, 1}));
  // 65536 = 4 << 14: tv2 index wraps to 0, so tv3 slot 4 cascades into tv2 slot 17
  // (70000 >> 8 & 63), then at 69888 (273 << 8) into tv1.
  step(65536);
  EXPECT_EQ(moves, (std::vector<uint64_t>{11, 1, 1}));
  step(69999);
  EXPECT_EQ(moves, (std::vector<uint64_t>{11, 1, 1, 1}));
  EXPECT_EQ(ran_at.size(), 12u);
  step(70000);
  EXPECT_EQ(ran_at.back(), 70000u);
  EXPECT_EQ(tl.cascaded_total(), 14u);
  EXPECT_EQ(tl.size(), 0u);
}

TEST(TimerListTest, LateRunCatchesUpEveryJiffy) {
  // __run_timers walks timer_jiffies up to jiffies one at a time: a softirq that
  // ran late still runs the timers in expiry order and cascades on the way.
  TimerList tl;
  std::vector<uint64_t> ran_at;
  for (uint64_t e : {700u, 5u, 300u, 255u}) tl.add(e, [&ran_at, e] { ran_at.push_back(e); });
  uint64_t moved = 0;
  tl.run_expired(
      1000, [](std::function<void()>& fn) { fn(); }, [&](uint64_t n) { moved += n; });
  EXPECT_EQ(ran_at, (std::vector<uint64_t>{5, 255, 300, 700}));
  EXPECT_EQ(moved, 2u);  // 300 at jiffy 256, 700 at 512
  EXPECT_EQ(tl.timer_jiffies(), 1001u);
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
  run(tl, 4);
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace latsim::kernel
