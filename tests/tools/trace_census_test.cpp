// `latsim traces`: the census of a run's latency traces (tools/check/trace_census).
#include "tools/check/trace_census.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace latsim::check;

const std::string kSource = LATSIM_SOURCE_DIR;

// A v1.0.5 trace of `latency` us from `started` to `ended` whose entries are (function,
// parent, step in us) in order; timestamps add up, the last step runs to the end.
VpTrace trace(const std::string& file, int latency, const std::string& started,
              const std::string& ended,
              const std::vector<std::tuple<std::string, std::string, int>>& entries) {
  std::string text = "preemption latency trace v1.0.5 on 2.6.9-rc1-VP-R1\n";
  text += " latency: " + std::to_string(latency) + " us, entries: 3 (3)\n";
  text += " => started at: " + started + "+0x10/0x100\n";
  text += " => ended at:   " + ended + "+0x20/0x100\n=======>\n";
  int at = 0;
  char line[160];
  for (const auto& [fn, parent, step] : entries) {
    std::snprintf(line, sizeof line, "00000001 %d.%03dms (+%d.%03dms): %s (%s)\n", at / 1000,
                  at % 1000, step / 1000, step % 1000, fn.c_str(), parent.c_str());
    text += line;
    at += step;
  }
  return parse_vp_trace(text, file);
}

std::vector<VpTrace> three_kinds() {
  return {
      // Two schedule sections slow getting to __switch_to, one slow in the tick.
      trace("trace-1000-700us.txt", 700, "schedule", "schedule",
            {{"schedule", "worker_thread", 100},
             {"dummy_switch_tasks", "schedule", 600},
             {"__switch_to", "schedule", 0}}),
      trace("trace-999-600us.txt", 600, "schedule", "schedule",
            {{"schedule", "io_schedule", 50},
             {"dummy_switch_tasks", "schedule", 550},
             {"__switch_to", "schedule", 0}}),
      trace("trace-005-900us.txt", 900, "schedule", "schedule",
            {{"schedule", "io_schedule", 100},
             {"spin_lock", "timer_interrupt", 800},
             {"do_timer", "timer_interrupt", 0}}),
      // An interrupt section whose longest step is its last.
      trace("trace-004-300us.txt", 300, "do_IRQ", "do_IRQ",
            {{"do_IRQ", "cpu_idle", 0}, {"mark_offset_tsc", "timer_interrupt", 300}}),
  };
}

TEST(TraceCensus, CountsSectionsAndLongestSteps) {
  const TraceCensus c = take_census(three_kinds());
  EXPECT_EQ(c.traces, 4u);
  EXPECT_EQ(c.shortest_us, 300);
  EXPECT_EQ(c.longest_us, 900);
  ASSERT_EQ(c.by_section.size(), 2u);
  EXPECT_EQ(c.by_section[0].key, "schedule .. schedule");
  EXPECT_EQ(c.by_section[0].traces, 3u);
  EXPECT_EQ(c.by_section[0].longest_us, 900);
  // Members in the tracer's order (by rank, not by file name: 999 before 1000).
  EXPECT_EQ(c.by_section[0].files,
            (std::vector<std::string>{"trace-005-900us.txt", "trace-999-600us.txt",
                                      "trace-1000-700us.txt"}));
  EXPECT_EQ(c.by_section[1].key, "do_IRQ .. do_IRQ");
  ASSERT_EQ(c.by_step.size(), 3u);
  EXPECT_EQ(c.by_step[0].key, "dummy_switch_tasks (schedule) -> __switch_to");
  EXPECT_EQ(c.by_step[0].traces, 2u);
  EXPECT_EQ(c.by_step[0].longest_us, 600);  // the step, not the trace
  // One trace each: the longer step first.
  EXPECT_EQ(c.by_step[1].key, "spin_lock (timer_interrupt) -> do_timer");
  EXPECT_EQ(c.by_step[2].key, "mark_offset_tsc (timer_interrupt) -> end of section");
}

TEST(TraceCensus, MinUsRaisesTheThreshold) {
  const TraceCensus c = take_census(three_kinds(), 650);
  EXPECT_EQ(c.traces, 2u);
  EXPECT_EQ(c.shortest_us, 700);
  ASSERT_EQ(c.by_step.size(), 2u);
  EXPECT_EQ(c.by_step[0].key, "spin_lock (timer_interrupt) -> do_timer");  // 800 us
}

// A run's traces/ holds max.txt, a copy of its longest trace: counted once.
TEST(TraceCensus, ReadsARunsTracesWithoutCountingMaxTwice) {
  const auto traces = read_trace_dir(kSource + "/tests/tools/data/check/traces");
  ASSERT_EQ(traces.size(), 3u);
  const TraceCensus c = take_census(traces);
  EXPECT_EQ(c.traces, 2u);
  ASSERT_EQ(c.by_section.size(), 1u);
  EXPECT_EQ(c.by_section[0].key, "do_IRQ .. do_IRQ");
  EXPECT_EQ(c.by_section[0].longest_us, 992);
  EXPECT_EQ(c.by_step[0].key, "mark_offset_tsc (timer_interrupt) -> mark_offset_tsc");
  EXPECT_EQ(c.by_step[0].traces, 2u);
  EXPECT_EQ(c.by_step[0].longest_us, 248);
}

TEST(TraceCensus, PrintsBothTablesWithTraceNumbers) {
  const std::string out = format_census(take_census(three_kinds()), "out/traces", 2, 2);
  EXPECT_NE(out.find("4 traces in out/traces (300..900 us;"), std::string::npos) << out;
  EXPECT_NE(out.find("      3   900 us  schedule .. schedule  005 999 ...\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("      2   600 us  dummy_switch_tasks (schedule) -> __switch_to  999 1000\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  (1 more rows: --top)\n"), std::string::npos) << out;
  EXPECT_EQ(format_census(take_census({}), "x"), "no latency traces in x\n");
}

TEST(TraceCensus, TraceNumbers) {
  EXPECT_EQ(trace_number("trace-3953-791us.txt"), "3953");
  EXPECT_EQ(trace_number("max.txt"), "max.txt");
  EXPECT_EQ(trace_number("trace-2305us-v1.0.3.txt"), "2305us");
}

}  // namespace
