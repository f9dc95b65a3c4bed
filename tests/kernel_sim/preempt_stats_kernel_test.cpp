// preempt-stats inside the simulated 2.4.10-preempt kernel (fake CPU, fixed costs):
// a BKL holder that sleeps leaves preemption off across the switch (2.4's schedule()
// drops the BKL after raising the count), so the section it opened runs on until the
// next task's count returns to 0 at the end of schedule() (697/sched.c).
#include <gtest/gtest.h>
#include "kernel_sim/kernel.h"
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using sc_core::SC_MS;
using sc_core::sc_time;
using test::boot;
using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

TEST(PreemptStatsKernel, BklHolderSleepingKeepsTheSectionOpenIntoTheNextTask) {
  FakeMachine m(1, flavour_params("2.4.10-preempt"));
  for (auto* c : m.cpus) c->timer_enabled = false;
  sc_time locked, b_ran;
  boot(m, [&](Kernel& k) {
    k.create_task(
        "a",
        [&] {
          k.lock_kernel("reiserfs_delete_inode");
          locked = k.now();
          k.exec(200000);  // 200 us under the BKL (1 cycle = 1 ns)
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");  // sleeps holding the BKL
        },
        Policy::Fifo, 20);
    k.create_task(
        "b",
        [&] {
          b_ran = k.now();
          for (;;) k.user_exec(100000, 0);
        },
        Policy::Fifo, 10);
  });
  sc_core::sc_start(sc_time(5, SC_MS));
  ASSERT_NE(m.k->preempt_stats(), nullptr);
  ASSERT_GT(b_ran, locked);
  const auto w = m.k->preempt_stats()->worst(0);
  EXPECT_EQ(w[0].cause, CAUSE_BKL);
  EXPECT_EQ(w[0].start.line, 30u);  // lock_kernel in reiserfs_delete_inode: 30/inode.c
  EXPECT_STREQ(w[0].start.file, "inode.c");
  EXPECT_EQ(w[0].end.line, 697u);  // b's first return through schedule(): 697/sched.c
  EXPECT_STREQ(w[0].end.file, "sched.c");
  EXPECT_GE(w[0].latency_us, 200u);
  EXPECT_LE(double(w[0].latency_us), (b_ran - locked).to_seconds() * 1e6 + 1);
}

// On the 2.6.9 flavours the table does not exist (the 2001 patch only).
TEST(PreemptStatsKernel, OnlyThe2410PreemptFlavourHasTheTable) {
  FakeMachine m(1, flavour_params("2.6.9-vp"));
  EXPECT_EQ(m.k->preempt_stats(), nullptr);
}

}  // namespace
}  // namespace latsim::kernel
