// Preemptible RCU with boosting (kernel_sim/rcu/) on the fake-CPU harness: the read-side
// nesting counted in the task and the per-CPU counters, a reader scheduled out inside its
// section listed for boosting and unlisted at its outermost unlock, synchronize_rcu raising
// a listed reader to the caller's priority and waiting for it, the priority given back at
// unlock, and what CONFIG_RCU_TRACE adds on 2.6.24-rt (armed markers) and 2.6.25-rt
// (counter increments).
#include <gtest/gtest.h>
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;
using test::ms;

KernelParams rcu_params(const std::string& flavour, bool trace) {
  KernelParams p = flavour_params(flavour);
  p.rcu.trace = trace;
  return p;
}

int flipctr_sum(const RcuState& r) {
  int sum = 0;
  for (const RcuCpu& c : r.cpu) sum += c.flipctr[0] + c.flipctr[1];
  return sum;
}

[[noreturn]] void sleep_forever(Kernel& k) {
  for (;;) {
    k.set_current_state(TASK_INTERRUPTIBLE);
    k.schedule("test");
  }
}

TEST(RcuPreemptTest, NestingIsCountedInTheTaskAndOnceInTheCpu) {
  FakeMachine m(1, rcu_params("2.6.24-rt", false));
  int nested = -1, sum_inside = -1, after = -1, sum_after = -1;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    k.create_task(
        "reader",
        [&] {
          k.rcu_read_lock("test");
          k.rcu_read_lock("test");
          nested = k.current().rcu_read_lock_nesting;
          sum_inside = flipctr_sum(*k.rcu());
          k.rcu_read_unlock("test");
          k.rcu_read_unlock("test");
          after = k.current().rcu_read_lock_nesting;
          sum_after = flipctr_sum(*k.rcu());
          sleep_forever(k);
        },
        Policy::Normal, 0);
  }));
  m.k->boot();
  sc_core::sc_start(ms(2));
  EXPECT_EQ(nested, 2);
  EXPECT_EQ(sum_inside, 1);  // only the outermost lock counts in rcu_flipctr
  EXPECT_EQ(after, 0);
  EXPECT_EQ(sum_after, 0);
  EXPECT_EQ(m.k->rcu()->s.read_sections, 1u);
  EXPECT_EQ(m.k->rcu()->s.unboost_called, 1u);  // the outermost unlock only
  EXPECT_EQ(m.k->rcu()->s.unboosted, 0u);       // never scheduled out: not listed
}

TEST(RcuPreemptTest, AReaderPreemptedInItsSectionIsListedUntilItsUnlock) {
  FakeMachine m(1, rcu_params("2.6.24-rt", false));
  Task *reader = nullptr, *high = nullptr;
  bool listed_while_preempted = false, listed_after = true;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    high = k.create_task(
        "high",
        [&] {
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");
          listed_while_preempted = reader->rcub_entry;
          sleep_forever(k);
        },
        Policy::Fifo, 80);
    reader = k.create_task(
        "reader",
        [&] {
          k.rcu_read_lock("test");
          k.try_to_wake_up(high, "test");  // preempts the reader inside its section
          k.rcu_read_unlock("test");
          listed_after = k.current().rcub_entry;
          sleep_forever(k);
        },
        Policy::Normal, 0);
  }));
  m.k->boot();
  sc_core::sc_start(ms(2));
  EXPECT_TRUE(listed_while_preempted);
  EXPECT_FALSE(listed_after);
  EXPECT_EQ(m.k->rcu()->s.boost_called, 1u);
  EXPECT_EQ(m.k->rcu()->s.unboosted, 1u);
  EXPECT_EQ(m.k->rcu()->s.boosted, 0u);  // no synchronize_rcu was boosting
}

TEST(RcuPreemptTest, SynchronizeRcuBoostsTheReaderAndWaitsForItsUnlock) {
  FakeMachine m(1, rcu_params("2.6.24-rt", false));
  Task* reader = nullptr;
  Task* booster = nullptr;
  int normal_prio = -1, prio_boosted = -1, prio_after = -1;
  sc_time unlocked, synchronized;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    booster = k.create_task(
        "booster",
        [&] {
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");
          k.synchronize_rcu("test");  // boosts the listed reader, sleeps for a grace period
          synchronized = k.now();
          sleep_forever(k);
        },
        Policy::Fifo, 10);
    reader = k.create_task(
        "reader",
        [&] {
          normal_prio = k.current().prio;
          k.rcu_read_lock("test");
          k.try_to_wake_up(booster, "test");  // preempted in its section, then boosted
          prio_boosted = k.current().prio;
          k.exec(20000);
          unlocked = k.now();
          k.rcu_read_unlock("test");
          prio_after = k.current().prio;
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
  }));
  m.k->boot();
  sc_core::sc_start(ms(20));
  EXPECT_EQ(prio_boosted, MAX_RT_PRIO - 1 - 10);  // the booster's priority
  EXPECT_EQ(prio_after, normal_prio);             // given back at the outermost unlock
  EXPECT_GT(synchronized, unlocked);              // the grace period waited for the reader
  EXPECT_EQ(m.k->rcu()->s.boosted, 1u);
  EXPECT_GE(m.k->rcu()->s.grace_periods, 1u);
  EXPECT_GE(m.k->rcu()->s.callbacks, 1u);
}

// The time one preempted reader's outermost rcu_read_unlock takes, and the counters.
struct UnlockRun {
  sc_time unlock;
  RcuStats s;
};

UnlockRun preempted_reader_unlock(const std::string& flavour, bool trace) {
  FakeMachine m(1, rcu_params(flavour, trace));
  Task* high = nullptr;
  UnlockRun r;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    high = k.create_task(
        "high",
        [&] {
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");
          sleep_forever(k);
        },
        Policy::Fifo, 80);
    k.create_task(
        "reader",
        [&] {
          k.rcu_read_lock("test");
          k.try_to_wake_up(high, "test");
          const sc_time t0 = k.now();
          k.rcu_read_unlock("test");
          r.unlock = k.now() - t0;
          sleep_forever(k);
        },
        Policy::Normal, 0);
  }));
  m.k->boot();
  sc_core::sc_start(ms(2));
  r.s = m.k->rcu()->s;
  return r;
}

TEST(RcuPreemptTest, RcuTraceArmsTheMarkersOn2624) {
  const UnlockRun off = preempted_reader_unlock("2.6.24-rt", false);
  const UnlockRun on = preempted_reader_unlock("2.6.24-rt", true);
  EXPECT_EQ(off.s.marker_calls, 0u);
  EXPECT_EQ(on.s.marker_calls, 4u);  // boost_called, try_boost; unboost_called, unboosted
  EXPECT_EQ(on.s.trace_counts, 0u);
  // unboost_called and unboosted run in the unlock: two armed markers' probe calls (the
  // fake CPU: 1 cycle = 1 ns).
  const RcuParams p;
  EXPECT_GE(on.unlock - off.unlock, sc_time(2.0 * p.marker_probe_cycles, sc_core::SC_NS));
}

TEST(RcuPreemptTest, RcuTraceCountsDirectlyOn2625) {
  const UnlockRun off = preempted_reader_unlock("2.6.25-rt", false);
  const UnlockRun on = preempted_reader_unlock("2.6.25-rt", true);
  EXPECT_EQ(on.s.marker_calls, 0u);
  EXPECT_EQ(on.s.trace_counts, 4u);
  EXPECT_EQ(off.s.trace_counts, 0u);
  EXPECT_GT(on.unlock, off.unlock);
  // A counter increment costs less than an armed marker's probe call.
  const UnlockRun markers = preempted_reader_unlock("2.6.24-rt", true);
  EXPECT_LT(on.unlock, markers.unlock);
}

TEST(RcuPreemptTest, FlavoursWithoutPreemptibleRcuHaveNone) {
  FakeMachine m(1, flavour_params("rt"));
  sc_time cost = sc_time(1, sc_core::SC_SEC);
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    k.create_task(
        "reader",
        [&] {
          const sc_time t0 = k.now();
          k.rcu_read_lock("test");
          k.rcu_read_unlock("test");
          cost = k.now() - t0;
          sleep_forever(k);
        },
        Policy::Normal, 0);
  }));
  m.k->boot();
  sc_core::sc_start(ms(5));
  EXPECT_EQ(m.k->rcu(), nullptr);
  EXPECT_EQ(cost, sc_core::SC_ZERO_TIME);
}

}  // namespace
}  // namespace latsim::kernel
