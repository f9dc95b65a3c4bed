// The lock word's cache line (Kernel::lock_line): with P6 cache locking an acquisition
// costs an FSB transaction only when the other CPU wrote the line since; with LOCK# on
// the bus (mechanisms.cache_locking: false) every acquisition costs one. On the fake-CPU
// harness with every line hot in L2, so what is counted is coherence traffic.
#include <gtest/gtest.h>

#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::LambdaWorkload;

struct LockFills {
  uint64_t cpu0 = 0, cpu1 = 0;
};

// Five acquisitions of one spinlock on each CPU, 1 ms apart: CPU0 at 1, 3, .. 9 ms, CPU1
// at 2, 4, .. 10 ms when `alternate`, else CPU1 takes a lock of its own.
LockFills acquisitions(bool cache_locking, bool alternate) {
  KernelParams p = test::flavour_params("2.6.9-vp");
  p.cache_locking = cache_locking;
  test::FakeCosts c;
  c.refill_lines = 0;
  FakeMachine m(2, p, c);
  cpu::MesiDirectory dir;
  for (auto* cpu : m.cpus) {
    cpu->mesi = &dir;
    cpu->timer_enabled = false;
  }
  Spinlock shared("shared"), own("own");
  LockFills f;
  auto body = [&](Kernel& k, int cpu, Spinlock& l, uint64_t& fills) {
    return [&k, &m, &l, &fills, cpu] {
      k.exec(uint64_t(cpu + 1) * 1000000);  // 1 cycle = 1 ns on the fake CPU
      for (int i = 0; i < 5; ++i) {
        const uint64_t before = m.cpus[size_t(cpu)]->misses;
        k.spin_lock(l, "test");
        fills += m.cpus[size_t(cpu)]->misses - before;
        k.spin_unlock(l, {"test", "unlock"});
        k.exec(2000000);
      }
      k.set_current_state(TASK_INTERRUPTIBLE);
      k.schedule("test");
    };
  };
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    k.create_task("cpu0", body(k, 0, shared, f.cpu0), Policy::Fifo, 50, 0, 0x1);
    k.create_task("cpu1", body(k, 1, alternate ? shared : own, f.cpu1), Policy::Fifo, 50, 1, 0x2);
  }));
  m.k->boot();
  sc_core::sc_start(sc_time(20, sc_core::SC_MS));
  return f;
}

TEST(LockLine, ALockOnlyOneCpuTakesStaysInItsCache) {
  const LockFills f = acquisitions(true, false);
  EXPECT_EQ(f.cpu0, 0u);
  EXPECT_EQ(f.cpu1, 0u);
}

TEST(LockLine, ALockTakenInTurnsMovesOverTheFsbEachTime) {
  // CPU0's first acquisition finds the line nowhere else; every later one on either CPU
  // takes it from the other's cache.
  const LockFills f = acquisitions(true, true);
  EXPECT_EQ(f.cpu0, 4u);
  EXPECT_EQ(f.cpu1, 5u);
}

TEST(LockLine, WithoutCacheLockingEveryAcquisitionIsABusTransaction) {
  const LockFills f = acquisitions(false, false);
  EXPECT_EQ(f.cpu0, 5u);
  EXPECT_EQ(f.cpu1, 5u);
}

}  // namespace
}  // namespace latsim::kernel
