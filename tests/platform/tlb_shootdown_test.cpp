// TLB shootdown with acknowledgement (arch/i386/kernel/smp.c flush_tlb_others):
// the sender spins until every target has run smp_invalidate_interrupt, which a
// target can only do once it takes the interrupt. On the board (two PIII, APIC
// bus), a receiver that keeps interrupts off for D holds the sender for D: two
// rounds differing only in D differ in the sender's wait by exactly that.
#include <gtest/gtest.h>
#include <functional>
#include <memory>
#include "kernel_sim/kernel.h"
#include "platform/machine.h"
#include "tests/kernel_sim/unit_params.h"

namespace latsim::platform {
namespace {

using kernel::Kernel;

struct Probe : kernel::Workload {
  std::string n = "probe";
  std::function<void(Kernel&)> on_start;
  const std::string& name() const override { return n; }
  void start(Kernel& k) override { on_start(k); }
};

void wait_until(sc_core::sc_time t) {
  if (t > sc_core::sc_time_stamp()) sc_core::wait(t - sc_core::sc_time_stamp());
}

// A task parked in wait_until takes no interrupts: run a little 1 ms before t, so the
// ticks that came meanwhile are handled then and not at t.
void settle_before(Kernel& k, sc_core::sc_time t) {
  wait_until(t - sc_time(1, SC_MS));
  k.exec(1000);
  wait_until(t);
}

TEST(TlbShootdown, SenderWaitsAsLongAsTheReceiverKeepsInterruptsOff) {
  Scenario s;
  Machine m(s);
  kernel::KernelParams kp = test::unit_params();
  kp.hz = 100;  // ticks 10 ms apart, far from the rounds
  kp.nmi_watchdog = false;
  Kernel k(kp, m.cpu_ops());
  // Round r: the sender calls flush_tlb_others at T_r; the receiver has had interrupts
  // off since T_r - 20 us and turns them on at T_r + D_r (a code path with interrupts
  // off stands in for that time). Round 0 warms the caches.
  const sc_core::sc_time D[3] = {sc_time(100, SC_US), sc_time(100, SC_US), sc_time(350, SC_US)};
  sc_core::sc_time T[3], E[3], W[3];
  uint64_t ipis_after[3] = {};
  kernel::Task* recv = nullptr;
  auto probe = std::make_unique<Probe>();
  probe->on_start = [&](Kernel& kk) {
    recv = kk.create_task(
        "recv",
        [&] {
          for (int r = 0; r < 3; ++r) {
            T[r] = kk.tick_time(0, uint64_t(5 + 2 * r)) + sc_time(4, SC_MS);
            settle_before(kk, T[r] - sc_time(20, SC_US));
            kk.local_irq_disable({"recv", "lock"});
            wait_until(T[r] + D[r]);
            E[r] = sc_core::sc_time_stamp();
            kk.local_irq_enable({"recv", "unlock"});
            kk.exec(2000);  // the IPI is taken here, at once
          }
          for (;;) kk.exec(1000000);
        },
        kernel::Policy::Fifo, 90, 1, 1u << 1);
    kk.create_task(
        "send",
        [&] {
          for (int r = 0; r < 3; ++r) {
            settle_before(kk, kk.tick_time(0, uint64_t(5 + 2 * r)) + sc_time(4, SC_MS));
            kk.flush_tlb_others(1u << 1, recv->mm, "test");
            W[r] = kk.tlb_stats().last_wait;
            ipis_after[r] = kk.tlb_stats().ipis;
          }
          for (;;) kk.exec(1000000);
        },
        kernel::Policy::Fifo, 90, 0, 1u << 0);
  };
  k.add_workload(std::move(probe));
  k.boot();
  sc_core::sc_start(sc_time(200, SC_MS));

  for (int r = 0; r < 3; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(ipis_after[r], uint64_t(r + 1));
    // The sender sent within 2 us of T_r (its own code, a few cold lines in round 0; no
    // tick pending: settle_before) and was held until the receiver's E_r and its handler.
    EXPECT_GT(W[r], E[r] - T[r] - sc_time(2, SC_US));
    EXPECT_LT(W[r], E[r] - T[r] + sc_time(10, SC_US));
  }
  // Same code, same caches: 250 us more with interrupts off is 250 us more waiting.
  EXPECT_EQ(W[2] - W[1], D[2] - D[1]);
  EXPECT_EQ(k.tlb_stats().flushes, 3u);
  EXPECT_EQ(k.tlb_stats().wait_max, W[2]);
}

}  // namespace
}  // namespace latsim::platform
