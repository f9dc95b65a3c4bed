// Whole runs (one per process) of the seed-000 machine: the switched-to task's lines that
// context_switch, switch_mm and switch_to touch before __switch_to (kernel.switch_*_lines)
// are FSB transactions when cold, and under bus-master IDE DMA each waits for the end
// of a scatter-gather entry (~61 us at udma4), so the dummy_switch_tasks -> __switch_to
// step grows by whole entries; without them it never waits.
#include "tests/platform/scenario_run.h"

namespace latsim::platform {
namespace {

constexpr const char* kSpan = "dummy_switch_tasks-__switch_to";

double switch_span_max_us(const std::vector<std::string>& extra, const std::string& tag) {
  std::vector<std::string> sets = {"duration=2s", std::string("tracing.spans=") + kSpan};
  sets.insert(sets.end(), extra.begin(), extra.end());
  const auto m = run_metrics("disk-dma-kernel-build.yaml", sets, tag);
  return m["latency_tracer"]["spans"][kSpan]["max_us"].get<double>();
}

TEST(ContextSwitchLinesRun, ColdLinesWaitAnEntryEach) {
  // next->mm, thread.esp/eip, the pushed stack line, switch_mm's three mm lines: a cold
  // switch under DMA waits several entries (3 in these 2 s).
  EXPECT_GT(switch_span_max_us({}, "switch-on"), 3 * 55.0);
}

TEST(ContextSwitchLinesRun, WithoutTheLinesTheStepNeverWaits) {
  // The two lines of next's a waker on the other CPU wrote are the step's only other FSB
  // traffic, and an NMI the only thing that can break into it (interrupts are off): without
  // MESI and the watchdog either, nothing in it waits for an entry.
  const double us =
      switch_span_max_us({"kernel.switch_pick_lines=0", "kernel.switch_next_lines=0",
                          "kernel.switch_mm_lines=0", "kernel.switch_resume_lines=0",
                          "mechanisms.cache_coherence=false", "kernel.nmi_watchdog=false"},
                         "switch-off");
  EXPECT_LT(us, 55.0);
}

}  // namespace
}  // namespace latsim::platform
