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
  Entries(test::FakeCpu& c0, Kernel& k) : cpu0_(c0), k_(k) {}
  struct E {
    int cpu;
    double t;
    uint64_t tick;  // the CPU's local timer-base jiffies
    std::string fn, parent;
    uint64_t misses;  // CPU0 only
  };
  std::vector<E> e;
  void function_entry(int cpu, sc_time t, const char* fn, const char* parent) override {
    uint64_t n = 0;
    if (cpu == 0) n = cpu0_.misses - seen_, seen_ = cpu0_.misses;
    e.push_back({cpu, t.to_seconds(), k_.local_ticks(cpu), fn, parent ? parent : "", n});
  }
  void sched_switch(int cpu, sc_time, const Task&, const Task& next) override {
    if (cpu == 0 && next.comm == "s") e.push_back({0, -1, 0, "->s", "", 0});
  }
  void sched_wakeup(int, sc_time, const Task&, int) override {}
  void irq_entry(int, sc_time, unsigned, bool) override {}
  void irq_exit(int, sc_time) override {}
  void softirq_entry(int, sc_time) override {}
  void softirq_exit(int, sc_time) override {}
  void critical_edge(int, sc_time, bool, const CodeSite&) override {}

 private:
  test::FakeCpu& cpu0_;
  Kernel& k_;
  uint64_t seen_ = 0;
};

KernelParams reaping(bool on, int caches = 100) {
  KernelParams p = flavour_params("2.6.9-vp");
  p.slab_reap = on;
  p.slab_caches = caches;
  p.slab_reap_lines = 4;
  return p;
}

TEST(CacheReap, EventsRunsItEveryTwoSecondsPlusCpuTicks) {
  FakeMachine m(2, reaping(true, 7));
  Entries obs(*m.cpus[0], *m.k);
  m.k->set_observer(&obs);
  m.k->boot();
  sc_core::sc_start(sc_time(5.5, sc_core::SC_SEC));
  std::vector<uint64_t> t[2];
  int drains = 0, locks = 0;
  for (const auto& x : obs.e) {
    if (x.fn == "cache_reap") {
      EXPECT_EQ(x.parent, "worker_thread");
      t[x.cpu].push_back(x.tick);
    }
    drains += x.fn == "drain_array_locked" && x.parent == "cache_reap";
    locks += x.fn == "spin_lock_irq" && x.parent == "cache_reap";
  }
  // On each CPU's own timer base (armed at its tick 0): HZ + 3 * cpu ticks after boot,
  // then REAPTIMEOUT_CPUC + cpu = 2000 + cpu ticks apart.
  ASSERT_EQ(t[0].size(), 3u);
  ASSERT_EQ(t[1].size(), 3u);
  for (uint64_t c = 0; c < 2; ++c) {
    EXPECT_EQ(t[c][0], 1000 + 3 * c);
    for (size_t i = 1; i < 3; ++i) EXPECT_EQ(t[c][i] - t[c][i - 1], 2000 + c);
  }
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

// One CPU with an L2: `s` wakes at 0.7, 0.9 and 1.1 s (schedule_timeout(200) each time);
// CPU0's first cache_reap runs at 1 s. The misses of s's switch-ins at 0.9 s (200 ms of
// ticks since it ran) and 1.1 s (the same, plus the reap): pick, switch_to and
// __switch_to steps, from context_switch's sched_switch to finish_task_switch.
struct SwitchIns {
  uint64_t at_0_9, at_1_1, reap_fills;
};
SwitchIns switch_ins(bool on) {
  FakeMachine m(1, reaping(on));
  cpu::L2Residency l2(kL2Lines);
  m.cpus[0]->l2 = &l2;
  Entries obs(*m.cpus[0], *m.k);
  m.k->set_observer(&obs);
  m.k->add_workload(std::make_unique<LambdaWorkload>([](Kernel& k) {
    k.create_task(
        "s",
        [&k] {
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule_timeout(700, "test");
          for (;;) {
            k.set_current_state(TASK_INTERRUPTIBLE);
            k.schedule_timeout(200, "test");
          }
        },
        Policy::Normal, 0, 0, 0x1);
  }));
  m.k->boot();
  sc_core::sc_start(sc_time(1.15, sc_core::SC_SEC));
  std::vector<uint64_t> ins;  // each switch to s: misses of the steps up to finish_task_switch
  for (size_t i = 0; i < obs.e.size(); ++i) {
    if (obs.e[i].fn != "->s") continue;
    uint64_t n = 0;
    for (size_t j = i + 1; j < obs.e.size(); ++j) {
      if (obs.e[j].cpu != 0) continue;
      n += obs.e[j].misses;
      if (obs.e[j].fn == "finish_task_switch") break;
    }
    ins.push_back(n);
  }
  EXPECT_EQ(ins.size(), 4u);  // at boot, 0.7, 0.9, 1.1 s
  if (ins.size() < 4) return {0, 0, 0};
  return {ins[2], ins[3], m.k->slab() ? m.k->slab()->stats().line_fills : 0};
}

TEST(CacheReap, ATaskThatSleptAcrossItSwitchesInColder) {
  const SwitchIns s = switch_ins(true);
  // 100 caches x 4 lines, all cold at the first walk, besides each lock word's line
  // (spin_lock_irq's fill).
  EXPECT_EQ(s.reap_fills, 400u);
  // Nothing else fetches lines on this CPU (the ticks' locks are only ever taken here, so
  // they stay in its cache): at 0.9 s s switches in hot.
  EXPECT_EQ(s.at_0_9, 0u);
  // 500 fills in the window: of the >= 11 lines of s a switch-in touches, 1 - exp(-500 /
  // 1024) are gone (random replacement), 4.2; the mean model rounds each group of lines
  // (pick, next, mm, resume) down and carries the fraction, so at least 3 miss.
  const double gone = 1 - std::exp(-500.0 / double(kL2Lines));
  EXPECT_GE(s.at_1_1, 3u);
  EXPECT_LE(double(s.at_1_1), std::ceil(13 * gone));
}

TEST(CacheReap, WithoutItBothSwitchInsMissAlike) {
  const SwitchIns s = switch_ins(false);
  EXPECT_EQ(s.reap_fills, 0u);
  EXPECT_LE(s.at_1_1, s.at_0_9 + 1);  // the same 200 ms of ticks (carried fractions: +-1)
  EXPECT_GE(s.at_1_1 + 1, s.at_0_9);
}

}  // namespace
}  // namespace latsim::kernel
