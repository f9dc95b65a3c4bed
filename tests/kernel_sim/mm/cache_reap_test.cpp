// kernel_sim/mm/slab.cpp: 2.6.9 mm/slab.c cache_reap as events/N's delayed work
// (start_cpu_timer: HZ + 3 * cpu ticks, then every REAPTIMEOUT_CPUC + cpu = 2 * HZ + cpu),
// walking kernel.slab_caches caches under their spinlocks; its line fills displace a
// sleeping task's lines from the L2, so that task's next switch-in misses more.
#include <gtest/gtest.h>
#include <cmath>
#include <string>
#include <vector>
#include "kernel_sim/mm/slab.h"
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

// Function entries with their CPU, time and the misses CPU0 was charged since its last one.
class Entries : public KernelObserver {
 public:
  explicit Entries(test::FakeCpu& c0) : cpu0_(c0) {}
  struct E {
    int cpu;
    double t;
    std::string fn, parent;
    uint64_t misses;  // CPU0 only
  };
  std::vector<E> e;
  void function_entry(int cpu, sc_time t, const char* fn, const char* parent) override {
    uint64_t n = 0;
    if (cpu == 0) n = cpu0_.misses - seen_, seen_ = cpu0_.misses;
    e.push_back({cpu, t.to_seconds(), fn, parent ? parent : "", n});
  }
  void sched_switch(int, sc_time, const Task&, const Task&) override {}
  void sched_wakeup(int, sc_time, const Task&, int) override {}
  void irq_entry(int, sc_time, unsigned, bool) override {}
  void irq_exit(int, sc_time) override {}
  void softirq_entry(int, sc_time) override {}
  void softirq_exit(int, sc_time) override {}
  void critical_edge(int, sc_time, bool, const CodeSite&) override {}

 private:
  test::FakeCpu& cpu0_;
  uint64_t seen_ = 0;
};

KernelParams reaping(bool on, int caches = 100) {
  KernelParams p = flavour_params("2.6.9-vp");
  p.slab_reap = on;
  p.slab_caches = caches;
  p.slab_reap_lines = 5;
  return p;
}

TEST(CacheReap, EventsRunsItEveryTwoSecondsPlusCpuTicks) {
  FakeMachine m(2, reaping(true, 7));
  Entries obs(*m.cpus[0]);
  m.k->set_observer(&obs);
  m.k->boot();
  sc_core::sc_start(sc_time(5.5, sc_core::SC_SEC));
  std::vector<double> t[2];
  int drains = 0, locks = 0;
  for (const auto& x : obs.e) {
    if (x.fn == "cache_reap") {
      EXPECT_EQ(x.parent, "worker_thread");
      t[x.cpu].push_back(x.t);
    }
    drains += x.fn == "drain_array_locked" && x.parent == "cache_reap";
    locks += x.fn == "spin_lock_irq" && x.parent == "cache_reap";
  }
  // HZ + 3 * cpu ticks after boot, then REAPTIMEOUT_CPUC + cpu = 2000 + cpu ticks apart.
  ASSERT_EQ(t[0].size(), 3u);
  ASSERT_EQ(t[1].size(), 3u);
  EXPECT_NEAR(t[1][0] - t[0][0], 0.003, 100e-6);
  for (int c = 0; c < 2; ++c)
    for (size_t i = 1; i < 3; ++i) EXPECT_NEAR(t[c][i] - t[c][i - 1], 2.0 + 0.001 * c, 100e-6);
  EXPECT_EQ(drains, 6 * 7);  // every cache, every run
  EXPECT_EQ(locks, 6 * 7);
  EXPECT_EQ(m.k->slab()->stats().reaps, 6u);
  EXPECT_EQ(m.k->slab()->stats().caches_walked, 6u * 7u);
}

TEST(CacheReap, OffOnNoEventsThreads) {
  FakeMachine m(2, reaping(false));
  m.k->boot();
  sc_core::sc_start(sc_time(1, sc_core::SC_MS));
  EXPECT_EQ(m.k->slab(), nullptr);
  for (const auto& t : m.k->tasks()) EXPECT_EQ(t->comm.rfind("events/", 0), std::string::npos);
}

constexpr uint64_t kL2Lines = 1024;  // a small L2 so one reap displaces a visible share

// One CPU with an L2; `s` sleeps from 0.9 s to 1.1 s, across CPU0's first cache_reap
// (1 s), then runs again: the misses of that switch-in (pick, switch_to, __switch_to
// steps), and the lines the reap filled.
struct SwitchIn {
  uint64_t misses, reap_fills;
};
SwitchIn switch_in_after_reap(bool on) {
  FakeMachine m(1, reaping(on));
  cpu::L2Residency l2(kL2Lines);
  m.cpus[0]->l2 = &l2;
  Entries obs(*m.cpus[0]);
  m.k->set_observer(&obs);
  m.k->add_workload(std::make_unique<LambdaWorkload>([](Kernel& k) {
    k.create_task(
        "s",
        [&k] {
          auto sleep = [&k](uint64_t ticks) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule_timeout(ticks, "test");
          };
          sleep(900);  // wake at 0.9 s: run, touching its lines
          sleep(200);  // sleep across the reap at 1 s, wake at 1.1 s
          for (;;) sleep(100000);
        },
        Policy::Normal, 0, 0, 0x1);
  }));
  m.k->boot();
  sc_core::sc_start(sc_time(1.2, sc_core::SC_SEC));
  uint64_t n = 0;
  bool in = false;
  for (size_t i = 1; i < obs.e.size(); ++i) {
    const auto& x = obs.e[i];
    if (x.cpu != 0 || x.t < 1.05) continue;
    const std::string& from = obs.e[i - 1].fn;
    if (x.fn == "dummy_switch_tasks" && from == "dequeue_task") in = true;
    if (in &&
        (x.fn == "dummy_switch_tasks" || x.fn == "__switch_to" || x.fn == "finish_task_switch"))
      n += x.misses;
    if (in && x.fn == "finish_task_switch") break;
  }
  return {n, m.k->slab() ? m.k->slab()->stats().line_fills : 0};
}

TEST(CacheReap, ATaskThatSleptAcrossItSwitchesInColder) {
  const SwitchIn off = switch_in_after_reap(false), on = switch_in_after_reap(true);
  // 100 caches x 5 lines, cold at the first walk: all fill.
  EXPECT_EQ(on.reap_fills, 500u);
  // Random replacement: after F >= 500 fetches a line is gone with 1 - exp(-F / 1024);
  // the switch-in touches at least next's 3 pick + 3 switch_to + 5 resume lines.
  const double gone = 1.0 - std::exp(-500.0 / double(kL2Lines));
  EXPECT_GE(on.misses, off.misses + uint64_t(std::floor(11 * gone)));
}

}  // namespace
}  // namespace latsim::kernel
