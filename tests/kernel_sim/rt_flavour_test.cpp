// The rt flavour's mechanisms on the fake-CPU harness: rt_mutex priority
// inheritance, and seed 003's cyclictest contrast (CALIBRATION.md O13): with
// POSIX timers the signal comes from ktimersoftd/N; pinned, the woken task
// preempts ktimersoftd while it still holds the siglock, blocks on it and
// boosts it (3 switches per period); unpinned, select_task_rq_rt sends it to
// the idle CPU; clock_nanosleep is woken from the hard interrupt directly.
#include <gtest/gtest.h>
#include <vector>
#include "kernel_sim/time/posix_timers.h"
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

using test::ms;
using test::us;

TEST(RtFlavourTest, SleepingSpinlockInheritsPriority) {
  FakeMachine m(1, flavour_params("rt"));
  Spinlock l{"driver_lock", true};
  Task *low = nullptr, *high = nullptr;
  int low_prio_while_waited = -1, low_prio_after = -1;
  sc_time high_got, low_released;
  bool high_blocked_first = false;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    high = k.create_task(
        "high",
        [&] {
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");
          k.spin_lock(l, "test");  // held by low: sleeps, lends its priority
          high_got = k.now();
          high_blocked_first = l.contended == 1;
          k.spin_unlock(l, {"test", "unlock"});
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Fifo, 80);
    low = k.create_task(
        "low",
        [&] {
          k.spin_lock(l, "test");
          k.try_to_wake_up(high, "test");  // preempts low at once: no preempt count held
          low_prio_while_waited = k.current().prio;
          k.exec(20000);
          low_released = k.now();
          k.spin_unlock(l, {"test", "unlock"});  // high runs here
          low_prio_after = k.current().prio;
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Fifo, 10);
  }));
  m.k->boot();
  sc_core::sc_start(ms(5));
  EXPECT_TRUE(high_blocked_first);
  EXPECT_EQ(low_prio_while_waited, MAX_RT_PRIO - 1 - 80);  // boosted to high's prio
  EXPECT_EQ(low_prio_after, MAX_RT_PRIO - 1 - 10);         // given back at unlock
  EXPECT_GE(high_got, low_released);
  EXPECT_LT(high_got - low_released, us(5));
}

// -rt: the BKL is an rt_mutex. A holder that slept retakes it on its way out of
// schedule(); while a task on the other CPU holds it, the retake sleeps, and that
// schedule() must not drop the BKL a second time (it did, freeing the holder's lock, and
// the retakes then nested until the stack overflowed).
TEST(RtFlavourTest, BklRetakenAfterASleepWaitsForItsHolder) {
  FakeMachine m(2, flavour_params("rt"));
  Task *a = nullptr, *b = nullptr;
  const Task *owner_while_a_held = nullptr, *owner_after_retake = nullptr;
  sc_time a_released, b_retook;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    b = k.create_task(
        "b",
        [&] {
          k.lock_kernel("test");
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");  // drops the BKL; a takes it on CPU1 and wakes b
          b_retook = k.now();
          owner_after_retake = k.kernel_flag().owner_task;
          k.unlock_kernel({"test", "unlock"});
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Fifo, 80, 0, 1u << 0);
    a = k.create_task(
        "a",
        [&] {
          k.exec(20000);  // b takes the BKL and sleeps meanwhile
          k.lock_kernel("test");
          k.try_to_wake_up(b, "test");  // b, on CPU0, sleeps retaking the BKL
          k.exec(20000);
          owner_while_a_held = k.kernel_flag().owner_task;
          a_released = k.now();
          k.unlock_kernel({"test", "unlock"});
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Fifo, 10, 1, 1u << 1);
  }));
  m.k->boot();
  sc_core::sc_start(ms(5));
  EXPECT_EQ(owner_while_a_held, a);
  EXPECT_EQ(owner_after_retake, b);
  EXPECT_GE(b_retook, a_released);
  EXPECT_EQ(m.k->kernel_flag().contended, 1u);
}

// cyclictest -p 80 -i 500 on the rt flavour, in one of seed 003's three modes.
struct Cyclic {
  bool posix = true;
  uint32_t affinity = ~0u;
  std::vector<double> lat_us;
  uint64_t switches = 0;
  uint64_t migrations = 0;
};

void start_cyclic(FakeMachine& m, Cyclic& c, int loops) {
  m.k->add_workload(std::make_unique<LambdaWorkload>([&m, &c, loops](Kernel& k) {
    Task* t = k.create_task(
        "cyclictest",
        [&k, &c, loops] {
          const sc_time interval = us(500);
          sc_time next = k.now() + ms(1);
          PosixTimer timer(k.current().siglock);
          if (c.posix) {
            timer.create(k);
            timer.settime(k, next, interval);
          }
          for (int i = 0; i < loops; ++i) {
            if (c.posix)
              timer.sigwait(k);
            else
              k.clock_nanosleep(next, "syscall_call");
            k.fn("sys_clock_gettime", "syscall_call", 150, 1);
            c.lat_us.push_back((k.now() - next).to_seconds() * 1e6);
            next += interval;
            k.user_exec(2000, 0);
          }
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule("test");
          }
        },
        Policy::Fifo, 80, -1, c.affinity);
    (void)m;
    (void)t;
  }));
  m.k->boot();
}

double min_of(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double avg_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

TEST(RtFlavourTest, CyclictestPinnedPosixAboveUnpinnedAboveNanosleep) {
  // Three independent machines in one simulation (each kernel has its own tasks).
  test::FakeCosts costs;
  costs.refill_lines = 20;  // every switch-in refills some lines (fixed cost per switch)
  FakeMachine unpinned(2, flavour_params("rt"), costs), pinned(2, flavour_params("rt"), costs),
      nanosleep(2, flavour_params("rt"), costs);
  Cyclic cu, cp, cn;
  cp.affinity = 0x1;  // cyclictest -a 0
  cn.posix = false;   // cyclictest -n
  const int loops = 200;
  start_cyclic(unpinned, cu, loops);
  start_cyclic(pinned, cp, loops);
  start_cyclic(nanosleep, cn, loops);
  sc_core::sc_start(ms(110));
  ASSERT_EQ(cu.lat_us.size(), size_t(loops));
  ASSERT_EQ(cp.lat_us.size(), size_t(loops));
  ASSERT_EQ(cn.lat_us.size(), size_t(loops));
  auto switches = [](FakeMachine& m) {
    uint64_t n = 0;
    for (int c = 0; c < m.k->ncpus(); ++c) n += m.k->cpu_rq(c).nr_switches;
    return n;
  };
  auto migrations = [](FakeMachine& m) {
    return m.k->per_cpu(0).migrations + m.k->per_cpu(1).migrations;
  };
  std::printf("unpinned posix: min %.2f avg %.2f us, switches %lu, migrations %lu\n",
              min_of(cu.lat_us), avg_of(cu.lat_us), (unsigned long)switches(unpinned),
              (unsigned long)migrations(unpinned));
  std::printf("pinned posix:   min %.2f avg %.2f us, switches %lu, migrations %lu\n",
              min_of(cp.lat_us), avg_of(cp.lat_us), (unsigned long)switches(pinned),
              (unsigned long)migrations(pinned));
  std::printf("clock_nanosleep: min %.2f avg %.2f us, switches %lu, migrations %lu\n",
              min_of(cn.lat_us), avg_of(cn.lat_us), (unsigned long)switches(nanosleep),
              (unsigned long)migrations(nanosleep));
  EXPECT_GT(min_of(cp.lat_us), min_of(cu.lat_us));
  EXPECT_LT(min_of(cn.lat_us), min_of(cu.lat_us));
  EXPECT_LT(avg_of(cn.lat_us), avg_of(cu.lat_us));
  // Seed 003's traces: unpinned, about one migration per loop; pinned, none and
  // more switches than unpinned (cyclictest blocks on the siglock ktimersoftd holds).
  EXPECT_GE(migrations(unpinned), uint64_t(loops) * 9 / 10);
  EXPECT_EQ(migrations(pinned), 0u);
  EXPECT_GT(switches(pinned), switches(unpinned));
}

}  // namespace
}  // namespace latsim::kernel
