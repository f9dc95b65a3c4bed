// The 2001 preempt-stats table (kernel_sim/trace/preempt_stats): sections from a
// preempt count leaving 0 to its return, the 20 worst kept one per path as
// MontaVista's latency.c keeps them, and /proc/latencytimes' exact layout.
#include "kernel_sim/trace/preempt_stats.h"
#include <gtest/gtest.h>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace latsim::kernel {
namespace {

using sc_core::sc_time;
using sc_core::SC_US;

sc_time us(double v) { return sc_time(v, SC_US); }

std::string names(unsigned irq) { return irq == 14 ? "ide0" : "timer"; }

std::string read_text(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// One section from `t0` lasting `len` microseconds.
void section(PreemptStats& ps, double t0, double len, const SourceLine& a, const SourceLine& b,
             int cause) {
  ps.start(0, us(t0), a, cause);
  ps.end(0, us(t0 + len), b);
}

const SourceLine kSched1376{"sched.c", 1376, 0xc0114db3}, kSched697{"sched.c", 697, 0xc0113219};
const SourceLine kSched1375{"sched.c", 1375, 0xc0114d94}, kSched1381{"sched.c", 1381, 0xc0114dc9};
const SourceLine kInode30{"inode.c", 30, 0xc016cdf1}, kInode52{"inode.c", 52, 0xc016ce8a};
const SourceLine kIrq585{"irq.c", 585, 0xc01084ef}, kIrq647{"irq.c", 647, 0xc01085e2};

// Seed 001's dbench 48 rows and docs/MODEL.md's preempt-stats ide0 row, fed as sections: the file
// must print them byte for byte as the patch did, worst first. The read loop clears
// only latency and end address of a printed entry and, once all are 0, picks entry 0
// again: the remaining rows repeat the first logged path with 0 usec, as latency.c's do.
TEST(PreemptStats, PrintsTheSeedRowsExactly) {
  PreemptStats ps(1);
  section(ps, 100, 10869, kSched1375, kSched1381, CAUSE_REACQ_BKL);
  section(ps, 20000, 6097, kIrq585, kIrq647, irq_cause(14));
  ps.start(0, us(30000), kInode30, CAUSE_BKL);
  ps.cause(0, -100, 1);  // the timer broke in
  ps.end(0, us(30000 + 12831.9), kInode52);
  const std::string golden =
      std::string(LATSIM_SOURCE_DIR) + "/tests/kernel_sim/data/preempt_stats_golden.txt";
  if (std::getenv("LATSIM_UPDATE_GOLDEN")) std::ofstream(golden) << ps.format(names);
  EXPECT_EQ(ps.format(names), read_text(golden));
  const auto w = ps.worst(0);
  EXPECT_EQ(w[0].latency_us, 12831u);  // clock_to_usecs truncates
  EXPECT_EQ(w[0].mask, 1u);
  EXPECT_EQ(ps.measured(0), 3u);
}

TEST(PreemptStats, NestedRaisesDoNotRestartAndUnmatchedEndsAreIgnored) {
  PreemptStats ps(1);
  ps.end(0, us(5), kSched697);  // no section open: SfS, nothing logged
  ps.start(0, us(10), kSched1376, CAUSE_SPIN_LOCK);
  ps.start(0, us(20), kInode30, CAUSE_BKL);  // already open: the outer one goes on
  ps.cause(0, CAUSE_SPIN_LOCK, CAUSE_REACQ_BKL);
  ps.end(0, us(110), kSched697);
  const auto w = ps.worst(0);
  EXPECT_EQ(w[0].latency_us, 100u);
  EXPECT_EQ(w[0].cause, CAUSE_REACQ_BKL);
  EXPECT_EQ(w[0].start.line, 1376u);
  EXPECT_EQ(ps.measured(0), 1u);
}

// latency_logentry: one entry per start/end address pair, holding its longest.
TEST(PreemptStats, SamePathKeepsItsLongest) {
  PreemptStats ps(1);
  section(ps, 0, 50, kSched1376, kSched697, CAUSE_SPIN_LOCK);
  section(ps, 100, 80, kSched1376, kSched697, CAUSE_SPIN_LOCK);
  section(ps, 200, 60, kSched1376, kSched697, CAUSE_SPIN_LOCK);
  const auto w = ps.worst(0);
  EXPECT_EQ(w[0].latency_us, 80u);
  EXPECT_EQ(w[1].latency_us, 0u);
  EXPECT_EQ(ps.measured(0), 3u);
}

// With 20 paths taken, a new path replaces the lowest entry, and `least` then drops
// shorter sections before they are even counted.
TEST(PreemptStats, ANewPathReplacesTheLowestAndLeastFilters) {
  PreemptStats ps(1);
  for (uint32_t i = 0; i < 20; ++i)
    section(ps, 1000.0 * i, 100 + i, {"a.c", i, 0x1000 + i}, {"b.c", i, 0x2000 + i}, 1);
  section(ps, 30000, 500, {"c.c", 1, 0x3000}, {"c.c", 2, 0x3004}, 1);  // replaces 100
  auto w = ps.worst(0);
  EXPECT_EQ(w[0].latency_us, 500u);
  EXPECT_EQ(w[19].latency_us, 101u);
  EXPECT_EQ(ps.measured(0), 21u);
  section(ps, 40000, 50, {"d.c", 1, 0x4000}, {"d.c", 2, 0x4004}, 1);  // below least (100)
  EXPECT_EQ(ps.measured(0), 21u);
}

TEST(PreemptStats, LogsOnlyAfterTheFirstRead) {
  PreemptStats ps(1, us(1000));
  section(ps, 10, 500, kSched1376, kSched697, CAUSE_SPIN_LOCK);
  EXPECT_EQ(ps.measured(0), 0u);
  section(ps, 1000, 5, kSched1376, kSched697, CAUSE_SPIN_LOCK);
  EXPECT_EQ(ps.measured(0), 1u);
}

// The SMP build prints one block per CPU with the "cpu N worst" header.
TEST(PreemptStats, SmpHeaderPerCpu) {
  PreemptStats ps(2);
  ps.start(1, us(0), kIrq585, irq_cause(0));
  ps.end(1, us(7), kIrq647);
  const std::string s = ps.format(names);
  EXPECT_EQ(s.rfind("cpu 0 worst 20 latency times of 0 measured in this period.\n", 0), 0u) << s;
  EXPECT_NE(s.find("cpu 1 worst 20 latency times of 1 measured in this period.\n"
                   "  usec      cause     mask   start line/file      address   end line/file\n"
                   "     7      timer        0   585/irq.c           c01084ef   647/irq.c\n"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace latsim::kernel
