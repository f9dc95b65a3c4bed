// kernel_sim/sched/wake_balance.cpp: the CPU try_to_wake_up queues a sleeping task on
// (2.6.9 SD_WAKE_AFFINE / SD_WAKE_BALANCE and the -rc1 task_hot() underflow).
#include <gtest/gtest.h>
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

using test::us;

struct WakeCase {
  std::string rule = "sd";
  bool bug = true;
  int hogs0 = 1;            // SCHED_OTHER hogs pinned to CPU0, the sleeper's CPU
  double tick_after = -10;  // CPU0's last tick relative to the sleeper's switch-out, µs
};

// No ticks: the test sets CPU0's tick timestamp and load (its nr_running). `s`
// (FIFO 50) slept on CPU0 at boot; the waker (FIFO 60 on CPU1) starts a hog on CPU1,
// so CPU1 runs three tasks (target_load 384: ksoftirqd/1 waits behind them), and
// hogs on CPU0, then lets s run on either CPU and wakes it. Returns s->cpu: 1 if the
// wake moved it to the waker's CPU.
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
    s = k.create_task(
        "s",
        [&k] {
          k.user_exec(50000, 0);  // 50 µs, then sleep
          k.sys_pause();
        },
        Policy::Fifo, 50, 0, 0x1);
    k.create_task(
        "waker",
        [&, hog] {
          k.user_exec(200000, 0);  // CPU1 is up; s and the boot threads sleep
          k.create_task("hog1", hog, Policy::Normal, 0, 1, 0x2);
          for (int i = 0; i < c.hogs0; ++i) k.create_task("hog0", hog, Policy::Normal, 0, 0, 0x1);
          k.user_exec(200000, 0);
          Runqueue& rq0 = k.cpu_rq(0);
          EXPECT_EQ(rq0.nr_running, c.hogs0);    // s is asleep
          EXPECT_EQ(k.cpu_rq(1).nr_running, 3);  // waker, hog1, ksoftirqd/1 behind them
          rq0.cpu_load = uint64_t(rq0.nr_running) * 128;
          rq0.timestamp_last_tick =
              c.tick_after < 0 ? s->last_ran - us(-c.tick_after) : s->last_ran + us(c.tick_after);
          s->cpus_allowed = 0x3;  // sched_setaffinity while it sleeps: either CPU
          k.try_to_wake_up(s, "test");
          cpu = s->cpu;
          k.sys_pause();
        },
        Policy::Fifo, 60, 1, 0x2);
  }));
  m.k->boot();
  sc_core::sc_start(sc_time(50, sc_core::SC_MS));
  return cpu;
}

// s slept 10 µs after CPU0's last tick: now - p->timestamp wraps, s looks cold and
// SD_WAKE_AFFINE queues it on the waker's CPU.
TEST(WakeBalanceTest, UnderflowMakesAHotTaskColdAndPullsIt) { EXPECT_EQ(woken_on({}), 1); }

// The same wake with the long long cast (Ken Chen's fix): hot, stays on CPU0.
TEST(WakeBalanceTest, FixedTaskHotKeepsItOnItsCpu) {
  WakeCase c;
  c.bug = false;
  EXPECT_EQ(woken_on(c), 0);
}

// CPU0 ticked 100 µs after s slept: no wrap, 100 µs < cache_hot_time, hot: stays.
TEST(WakeBalanceTest, TickAfterTheSleepIsHot) {
  WakeCase c;
  c.tick_after = 100;
  EXPECT_EQ(woken_on(c), 0);
}

// CPU0's last tick 2.6 ms after it slept: cold for real (cache_hot_time 2.5 ms): pulled.
TEST(WakeBalanceTest, ColdAfterCacheHotTime) {
  WakeCase c;
  c.bug = false;
  c.tick_after = 2600;
  EXPECT_EQ(woken_on(c), 1);
}

// CPU0 idle (source_load 0) and CPU1 busy: "don't pull the task off an idle CPU to a
// busy one", even when it looks cold.
TEST(WakeBalanceTest, NotPulledOffAnIdleCpu) {
  WakeCase c;
  c.hogs0 = 0;
  EXPECT_EQ(woken_on(c), 0);
}

// Hot, but CPU0 runs five hogs: 137 x 384 <= 100 x 640, SD_WAKE_BALANCE pulls it.
TEST(WakeBalanceTest, WakeBalanceMovesAHotTaskOffABusyCpu) {
  WakeCase c;
  c.bug = false;
  c.hogs0 = 5;
  EXPECT_EQ(woken_on(c), 1);
}

// Three hogs (384): 137 x 384 > 100 x 384, no imbalance: stays.
TEST(WakeBalanceTest, EqualLoadsAreNoImbalance) {
  WakeCase c;
  c.bug = false;
  c.hogs0 = 3;
  EXPECT_EQ(woken_on(c), 0);
}

// The earlier rule: CPU1 runs three tasks, CPU0 one: never here, hot or cold.
TEST(WakeBalanceTest, NrRunningRuleIgnoresCacheHeat) {
  WakeCase c;
  c.rule = "nr_running";
  EXPECT_EQ(woken_on(c), 0);
}

}  // namespace
}  // namespace latsim::kernel
