// kernel_sim/sched/wake_balance.cpp: the CPU try_to_wake_up queues a sleeping task on
// (2.6.9 SD_WAKE_AFFINE / SD_WAKE_BALANCE and the -rc1 task_hot() underflow).
#include <gtest/gtest.h>
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

sc_time us(double v) { return sc_time(v, sc_core::SC_US); }

struct WakeCase {
  std::string rule = "sd";
  bool bug = true;
  int hogs1 = 1;            // SCHED_OTHER hogs pinned to CPU1, the sleeper's CPU
  uint64_t cpu_load1 = 0;   // CPU1's decayed load (0: nr_running x SCHED_LOAD_SCALE)
  double tick_after = -10;  // CPU1's last tick relative to the sleeper's switch-out, µs
};

// No ticks: the test sets CPU1's tick timestamp and load. CPU0 runs a hog and the
// waker (target_load 256); `s` (FIFO 50, any CPU) slept on CPU1. Returns s->cpu
// right after the waker on CPU0 woke it.
int woken_on(const WakeCase& c) {
  auto p = flavour_params("2.6.9-vp");
  p.wake_balance = c.rule;
  p.task_hot_underflow_bug = c.bug;
  FakeMachine m(2, p);
  for (auto* cpu : m.cpus) cpu->timer_enabled = false;
  Task* s = nullptr;
  int cpu = -1;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    auto hog = [&k] {
      for (;;) k.user_exec(100000, 0);
    };
    k.create_task("hog0", hog, Policy::Normal, 0, 0, 0x1);
    for (int i = 0; i < c.hogs1; ++i) k.create_task("hog1", hog, Policy::Normal, 0, 1, 0x2);
    s = k.create_task(
        "s",
        [&k] {
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Fifo, 50, 1);
    k.create_task(
        "waker",
        [&] {
          k.user_exec(200000, 0);  // s has run on CPU1 and gone to sleep
          Runqueue& rq1 = k.cpu_rq(1);
          EXPECT_EQ(rq1.nr_running, c.hogs1);  // s is asleep
          rq1.cpu_load = c.cpu_load1 ? c.cpu_load1 : uint64_t(rq1.nr_running) * 128;
          rq1.timestamp_last_tick =
              c.tick_after < 0 ? s->last_ran - us(-c.tick_after) : s->last_ran + us(c.tick_after);
          k.try_to_wake_up(s, "test");
          cpu = s->cpu;
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Fifo, 60, 0, 0x1);
  }));
  m.k->boot();
  sc_core::sc_start(sc_time(1, sc_core::SC_MS));
  return cpu;
}

// s slept 10 µs after CPU1's last tick: now - p->timestamp wraps, s looks cold and
// SD_WAKE_AFFINE queues it on the waker's CPU.
TEST(WakeBalanceTest, UnderflowMakesAHotTaskColdAndPullsIt) { EXPECT_EQ(woken_on({}), 0); }

// The same wake with the long long cast (Ken Chen's fix): hot, stays on CPU1.
TEST(WakeBalanceTest, FixedTaskHotKeepsItOnItsCpu) {
  WakeCase c;
  c.bug = false;
  EXPECT_EQ(woken_on(c), 1);
}

// A tick 100 µs after s slept: no wrap, 100 µs < cache_hot_time, hot: stays.
TEST(WakeBalanceTest, TickAfterTheSleepIsHot) {
  WakeCase c;
  c.tick_after = 100;
  EXPECT_EQ(woken_on(c), 1);
}

// Last tick 2.6 ms after it slept: cold for real (cache_hot_time 2.5 ms): pulled.
TEST(WakeBalanceTest, ColdAfterCacheHotTime) {
  WakeCase c;
  c.bug = false;
  c.tick_after = 2600;
  EXPECT_EQ(woken_on(c), 0);
}

// CPU1 idle (source_load 0) and CPU0 busy: "don't pull the task off an idle CPU to a
// busy one", even when it looks cold.
TEST(WakeBalanceTest, NotPulledOffAnIdleCpu) {
  WakeCase c;
  c.hogs1 = 0;
  EXPECT_EQ(woken_on(c), 1);
}

// Hot, but CPU1 runs three hogs: 137 x 256 <= 100 x 384, SD_WAKE_BALANCE pulls it.
TEST(WakeBalanceTest, WakeBalanceMovesAHotTaskOffABusyCpu) {
  WakeCase c;
  c.bug = false;
  c.hogs1 = 3;
  EXPECT_EQ(woken_on(c), 0);
}

// Two hogs (256): 137 x 256 > 100 x 256, no imbalance: stays.
TEST(WakeBalanceTest, TwoHogsAreNoImbalance) {
  WakeCase c;
  c.bug = false;
  c.hogs1 = 2;
  EXPECT_EQ(woken_on(c), 1);
}

// The earlier rule: CPU0 runs two tasks, CPU1 one: never here, hot or cold.
TEST(WakeBalanceTest, NrRunningRuleIgnoresCacheHeat) {
  WakeCase c;
  c.rule = "nr_running";
  EXPECT_EQ(woken_on(c), 1);
}

}  // namespace
}  // namespace latsim::kernel
