// SpanProbe (kernel_sim/trace/span_probe.*), driven through the latency tracer with
// explicit times: "A-B" spans from the first A to the next B, "A" is A's step.
#include "kernel_sim/trace/span_probe.h"
#include <gtest/gtest.h>
#include <stdexcept>
#include "kernel_sim/trace/latency_tracer.h"

namespace latsim::kernel {
namespace {

sc_core::sc_time us(double v) { return sc_core::sc_time(v, sc_core::SC_US); }

LatencyTracer tracer(const std::string& spans) {
  LatencyTracerParams p;
  p.spans = spans;
  return LatencyTracer(2, p);
}

// One timer interrupt: entry at t, three mark_offset_tsc entries, do_timer at t + d.
void tick(LatencyTracer& tr, int cpu, double t, double d) {
  tr.begin(cpu, us(t), {"do_IRQ", "lock"}, "cpu_idle", 0x10001, TaskInfo{});
  tr.mcount(cpu, us(t + 1), 0x10001, "timer_interrupt", "generic_handle_IRQ_event");
  for (int i = 0; i < 3; ++i)
    tr.mcount(cpu, us(t + 2 + i * (d - 2) / 3), 0x10001, "mark_offset_tsc", "timer_interrupt");
  tr.mcount(cpu, us(t + 2 + d), 0x10001, "do_timer", "timer_interrupt");
  tr.end(cpu, us(t + 3 + d), {"do_IRQ", "unlock"});
}

TEST(SpanProbe, FromFirstAToNextBOverAllSections) {
  LatencyTracer tr = tracer("mark_offset_tsc-do_timer");
  tick(tr, 0, 0, 14);
  tick(tr, 1, 5, 60);  // the other CPU's ticks interleave; spans are per CPU
  tick(tr, 0, 1000, 131);
  const auto st = tr.spans().stats();
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].name, "mark_offset_tsc-do_timer");
  EXPECT_EQ(st[0].count, 3u);
  // From the first mark_offset_tsc (t + 2) to do_timer (t + 2 + d): d exactly.
  EXPECT_DOUBLE_EQ(st[0].median_us, 60);
  EXPECT_DOUBLE_EQ(st[0].max_us, 131);
}

TEST(SpanProbe, AStepRunsToTheNextEntryOrTheSectionEnd) {
  LatencyTracer tr = tracer("do_timer, timer_interrupt");
  tick(tr, 0, 0, 14);
  const auto st = tr.spans().stats();
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].name, "do_timer");
  EXPECT_DOUBLE_EQ(st[0].max_us, 1);  // do_timer at 16, the section ends at 17
  EXPECT_EQ(st[1].count, 1u);
  EXPECT_DOUBLE_EQ(st[1].max_us, 1);  // timer_interrupt at 1, mark_offset_tsc at 2
}

TEST(SpanProbe, BMissingInTheSectionIsNoSpan) {
  LatencyTracer tr = tracer("timer_interrupt-schedule");
  tick(tr, 0, 0, 14);
  EXPECT_EQ(tr.spans().stats()[0].count, 0u);
}

TEST(SpanProbe, MalformedSpecIsRefusedWithTheSpan) {
  EXPECT_NO_THROW(check_span_spec("a-b, c"));
  try {
    check_span_spec("mark_offset_tsc-do_timer,a--b");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'a--b'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace latsim::kernel
