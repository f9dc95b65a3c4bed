// The switched-to task's cache lines a context switch touches (2.6.9 schedule,
// context_switch, switch_mm, switch_to, __switch_to; kernel.switch_*_lines), on the
// fake-CPU harness with every line cold (FakeCosts::refill_lines): exact miss counts
// per trace step, the step being the time between two mcount entries.
#include <gtest/gtest.h>
#include <functional>
#include <string>
#include <vector>
#include "tests/kernel_sim/fake_cpu.h"

namespace latsim::kernel {
namespace {

using test::FakeMachine;
using test::flavour_params;
using test::LambdaWorkload;

// Misses CPU0 was charged since its previous mcount entry, recorded at each entry.
class StepMisses : public KernelObserver {
 public:
  explicit StepMisses(test::FakeCpu& c) : cpu_(c) {}
  // The last step that ends at `fn` and starts at `from`.
  uint64_t last(const std::string& from, const std::string& fn) const {
    for (size_t i = steps_.size(); i-- > 1;)
      if (steps_[i].fn == fn && steps_[i - 1].fn == from) return steps_[i].misses;
    ADD_FAILURE() << "no step " << from << " -> " << fn;
    return 0;
  }
  // All steps that end at `fn` and start at `from`.
  uint64_t total(const std::string& from, const std::string& fn) const {
    uint64_t n = 0;
    for (size_t i = 1; i < steps_.size(); ++i)
      if (steps_[i].fn == fn && steps_[i - 1].fn == from) n += steps_[i].misses;
    return n;
  }
  void function_entry(int cpu, sc_time, const char* fn, const char*) override {
    if (cpu != 0) return;
    steps_.push_back({fn, cpu_.misses - seen_});
    seen_ = cpu_.misses;
  }
  void sched_switch(int, sc_time, const Task&, const Task&) override {}
  void sched_wakeup(int, sc_time, const Task&, int) override {}
  void irq_entry(int, sc_time, unsigned, bool) override {}
  void irq_exit(int, sc_time) override {}
  void softirq_entry(int, sc_time) override {}
  void softirq_exit(int, sc_time) override {}
  void critical_edge(int, sc_time, bool, const CodeSite&) override {}

 private:
  struct Step {
    std::string fn;
    uint64_t misses;
  };
  test::FakeCpu& cpu_;
  std::vector<Step> steps_;
  uint64_t seen_ = 0;
};

struct Steps {
  uint64_t pick, to_switch, after_switch;  // ... -> dummy_switch_tasks -> __switch_to -> finish
};

// A task body that wakes *other and goes to sleep, forever.
std::function<void()> wake_then_sleep(Kernel& k, Task** other) {
  return [&k, other] {
    for (;;) {
      k.try_to_wake_up(*other, "test");
      k.set_current_state(TASK_INTERRUPTIBLE);
      k.schedule("test");
    }
  };
}

// Two tasks on one CPU wake each other and sleep, so every switch is between them.
// `same_mm`: B is a thread of A's process; `kthread`: B is a kernel thread (mm 0).
Steps ping_pong(KernelParams p, bool same_mm = false, bool kthread = false) {
  test::FakeCosts c;
  c.refill_lines = 1000;  // every line of every key is cold
  FakeMachine m(1, p, c);
  m.cpus[0]->timer_enabled = false;
  StepMisses obs(*m.cpus[0]);
  m.k->set_observer(&obs);
  Task *a = nullptr, *b = nullptr;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    auto body = [&k](Task** other) { return wake_then_sleep(k, other); };
    a = k.create_task("a", body(&b), Policy::Normal, 0);
    b = k.create_task("b", body(&a), Policy::Normal, 0);
    if (same_mm) b->mm = a->mm;
    if (kthread) b->mm = 0;
  }));
  m.k->boot();
  sc_core::sc_start(sc_time(2, sc_core::SC_MS));
  return {obs.last("dequeue_task", "dummy_switch_tasks"),
          obs.last("dummy_switch_tasks", "__switch_to"),
          obs.last("__switch_to", "finish_task_switch")};
}

KernelParams off() {
  KernelParams p = flavour_params("2.6.9-vp");
  p.switch_pick_lines = p.switch_next_lines = p.switch_mm_lines = p.switch_resume_lines = 0;
  return p;
}

TEST(ContextSwitchLines, ColdSwitchBetweenTwoProcesses) {
  const Steps s = ping_pong(flavour_params("2.6.9-vp"));
  // next->mm, thread.esp/eip, the stack line switch_to pushes (3); switch_mm: next mm's
  // pgd and cpu_vm_mask lines, prev mm's cpu_vm_mask line (3).
  EXPECT_EQ(s.to_switch, 6u);
  // __switch_to's own 6 lines (code, TSS, GDT), then next's thread tls/esp0, debugreg,
  // io_bitmap_ptr lines, schedule()'s frame and thread_info (5).
  EXPECT_EQ(s.after_switch, 11u);
}

TEST(ContextSwitchLines, OffLeavesOnlySwitchTosOwnLines) {
  const Steps s = ping_pong(off());
  EXPECT_EQ(s.to_switch, 0u);
  EXPECT_EQ(s.after_switch, 6u);
}

TEST(ContextSwitchLines, PickingNextReadsItsThreeSchedulingLines) {
  // dequeue_task's own line, then list_entry/rt_task/activated/timestamp on next:
  // prio, run_list/timestamp and activated lines (3).
  EXPECT_EQ(ping_pong(flavour_params("2.6.9-vp")).pick, 1u + 3u);
}

TEST(ContextSwitchLines, PickLinesOff) {
  KernelParams p = flavour_params("2.6.9-vp");
  p.switch_pick_lines = 0;
  EXPECT_EQ(ping_pong(p).pick, 1u);
}

TEST(ContextSwitchLines, ScheduleOwnCodeLinesAreOffByDefault) {
  EXPECT_EQ(flavour_params("2.6.9-vp").schedule_code_lines, 0);
}

TEST(ContextSwitchLines, ScheduleOwnCodeMissesWhereItRuns) {
  // kernel.schedule_code_lines 23, the seed's span: 4 lines to sched_clock, 8 for the pick
  // (after dequeue_task), 8 from switch_tasks to __switch_to, 3 after the switch.
  // Each on top of the counts the tests above take with it off (one simulation a process).
  KernelParams p = flavour_params("2.6.9-vp");
  p.schedule_code_lines = 23;
  const Steps cold = ping_pong(p);
  EXPECT_EQ(cold.pick, 1u + 3u + 8u);
  EXPECT_EQ(cold.to_switch, 6u + 8u);
  EXPECT_EQ(cold.after_switch, 11u);  // the tail comes after finish_task_switch
}

TEST(ContextSwitchLines, SameMmSkipsTheMmLines) {
  // switch_mm with prev == next mm: only cpu_test_and_set on the (hot) mask; no CR3 load.
  EXPECT_EQ(ping_pong(flavour_params("2.6.9-vp"), true).to_switch, 3u);
}

TEST(ContextSwitchLines, KernelThreadBorrowsTheMm) {
  // enter_lazy_tlb: per-CPU state only; switching back to a, prev (b) has no mm of its own,
  // so active_mm is still a's and switch_mm touches nothing either way.
  EXPECT_EQ(ping_pong(flavour_params("2.6.9-vp"), false, true).to_switch, 3u);
}

// A (CPU1) and B (CPU0) are threads of one process; C (CPU0) is another. A runs once
// on CPU1 (up at 2 ms), B and C take turns on CPU0, every line hot in L2: what CPU0 pays
// in its dummy_switch_tasks -> __switch_to steps is coherence traffic only.
uint64_t mask_traffic_on_cpu0(KernelParams p) {
  test::FakeCosts c;
  c.refill_lines = 0;
  FakeMachine m(2, p, c);
  cpu::MesiDirectory dir;
  for (auto* cpu : m.cpus) cpu->mesi = &dir;
  m.cpus[0]->timer_enabled = false;
  StepMisses obs(*m.cpus[0]);
  m.k->set_observer(&obs);
  Task *b = nullptr, *cc = nullptr;
  m.k->add_workload(std::make_unique<LambdaWorkload>([&](Kernel& k) {
    auto body = [&k](Task** other) { return wake_then_sleep(k, other); };
    Task* a = k.create_task(
        "a",
        [&k] {
          k.set_current_state(TASK_INTERRUPTIBLE);
          k.schedule("test");  // never woken again
        },
        Policy::Normal, 0, 1, 0x2);
    b = k.create_task("b", body(&cc), Policy::Normal, 0, 0, 0x1);
    cc = k.create_task("c", body(&b), Policy::Normal, 0, 0, 0x1);
    b->mm = a->mm;
  }));
  m.k->boot();
  sc_core::sc_start(sc_time(10, sc_core::SC_MS));
  return obs.total("dummy_switch_tasks", "__switch_to");
}

TEST(ContextSwitchLines, MaskWrittenOnTheOtherCpuComesOverTheFsb) {
  // A's switch_mm on CPU1 set its bit in the mm's cpu_vm_mask; B's cpu_set on CPU0 then
  // takes the line from CPU1 (or CPU1 took it from CPU0 and B takes it back): once.
  EXPECT_EQ(mask_traffic_on_cpu0(flavour_params("2.6.9-vp")), 1u);
}

TEST(ContextSwitchLines, NoMmLinesNoMaskTraffic) {
  KernelParams p = flavour_params("2.6.9-vp");
  p.switch_mm_lines = 0;
  EXPECT_EQ(mask_traffic_on_cpu0(p), 0u);
}

}  // namespace
}  // namespace latsim::kernel
