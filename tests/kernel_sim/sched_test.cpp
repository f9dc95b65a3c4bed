// Scheduler decisions on the fake-CPU harness (fake_cpu.h): no hardware timing,
// fixed costs, so what is asserted is the kernel's policy: who runs, where, and
// at which point a wakeup takes effect on each flavour.
#include <gtest/gtest.h>
#include <memory>
#include <stdexcept>
#include <vector>
#include "models/cpu/l2_residency.h"
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::boot;
using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

using test::ms;
using test::us;

TEST(SchedTest, FifoBeatsOther) {
  FakeMachine m(1, flavour_params("2.6.9-vp"));
  uint64_t other_chunks = 0, fifo_chunks = 0;
  boot(m, [&](Kernel& k) {
    k.create_task(
        "other",
        [&] {
          for (;; ++other_chunks) k.user_exec(100000, 0);
        },
        Policy::Normal, 0);
    k.create_task(
        "fifo",
        [&] {
          for (;; ++fifo_chunks) k.user_exec(100000, 0);
        },
        Policy::Fifo, 10);
  });
  sc_core::sc_start(ms(50));
  EXPECT_EQ(other_chunks, 0u);   // a runnable FIFO task never lets SCHED_OTHER run
  EXPECT_GE(fifo_chunks, 450u);  // 100 µs chunks for ~all of 50 ms
}

// A wake-up of a task that has exited finds it in no state it matches (try_to_wake_up's
// state mask): it stays off the run queue, and the waker's CPU goes idle.
TEST(SchedTest, AnExitedTaskIsNotWokenAgain) {
  FakeMachine m(1, flavour_params("2.6.9-vp"));
  Task* dead = nullptr;
  bool woke = true;
  uint64_t ran = 0;
  boot(m, [&](Kernel& k) {
    dead = k.create_task(
        "short", [&] { ++ran; }, Policy::Normal, 0);
    k.create_task(
        "waker",
        [&] {
          k.user_exec(1000000, 0);  // 1 ms: "short" has run and exited
          woke = k.try_to_wake_up(dead, "test");
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(5));
  EXPECT_EQ(ran, 1u);
  EXPECT_FALSE(woke);
  EXPECT_EQ(dead->state, TASK_DEAD);
  EXPECT_EQ(dead->array, nullptr);
}

// A task its parent reaps is freed once it has switched away for the last time, and the
// caches forget its lines (a task later allocated at its address starts cold); a task no
// one reaps stays a zombie.
TEST(SchedTest, AReapedTaskIsFreedWithItsCacheLines) {
  FakeMachine m(1, flavour_params("2.6.9-vp"));
  cpu::L2Residency l2(uint64_t(1) << 50);
  m.cpus[0]->l2 = &l2;
  size_t tasks_before = 0, objects_before = 0;
  boot(m, [&](Kernel& k) {
    k.create_task(
        "parent",
        [&] {
          k.user_exec(1000000, 0);
          tasks_before = k.tasks().size();
          objects_before = l2.objects();
          for (int i = 0; i < 50; ++i) {
            k.create_task(
                "child",
                [&] {
                  k.current().reaped = true;
                  k.fn("child_work", "test", 100, 4);
                },
                Policy::Fifo, 10);
            k.user_exec(1000000, 0);  // the child runs and exits meanwhile
          }
          k.create_task(
              "zombie", [] {}, Policy::Normal, 0);
          k.user_exec(1000000, 0);
          for (;;) k.user_exec(1000000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(60));
  EXPECT_EQ(m.k->tasks().size(), tasks_before + 1);  // the zombie
  EXPECT_LE(l2.objects(), objects_before + 8);       // child_work's code, the zombie's lines
}

// A freed lock leaves the registry; a held one cannot be freed.
TEST(SchedTest, DestroyingALockUnregistersItAndAHeldOneIsRefused) {
  FakeMachine m(1, flavour_params("2.6.9-vp"));
  auto lock = std::make_unique<Spinlock>("short_lived");
  size_t registered = 0, after = 0;
  bool refused = false;
  boot(m, [&](Kernel& k) {
    k.create_task(
        "t",
        [&] {
          k.spin_lock(*lock, "test");
          registered = k.lock_stats().size();
          try {
            k.destroy_lock(*lock);
          } catch (const std::logic_error&) {
            refused = true;
          }
          k.spin_unlock(*lock, {"test", "unlock"});
          k.destroy_lock(*lock);
          after = k.lock_stats().size();
          for (;;) k.user_exec(1000000, 0);
        },
        Policy::Normal, 0);
  });
  sc_core::sc_start(ms(5));
  EXPECT_TRUE(refused);
  EXPECT_EQ(after, registered - 1);
}

TEST(SchedTest, RrRotatesAtItsTimeslice) {
  FakeMachine m(1, flavour_params("2.6.9-vp"));
  std::vector<std::pair<sc_time, int>> runs;  // (time a task started running, which)
  int last = -1;
  boot(m, [&](Kernel& k) {
    for (int id = 0; id < 2; ++id)
      k.create_task(
          "rr" + std::to_string(id),
          [&, id] {
            for (;;) {
              if (last != id) runs.emplace_back(k.now(), id), last = id;
              k.user_exec(50000, 0);
            }
          },
          Policy::Rr, 10);
  });
  sc_core::sc_start(ms(520));
  // task_timeslice at nice 0: 5 + 195 * 19 / 39 = 100 ticks = 100 ms at HZ 1000.
  ASSERT_GE(runs.size(), 5u);
  for (size_t i = 2; i < runs.size(); ++i) {
    EXPECT_NE(runs[i].second, runs[i - 1].second);
    const double gap_ms = (runs[i].first - runs[i - 1].first).to_seconds() * 1e3;
    EXPECT_NEAR(gap_ms, 100.0, 1.1) << "switch " << i;
  }
}

TEST(SchedTest, AffinityIsHonoured) {
  FakeMachine m(2, flavour_params("2.6.9-vp"));
  std::vector<int> cpus_a, cpus_b;
  int moved_cpu = -1;
  Task* a = nullptr;
  boot(m, [&](Kernel& k) {
    // Allowed on CPU1 only, created without a hint: starts and stays there.
    a = k.create_task(
        "a",
        [&] {
          for (;;) {
            cpus_a.push_back(k.smp_processor_id());
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Normal, 0, -1, 0x2);
    // Wakes `a` from CPU0 (the wake-affine rule would pull it here if it could).
    k.create_task(
        "b",
        [&] {
          for (int i = 0; i < 20; ++i) {
            cpus_b.push_back(k.smp_processor_id());
            k.user_exec(100000, 0);
            k.try_to_wake_up(a, "test");
          }
          // sched_setaffinity to CPU1: the running task moves.
          k.set_cpus_allowed(&k.current(), 0x2);
          moved_cpu = k.smp_processor_id();
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Normal, 0, 0, 0x1);
  });
  sc_core::sc_start(ms(10));
  ASSERT_GE(cpus_a.size(), 10u);
  for (int c : cpus_a) EXPECT_EQ(c, 1);
  for (int c : cpus_b) EXPECT_EQ(c, 0);
  EXPECT_EQ(moved_cpu, 1);
  EXPECT_EQ(m.k->per_cpu(1).migrations, 1u);
}

// A high-priority task pinned to CPU0 is woken from CPU1 while a SCHED_OTHER
// task on CPU0 runs a 1 ms system call made of 50 µs chunks separated by
// might_sleep() points, then returns to user mode (as every workload does: user_exec).
struct PointRun {
  sc_time woken, ran;
  std::vector<sc_time> points, returns;
  uint64_t switch_in_active = 0;  // __switch_to entries showing PREEMPT_ACTIVE + 2
};

PointRun run_point_test(const KernelParams& p, test::FakeCosts c = {}) {
  FakeMachine m(2, p, c);
  for (auto* c : m.cpus) c->timer_enabled = false;  // no ticks: only the wakeup matters
  PointRun r;
  int chunk = -1;
  Task* high = nullptr;
  boot(m, [&](Kernel& k) {
    high = k.create_task(
        "high",
        [&] {
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");
          r.ran = k.now();
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Fifo, 50, 0, 0x1);
    k.create_task(
        "low",
        [&] {
          for (;;) {
            for (chunk = 0; chunk < 20; ++chunk) {
              k.exec(50000);  // sys_read's work, 50 µs
              r.points.push_back(k.now());
              k.might_sleep("generic_file_read");
            }
            chunk = -1;
            r.returns.push_back(k.now());
            k.user_exec(50000, 0);  // back to user mode: syscall_exit checks need_resched
          }
        },
        Policy::Normal, 0, 0, 0x1);
    k.create_task(
        "waker",
        [&] {
          while (chunk != 5) k.user_exec(1000, 0);
          k.user_exec(20000, 0);  // into chunk 5's work
          r.woken = k.now();
          k.try_to_wake_up(high, "test");
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Fifo, 10, 1, 0x2);
  });
  sc_core::sc_start(ms(8));
  for (const auto& t : m.k->tracer().traces())
    for (const auto& e : t.entries)
      if (std::string(e.fn) == "__switch_to" && e.preempt_count == PREEMPT_ACTIVE + 2)
        r.switch_in_active++;
  return r;
}

sc_time first_after(const std::vector<sc_time>& v, sc_time t) {
  for (sc_time x : v)
    if (x >= t) return x;
  return sc_core::SC_ZERO_TIME;
}

TEST(SchedTest, KernelPreemptionPreemptsAtOnce) {
  // One flavour per test (SystemC elaborates once per process): the others below.
  const PointRun r = run_point_test(flavour_params("2.6.9-vp"));
  ASSERT_GT(r.woken, sc_core::SC_ZERO_TIME);
  ASSERT_GT(r.ran, r.woken);
  EXPECT_LT(r.ran - r.woken, us(10));  // the reschedule IPI's return path, mid-chunk
  EXPECT_LT(r.ran, first_after(r.points, r.woken));
}

TEST(SchedTest, VanillaPreemptPreemptsAtOnce) {
  const PointRun r = run_point_test(flavour_params("2.6.9"));
  ASSERT_GT(r.ran, r.woken);
  EXPECT_LT(r.ran - r.woken, us(10));
}

TEST(SchedTest, PreemptPatch2410PreemptsAtOnce) {
  const PointRun r = run_point_test(flavour_params("2.4.10-preempt"));
  ASSERT_GT(r.ran, r.woken);
  EXPECT_LT(r.ran - r.woken, us(10));
}

TEST(SchedTest, VoluntaryPreemptionWaitsForTheNextPoint) {
  KernelParams p = flavour_params("2.6.9-vp");
  p.kernel_preemption = false;  // voluntary points only
  const PointRun r = run_point_test(p);
  const sc_time point = first_after(r.points, r.woken);
  ASSERT_GT(point, r.woken);
  EXPECT_GE(r.ran, point);
  EXPECT_LT(r.ran - point, us(5));
  EXPECT_GT(r.ran - r.woken, us(25));  // the rest of the 50 µs chunk
}

TEST(SchedTest, LowLatency2420WaitsForReturnToUser) {
  const PointRun r = run_point_test(flavour_params("2.4.20-lowlatency"));
  const sc_time ret = first_after(r.returns, r.woken);
  ASSERT_GT(ret, r.woken);
  EXPECT_GE(r.ran, ret);
  EXPECT_LT(r.ran - ret, us(5));
  EXPECT_GT(r.ran - r.woken, us(700));  // 14.6 chunks of 50 µs were left
}

TEST(SchedTest, PreemptedTaskSwitchesBackInWithPreemptActive) {
  KernelParams p = flavour_params("2.6.9-vp");
  p.trace.enabled = true;
  p.trace.threshold_us = 0;
  p.trace.max_traces = 100000;
  // Every line cold, so the switch's sections last long enough (whole microseconds) for
  // the tracer to keep them.
  test::FakeCosts c;
  c.refill_lines = 1000;
  const PointRun r = run_point_test(p, c);
  // "low" was preempted from the IPI's return (preempt_schedule_irq): when it is
  // switched back in, __switch_to runs on its stack with PREEMPT_ACTIVE + 2
  // (schedule's preempt_disable + rq->lock), printed 04000002.
  EXPECT_GE(r.switch_in_active, 1u);
}

TEST(SchedTest, SpinlockSpinsAgainstTheHolderOnTheOtherCpu) {
  FakeMachine m(2, flavour_params("2.6.9-vp"));
  for (auto* c : m.cpus) c->timer_enabled = false;
  Spinlock l{"test_lock"};
  sc_time held_from, released, tried, got;
  bool holding = false, ready = false;
  boot(m, [&](Kernel& k) {
    k.create_task(
        "holder",
        [&] {
          while (!ready) k.user_exec(1000, 0);  // CPU1 boots later
          k.spin_lock(l, "test");
          held_from = k.now();
          holding = true;
          k.exec(100000);  // 100 µs under the lock
          released = k.now();
          k.spin_unlock(l, {"test", "unlock"});
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Fifo, 10, 0, 0x1);
    k.create_task(
        "contender",
        [&] {
          ready = true;
          while (!holding) k.user_exec(1000, 0);
          k.user_exec(10000, 0);
          tried = k.now();
          k.spin_lock(l, "test");
          got = k.now();
          k.spin_unlock(l, {"test", "unlock"});
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Fifo, 10, 1, 0x2);
  });
  sc_core::sc_start(ms(10));
  ASSERT_GT(got, sc_core::SC_ZERO_TIME);
  EXPECT_GE(got, released);
  EXPECT_LT(got - released, us(1));
  EXPECT_EQ(l.contended, 1u);
  EXPECT_EQ(l.acquisitions, 2u);
  EXPECT_GT(l.spin_total, us(85));
  EXPECT_LE(l.spin_total, got - tried);
  EXPECT_GE(m.cpus[1]->spun, l.spin_total);  // the CPU really spun, not slept
  // The per-lock statistics the metrics use.
  bool found = false;
  for (const LockStats& s : m.k->lock_stats())
    if (std::string(s.name) == "test_lock") {
      found = true;
      EXPECT_EQ(s.releases, 2u);
      EXPECT_GE(s.hold_max, released - held_from);
      EXPECT_LT(s.hold_max, released - held_from + us(1));
    }
  EXPECT_TRUE(found);
}

TEST(SchedTest, BklIsReleasedAcrossSchedule) {
  FakeMachine m(2, flavour_params("2.6.9-vp"));
  for (auto* c : m.cpus) c->timer_enabled = false;
  Task* a = nullptr;
  bool a_sleeps = false;
  sc_time b_locked, b_unlocked, a_resumed;
  uint64_t contended_when_b_locked = 99;
  int a_depth_after = -2, owner_after = -2;
  boot(m, [&](Kernel& k) {
    a = k.create_task(
        "a",
        [&] {
          k.lock_kernel("test");
          a_sleeps = true;
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");  // sleeps holding the BKL
          a_resumed = k.now();
          a_depth_after = k.current().lock_depth;
          owner_after = k.kernel_flag().owner;
          k.unlock_kernel({"test", "unlock"});
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Fifo, 20, 0, 0x1);
    k.create_task(
        "b",
        [&] {
          while (!a_sleeps) k.user_exec(1000, 0);
          k.user_exec(10000, 0);
          k.lock_kernel("test");  // free: a dropped it in schedule()
          b_locked = k.now();
          contended_when_b_locked = k.kernel_flag().contended;
          k.exec(50000);
          k.try_to_wake_up(a, "test");  // a retakes it in reacquire_kernel_lock: spins
          k.exec(30000);
          b_unlocked = k.now();
          k.unlock_kernel({"test", "unlock"});
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Fifo, 10, 1, 0x2);
  });
  sc_core::sc_start(ms(10));
  ASSERT_GT(b_locked, sc_core::SC_ZERO_TIME);
  EXPECT_EQ(contended_when_b_locked, 0u);
  EXPECT_GE(a_resumed, b_unlocked);
  EXPECT_EQ(m.k->kernel_flag().contended, 1u);  // a's reacquire spun against b
  EXPECT_EQ(a_depth_after, 0);
  EXPECT_EQ(owner_after, 0);
}

}  // namespace
}  // namespace latsim::kernel
