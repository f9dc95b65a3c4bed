// kernel_sim/time/schedule_timeout.cpp: kernel/timer.c schedule_timeout queues a
// process_timeout timer on the sleeper's CPU base and deletes it on an early wake-up.
#include <gtest/gtest.h>
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

struct Result {
  uint64_t start_tick = 0, end_tick = 0;    // CPU0's local tick before the sleep / at return
  sc_time start, end, tick5, tick6, woken;  // CPU0's local ticks start + 5 and start + 6
  size_t pending_before = 0, pending_asleep = 0, pending_after = 0;  // timers on CPU0's base
};

// `s` (FIFO, CPU0) sleeps in schedule_timeout(5). With `wake_after_us` > 0 a FIFO task on
// CPU1 wakes it that long after it went to sleep; otherwise only the timer can.
Result sleep_five_ticks(double wake_after_us) {
  FakeMachine m(2, flavour_params("2.6.9-vp"));
  Result r;
  Task* s = nullptr;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    s = k.create_task(
        "s",
        [&] {
          k.user_exec(500000, 0);  // past boot, between two ticks
          r.start_tick = k.local_ticks(0);
          r.pending_before = k.timers(0).size();
          r.start = k.now();
          r.tick5 = k.tick_time(0, r.start_tick + 5);
          r.tick6 = k.tick_time(0, r.start_tick + 6);
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule_timeout(5, "test");
          r.end = k.now();
          r.end_tick = k.local_ticks(0);
          r.pending_after = k.timers(0).size();
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Fifo, 50, 0, 0x1);
    if (wake_after_us > 0)
      k.create_task(
          "waker",
          [&] {
            while (r.start == sc_core::SC_ZERO_TIME) k.user_exec(10000, 0);
            k.user_exec(uint64_t(wake_after_us * k.this_cpu().mhz()), 0);
            r.pending_asleep = k.timers(0).size();
            r.woken = k.now();
            k.try_to_wake_up(s, "test");
            k.sys_pause();
          },
          Policy::Fifo, 60, 1, 0x2);
  }));
  m.k->boot();
  sc_core::sc_start(sc_time(50, sc_core::SC_MS));
  return r;
}

// Nobody wakes it: process_timeout does, from CPU0's timer softirq after local tick
// start + 5 and before the next one.
TEST(ScheduleTimeoutTest, OnlyTheTimerWakesItFiveTicksLater) {
  const Result r = sleep_five_ticks(0);
  EXPECT_EQ(r.end_tick, r.start_tick + 5);
  EXPECT_GT(r.end, r.tick5);
  EXPECT_LT(r.end, r.tick6);
  EXPECT_EQ(r.pending_after, r.pending_before);  // the timer ran: nothing left queued
}

// Woken 300 us or more in (as snd_pcm_period_elapsed wakes the ALSA writer): it returns at
// once, and del_singleshot_timer_sync has taken its timer off CPU0's base.
TEST(ScheduleTimeoutTest, AnEarlyWakeUpDeletesTheTimer) {
  const Result r = sleep_five_ticks(300);
  EXPECT_EQ(r.pending_asleep, r.pending_before + 1);  // queued while it slept
  EXPECT_EQ(r.pending_after, r.pending_before);       // and gone after the wake-up
  EXPECT_GT(r.woken - r.start, sc_time(300, sc_core::SC_US));
  EXPECT_LT(r.end, r.tick5);                                // well before the timeout
  EXPECT_LT(r.end - r.woken, sc_time(20, sc_core::SC_US));  // straight back from schedule()
}

}  // namespace
}  // namespace latsim::kernel

namespace latsim::kernel {
namespace {

// Timer base locks after both CPUs slept in schedule_timeout(1) every tick for 30 ms:
// acquisitions of each lock named `name`, in CPU order, and the contentions over them.
struct BaseLocks {
  std::vector<uint64_t> acquisitions;
  uint64_t contended = 0;
  bool per_cpu_bases = false;  // a lock named base->lock exists
};
BaseLocks sleep_every_tick(const std::string& flavour, const std::string& name) {
  FakeMachine m(2, test::flavour_params(flavour));
  m.k->add_workload(std::make_unique<test::LambdaWorkload>([&](Kernel& k) {
    for (int c = 0; c < 2; ++c)
      k.create_task(
          "sleeper" + std::to_string(c),
          [&k] {
            for (;;) {
              k.set_current_state(TASK_INTERRUPTIBLE);
              k.schedule_timeout(1, "test");
            }
          },
          Policy::Fifo, 50, c, 1u << c);
  }));
  m.k->boot();
  sc_core::sc_start(test::ms(30));
  BaseLocks b;
  for (const Spinlock* l : m.k->spinlocks()) {
    b.per_cpu_bases |= std::string(l->name) == "base->lock";
    if (std::string(l->name) == name) {
      b.acquisitions.push_back(l->acquisitions);
      b.contended += l->contended;
    }
  }
  return b;
}

// 2.6.9: each CPU's timer base has its own lock (DEFINE_PER_CPU(tvec_base_t, tvec_bases));
// mod_timer, del_timer and run_timer_softirq on each CPU take their own base's, ~30 ticks
// each, and never wait for each other's.
TEST(ScheduleTimeoutTest, EachCpusBaseHasItsOwnLock) {
  const BaseLocks b = sleep_every_tick("2.6.9-vp", "base->lock");
  ASSERT_EQ(b.acquisitions.size(), 2u);
  EXPECT_GT(b.acquisitions[0], 50u);
  EXPECT_GT(b.acquisitions[1], 50u);
  EXPECT_EQ(b.contended, 0u);
}

// 2.4: one timer wheel under one timerlist_lock, taken from both CPUs.
TEST(ScheduleTimeoutTest, TwoFourHasOneTimerlistLock) {
  const BaseLocks b = sleep_every_tick("2.4.20-lowlatency", "timerlist_lock");
  EXPECT_FALSE(b.per_cpu_bases);
  ASSERT_EQ(b.acquisitions.size(), 1u);
  EXPECT_GT(b.acquisitions[0], 100u);
}

}  // namespace
}  // namespace latsim::kernel
