// The VP latency tracer (kernel_sim/trace/latency_tracer.*), driven directly with
// explicit times: section bookkeeping, the kernel log messages and the v1.0.5
// /proc/latency_trace layout (checked byte-for-byte against a hand-written golden).
#include "kernel_sim/trace/latency_tracer.h"
#include <gtest/gtest.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace latsim::kernel {
namespace {

using sc_core::SC_US;

sc_time us(double v) { return sc_time(v, SC_US); }

TaskInfo task(const std::string& comm, int pid, int nice = 0) {
  TaskInfo t;
  t.comm = comm;
  t.pid = pid;
  t.nice = nice;
  return t;
}

LatencyTracerParams params(uint64_t threshold_us, size_t max_traces = 50,
                           size_t max_entries = 4000) {
  LatencyTracerParams p;
  p.kernel_version = "2.6.9-rc1-VP-R1";  // the seed's kernel, as in the golden trace
  p.threshold_us = threshold_us;
  p.max_traces = max_traces;
  p.max_entries = max_entries;
  return p;
}

const CodeSite kLock{"schedule", "lock"};
const CodeSite kUnlock{"schedule", "unlock"};

// One section on `cpu` from t0 to t1 (us), with a single mcount entry in between.
void section(LatencyTracer& tr, double t0, double t1, const TaskInfo& t = task("cat", 42),
             int cpu = 0, const CodeSite& s = kLock, const CodeSite& e = kUnlock) {
  tr.begin(cpu, us(t0), s, "worker_thread", 1, t);
  tr.mcount(cpu, us((t0 + t1) / 2), 2, "dequeue_task", "deactivate_task");
  tr.end(cpu, us(t1), e);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot open " << path;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(LatencyTracerTest, LatencyIsFlooredToMicroseconds) {
  LatencyTracer tr(1, params(100));
  section(tr, 10.0, 10.0 + 150.999);
  EXPECT_EQ(tr.max_us(), 150u);
  ASSERT_EQ(tr.traces().size(), 1u);
  EXPECT_EQ(tr.traces()[0].latency_us, 150u);
  // 999.999 ns short of 2 us is still 1 us.
  section(tr, 1000.0, 1000.0 + 1.999999);
  EXPECT_EQ(tr.sections(), 2u);
  EXPECT_EQ(tr.max_us(), 150u);
}

TEST(LatencyTracerTest, ActiveOnlyBetweenBeginAndEnd) {
  LatencyTracer tr(2, params(0));
  EXPECT_FALSE(tr.active(0));
  tr.mcount(0, us(1), 1, "stray", "nobody");  // not in a section: dropped
  tr.begin(0, us(5), kLock, "worker_thread", 1, task("a", 1));
  EXPECT_TRUE(tr.active(0));
  EXPECT_FALSE(tr.active(1));
  tr.mcount(1, us(6), 1, "other_cpu", "nobody");  // CPU1 has no open section
  tr.end(0, us(7), kUnlock);
  EXPECT_FALSE(tr.active(0));
  tr.end(0, us(9), kUnlock);  // unbalanced end: ignored
  EXPECT_EQ(tr.sections(), 1u);
  ASSERT_EQ(tr.max_trace().entries.size(), 1u);
  EXPECT_STREQ(tr.max_trace().entries[0].fn, "schedule");
  EXPECT_EQ(tr.max_trace().latency_us, 2u);
}

TEST(LatencyTracerTest, UnderThresholdNotKeptButCountsForMax) {
  LatencyTracer tr(1, params(1000));
  section(tr, 0, 50);
  section(tr, 100, 400);  // 300 us: the longest, still under 1000
  section(tr, 500, 700);
  EXPECT_EQ(tr.sections(), 3u);
  EXPECT_EQ(tr.over_threshold(), 0u);
  EXPECT_EQ(tr.max_us(), 300u);
  EXPECT_TRUE(tr.traces().empty());
  EXPECT_TRUE(tr.messages().empty());
  // /proc/latency_trace still holds the longest section, with its entries.
  const auto& m = tr.max_trace();
  EXPECT_EQ(m.latency_us, 300u);
  EXPECT_EQ(m.t_start, us(100));
  EXPECT_EQ(m.t_end, us(400));
  ASSERT_EQ(m.entries.size(), 2u);
  EXPECT_STREQ(m.entries[0].fn, "schedule");
  EXPECT_STREQ(m.entries[0].parent, "worker_thread");
  EXPECT_EQ(m.entries[1].t, us(250));
  EXPECT_EQ(m.total_entries, 2u);
}

TEST(LatencyTracerTest, KeepsOnlyTheLongestOverThreshold) {
  LatencyTracer tr(2, params(100, /*max_traces=*/2));
  section(tr, 0, 50, task("a", 1));                 // A: under, first max
  section(tr, 100, 130, task("b", 2));              // B: under
  section(tr, 200, 350, task("c", 3));              // C: 150, new max
  section(tr, 400, 520, task("d", 4));              // D: 120
  section(tr, 600, 720, task("e", 5));              // E: 120, ties D, later: not kept
  section(tr, 800, 1000, task("f", 6), /*cpu=*/1);  // F: 200, new max, evicts D
  section(tr, 1100, 1250, task("g", 7));            // G: 150, ties C, later: not kept
  EXPECT_EQ(tr.sections(), 7u);
  EXPECT_EQ(tr.over_threshold(), 5u);
  EXPECT_EQ(tr.max_us(), 200u);
  const auto v = tr.traces();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].latency_us, 200u);
  EXPECT_EQ(v[0].task.comm, "f");
  EXPECT_EQ(v[0].cpu, 1);
  EXPECT_EQ(v[1].latency_us, 150u);
  EXPECT_EQ(v[1].task.comm, "c");
  EXPECT_EQ(v[1].entries.size(), 2u);
  EXPECT_EQ(tr.max_trace().task.comm, "f");
}

TEST(LatencyTracerTest, TiesKeepEarlierFirst) {
  LatencyTracer tr(1, params(100, 10));
  section(tr, 0, 120, task("d", 4));
  section(tr, 200, 400, task("x", 9));
  section(tr, 500, 620, task("e", 5));
  const auto v = tr.traces();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].task.comm, "x");
  EXPECT_EQ(v[1].task.comm, "d");
  EXPECT_EQ(v[2].task.comm, "e");
  // An equal-length section does not replace the max trace either.
  section(tr, 700, 900, task("y", 10));
  EXPECT_EQ(tr.max_trace().task.comm, "x");
}

TEST(LatencyTracerTest, MessagesOnlyForNewMaximaOverThreshold) {
  LatencyTracer tr(1, params(100));
  section(tr, 0, 50, task("a", 1));  // first max, under threshold: silent
  EXPECT_TRUE(tr.messages().empty());
  tr.begin(0, us(100), {"kmap_atomic", "lock"}, "file_read_actor", 1, task("X", 2382));
  tr.end(0, us(100 + 329.5), {"kunmap_atomic", "unlock"});
  section(tr, 1000, 1200, task("b", 2));  // 200: over, not a new max: silent
  section(tr, 2000, 2329, task("c", 3));  // 329: equal, not a new max: silent
  tr.begin(0, us(3000), {"do_IRQ", "irq_enter"}, "common_interrupt", 0x10000, task("swapper", 0));
  tr.end(0, us(3000 + 2888.1), {"do_IRQ", "irq_exit"});
  const std::vector<std::string> want = {
      "(X/2382): new 329 us maximum-latency critical section.",
      " => started at: <kmap_atomic+0x23/0xe0>",
      " => ended at:   <kunmap_atomic+0x7b/0xa0>",
      "(swapper/0): new 2888 us maximum-latency critical section.",
      " => started at: <do_IRQ+0x19/0x1a0>",
      " => ended at:   <do_IRQ+0x14d/0x1a0>",
  };
  EXPECT_EQ(tr.messages(), want);
}

TEST(LatencyTracerTest, EntriesCappedButCounted) {
  LatencyTracer tr(1, params(0, 50, /*max_entries=*/3));
  tr.begin(0, us(0), kLock, "worker_thread", 1, task("a", 1));
  const char* fns[] = {"sched_clock", "spin_lock_irq", "__spin_lock_irqsave", "deactivate_task",
                       "dequeue_task"};
  for (int i = 0; i < 5; ++i) tr.mcount(0, us(1 + i), 2, fns[i], "schedule");
  tr.end(0, us(10), kUnlock);
  const auto& m = tr.max_trace();
  EXPECT_EQ(m.total_entries, 6u);
  ASSERT_EQ(m.entries.size(), 3u);
  EXPECT_STREQ(m.entries[0].fn, "schedule");
  EXPECT_STREQ(m.entries[2].fn, "spin_lock_irq");
  ASSERT_EQ(tr.traces().size(), 1u);
  EXPECT_EQ(tr.traces()[0].entries.size(), 3u);
  const std::string out = tr.format(m);
  EXPECT_NE(out.find("\n latency: 10 us, entries: 3 (6)\n"), std::string::npos) << out;
  // The next section starts with an empty buffer and count.
  tr.begin(0, us(20), kLock, "worker_thread", 1, task("a", 1));
  tr.end(0, us(40), kUnlock);
  EXPECT_EQ(tr.max_trace().total_entries, 1u);
  EXPECT_EQ(tr.max_trace().entries.size(), 1u);
}

// v1.0.5: the "(+D.DDDms)" is the time to the next entry, from the raw times
// (Mark H. Johnson's exit_mmap trace: "0.001ms (+0.629ms)" then "0.631ms";
// Thomas Charbonnel's "0.003ms (+2.878ms): mark_offset_tsc" then "2.882ms").
TEST(LatencyTracerTest, DeltaIsToNextEntryFromRawTimes) {
  LatencyTracer tr(1, params(0));
  tr.begin(0, us(1000), {"cond_resched_lock", "lock"}, "unmap_vmas", 1, task("cc1", 7));
  tr.mcount(0, us(1001.9), 1, "clear_page_tables", "exit_mmap");
  tr.mcount(0, us(1631.3), 1, "flush_tlb_mm", "exit_mmap");
  tr.mcount(0, us(1633.5), 0x10001, "mark_offset_tsc", "timer_interrupt");
  tr.mcount(0, us(1633.5 + 2878.9), 0x10001, "do_timer", "timer_interrupt");
  tr.end(0, us(4513.0), {"exit_mmap", "unlock"});
  const std::string out = tr.format(tr.max_trace());
  const std::string body = out.substr(out.find("=======>\n") + 9);
  EXPECT_EQ(body,
            "00000001 0.000ms (+0.001ms): cond_resched_lock (unmap_vmas)\n"
            "00000001 0.001ms (+0.629ms): clear_page_tables (exit_mmap)\n"
            "00000001 0.631ms (+0.002ms): flush_tlb_mm (exit_mmap)\n"
            "00010001 0.633ms (+2.878ms): mark_offset_tsc (timer_interrupt)\n"
            "00010001 3.512ms (+0.000ms): do_timer (timer_interrupt)\n");
  EXPECT_NE(out.find(" latency: 3513 us, entries: 5 (5)\n"), std::string::npos) << out;
  EXPECT_NE(out.find(" => started at: cond_resched_lock+0x6b/0x110\n"
                     " => ended at:   exit_mmap+0x155/0x1f0\n"),
            std::string::npos)
      << out;
}

TEST(LatencyTracerTest, KernelVersionInHeader) {
  auto p = params(0);
  p.kernel_version = "2.6.9-rc1-VP-Q9";
  LatencyTracer tr(1, p);
  section(tr, 0, 10);
  const std::string out = tr.format(tr.max_trace());
  // As in Thomas Charbonnel's -Q9 traces (seed 000): 50 dashes under the 50-char header.
  const std::string want = "preemption latency trace v1.0.5 on 2.6.9-rc1-VP-Q9\n" +
                           std::string(50, '-') + "\n latency: 10 us, entries: 2 (2)\n";
  EXPECT_EQ(out.substr(0, want.size()), want);
}

// Golden: the first 8 entries of Mark H. Johnson's 2305 us ksoftirqd trace
// (seed 000, printed there by the v1.0.3 tracer), re-rendered in v1.0.5 layout.
TEST(LatencyTracerTest, GoldenSeed000Schedule2305us) {
  LatencyTracer tr(1, params(500));
  const TaskInfo t = task("ksoftirqd/0", 3, -10);
  tr.begin(0, us(0.0), kLock, "worker_thread", 0x00000001, t);
  tr.mcount(0, us(0.3), 0x00000001, "sched_clock", "schedule");
  tr.mcount(0, us(0.5), 0x00000001, "spin_lock_irq", "schedule");
  tr.mcount(0, us(0.7), 0x00000001, "__spin_lock_irqsave", "spin_lock_irq");
  tr.mcount(0, us(1.0), 0x00000002, "deactivate_task", "schedule");
  tr.mcount(0, us(1.2), 0x00000002, "dequeue_task", "deactivate_task");
  tr.mcount(0, us(765.9), 0x04000002, "__switch_to", "schedule");
  tr.mcount(0, us(800.1), 0x04000002, "finish_task_switch", "schedule");
  tr.end(0, us(2305.6), kUnlock);

  ASSERT_EQ(tr.traces().size(), 1u);
  EXPECT_EQ(tr.max_us(), 2305u);
  const std::string golden =
      read_file(std::string(LATSIM_SOURCE_DIR) + "/tests/kernel_sim/data/vp_trace_golden.txt");
  EXPECT_EQ(tr.format(tr.traces()[0]), golden);
  EXPECT_EQ(tr.format(tr.max_trace()), golden);
  const std::vector<std::string> log = {
      "(ksoftirqd/0/3): new 2305 us maximum-latency critical section.",
      " => started at: <schedule+0x51/0x740>",
      " => ended at:   <schedule+0x337/0x740>",
  };
  EXPECT_EQ(tr.messages(), log);
}

}  // namespace
}  // namespace latsim::kernel

namespace latsim::kernel {
namespace {

// VP's update_max_tr copies `current` in check_critical_timing, at the section's end:
// seed 000's schedule trace that worker_thread opened is headed by ksoftirqd/0/3, the
// task switched to. tracing.task_at: start names the task that opened the section.
TEST(LatencyTracerTest, HeaderNamesTheTaskCurrentAtTheEnd) {
  for (const bool at_end : {true, false}) {
    LatencyTracerParams p = params(100);
    p.task_at_end = at_end;
    LatencyTracer tr(1, p);
    tr.begin(0, us(0), kLock, "worker_thread", 1, task("kblockd/0", 8, -10));
    tr.mcount(0, us(1), 2, "dequeue_task", "deactivate_task");
    tr.end(0, us(800), kUnlock, task("ksoftirqd/0", 3, -10));
    ASSERT_EQ(tr.traces().size(), 1u);
    const std::string want = at_end ? "ksoftirqd/0" : "kblockd/0";
    EXPECT_EQ(tr.traces()[0].task.comm, want);
    EXPECT_NE(tr.format(tr.traces()[0]).find("| task: " + want + "/"), std::string::npos);
    ASSERT_FALSE(tr.messages().empty());
    EXPECT_EQ(tr.messages()[0].rfind("(" + want + "/", 0), 0u) << tr.messages()[0];
  }
}

}  // namespace
}  // namespace latsim::kernel
