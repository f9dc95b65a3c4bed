// kernel_sim/sched/balance.cpp and migration.cpp: rebalance_tick's periodic
// load_balance, active balance through migration/N, and set_cpus_allowed.
#include <gtest/gtest.h>
#include <vector>
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

using test::ms;

// Four CPU hogs forked onto CPU0 of two. CPU1 pulls one when its boot threads
// sleep (load_balance_newidle) and is never idle again; only the busy CPU's
// periodic balance (every busy_factor x 1 ms) then evens 3:1 out to 2:2.
struct Hogs {
  std::vector<Task*> tasks;
  std::vector<std::vector<int>> cpus_seen{4};
};

void start_hogs(FakeMachine& m, Hogs& h) {
  m.k->add_workload(std::make_unique<LambdaWorkload>([&h](Kernel& k) {
    for (int i = 0; i < 4; ++i)
      h.tasks.push_back(k.create_task(
          "hog" + std::to_string(i),
          [&k, &h, i] {
            for (;;) {
              h.cpus_seen[size_t(i)].push_back(k.smp_processor_id());
              k.user_exec(100000, 0);
            }
          },
          Policy::Normal, 0, 0));
  }));
  m.k->boot();
}

int on_cpu1(const Hogs& h) {
  int n = 0;
  for (const Task* t : h.tasks) n += t->cpu == 1;
  return n;
}

KernelParams balancing(bool on) {
  auto p = flavour_params("2.6.9-vp");
  p.periodic_balance = on;
  return p;
}

TEST(BalanceTest, PeriodicBalanceEvensOutBusyCpus) {
  FakeMachine m(2, balancing(true));
  Hogs h;
  start_hogs(m, h);
  sc_core::sc_start(ms(150));
  EXPECT_EQ(on_cpu1(h), 2);  // 3:1 -> 2:2, then balanced (a move must narrow the gap)
  EXPECT_EQ(m.k->cpu_rq(1).nr_migrations, 2u);
}

TEST(BalanceTest, WithoutPeriodicBalanceOnlyNewIdlePulls) {
  FakeMachine m(2, balancing(false));
  Hogs h;
  start_hogs(m, h);
  sc_core::sc_start(ms(150));
  EXPECT_EQ(on_cpu1(h), 1);
  EXPECT_EQ(m.k->cpu_rq(1).nr_migrations, 1u);
}

// CPU0 runs `a` (may run anywhere) and has `b` and `c` queued, both pinned to CPU0:
// nothing can be pulled, so after cache_nice_tries + 3 failed balances CPU1 asks
// migration/0 to push; migration/0 preempts `a`, and moves it to CPU1.
TEST(BalanceTest, ActiveBalancePushesTheRunningTaskThroughMigrationThread) {
  FakeMachine m(2, balancing(true));
  Task* a = nullptr;
  std::vector<int> a_cpus;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    a = k.create_task(
        "a",
        [&] {
          for (;;) {
            if (a_cpus.empty() || a_cpus.back() != k.smp_processor_id())
              a_cpus.push_back(k.smp_processor_id());
            k.user_exec(50000, 0);
          }
        },
        Policy::Fifo, 10, 0);
    for (const char* n : {"b", "c"})
      k.create_task(
          n,
          [&k] {
            for (;;) k.user_exec(50000, 0);
          },
          Policy::Normal, 0, 0, 0x1);
  }));
  m.k->boot();
  sc_core::sc_start(ms(40));
  EXPECT_EQ(a_cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(a->nr_migrations, 1u);
  const Task* mig0 = m.k->cpu_rq(0).migration_thread;
  ASSERT_NE(mig0, nullptr);
  EXPECT_EQ(mig0->comm, "migration/0");
  EXPECT_EQ(mig0->pid, 2);
  EXPECT_GE(mig0->nvcsw, 2u);  // it slept at boot and again after the push
}

// sched_setaffinity of a running task: migration/0 moves it while it waits.
TEST(BalanceTest, SetCpusAllowedOfRunningTaskGoesThroughMigrationThread) {
  FakeMachine m(2, balancing(false));
  int before = -1, after = -1;
  uint64_t mig_switches_before = 0;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    k.create_task(
        "t",
        [&] {
          k.user_exec(100000, 0);
          before = k.smp_processor_id();
          mig_switches_before = k.cpu_rq(0).migration_thread->nvcsw;
          k.set_cpus_allowed(&k.current(), 0x2);
          after = k.smp_processor_id();
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0, 0);
  }));
  m.k->boot();
  sc_core::sc_start(ms(5));
  EXPECT_EQ(before, 0);
  EXPECT_EQ(after, 1);
  EXPECT_EQ(m.k->cpu_rq(0).migration_thread->nvcsw, mig_switches_before + 1);
  EXPECT_EQ(m.k->per_cpu(1).migrations, 1u);
}

}  // namespace
}  // namespace latsim::kernel
