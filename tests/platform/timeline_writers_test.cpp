// The timeline's file writers on their own: trace-event JSON with a window,
// VCD, ftrace text, and the window syntax.
#include <gtest/gtest.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include "platform/output_file.h"
#include "platform/timeline/bus_utilisation.h"
#include "platform/timeline/ftrace_text_writer.h"
#include "platform/timeline/time_window.h"
#include "platform/timeline/trace_event_writer.h"
#include "platform/timeline/vcd_writer.h"

namespace tl = latsim::platform::timeline;
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kUs = 1000000;  // ps

std::string tmp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("latsim-tlw-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST(TraceEventWriter, WindowCutsSlicesAtItsEdges) {
  const std::string p = tmp_path("window.json");
  tl::TraceEventWriter w(p, tl::TimeWindow{10 * kUs, 20 * kUs});
  w.thread_name(1, 0, "CPU0", 0);
  w.begin(1, 0, 5 * kUs, "task-300", "task");  // before the window: begun at 10 µs
  w.begin(1, 0, 12 * kUs, "schedule", "function");
  w.end(1, 0, 15 * kUs);
  w.complete(2, 1, 8 * kUs, 12 * kUs, "ide bursts", "pci");   // clipped to 10..12 µs
  w.complete(2, 1, 21 * kUs, 22 * kUs, "ide bursts", "pci");  // outside: dropped
  w.begin(1, 0, 18 * kUs + 1999, "do_IRQ", "function");       // ps below 1 ns are cut
  w.end(1, 0, 25 * kUs);  // past the window: everything open ends at 20 µs
  w.finish(30 * kUs);
  const auto j = nlohmann::json::parse(slurp(p));
  fs::remove(p);
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  std::vector<std::string> got;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M") continue;
    got.push_back(e["ph"].get<std::string>() + " " + e["name"].get<std::string>() + " " +
                  std::to_string(e["ts"].get<double>()) +
                  (e.contains("dur") ? " dur " + std::to_string(e["dur"].get<double>()) : ""));
  }
  const std::vector<std::string> want = {
      "B task-300 10.000000", "B schedule 12.000000",
      "E schedule 15.000000", "X ide bursts 10.000000 dur 2.000000",
      "B do_IRQ 18.001000",   "E do_IRQ 20.000000",
      "E task-300 20.000000"};
  EXPECT_EQ(got, want);
}

TEST(TraceEventWriter, UnfinishedFileIsRemoved) {
  const std::string p = tmp_path("abandoned.json");
  {
    tl::TraceEventWriter w(p, {});
    w.begin(1, 0, kUs, "x", "task");
  }  // destroyed without finish(): an exception unwound the run
  EXPECT_FALSE(fs::exists(p));
}

// A full disk while streaming: the run goes on (the recorder writes from inside the
// simulation), failed() says so, finish() throws the error, and no partial file stays.
TEST(TraceEventWriter, AFailedWriteIsThrownByFinishAndLeavesNoFile) {
  const std::string p = tmp_path("full.json");
  tl::TraceEventWriter w(p, {});
  w.begin(1, 0, kUs, "x", "task");
  ::setenv("LATSIM_DEBUG_WRITE_BUDGET", "0", 1);
  EXPECT_FALSE(w.failed());
  EXPECT_THROW(w.finish(2 * kUs), latsim::platform::OutputError);
  ::unsetenv("LATSIM_DEBUG_WRITE_BUDGET");
  EXPECT_FALSE(fs::exists(p));
}

TEST(VcdWriter, AFailedWriteIsThrownByFinishAndLeavesNoFile) {
  const std::string p = tmp_path("full.vcd");
  tl::VcdWriter v(p, {});
  v.add("irq", "ide_intrq", 1, 0);
  v.change(0, kUs, 1);
  ::setenv("LATSIM_DEBUG_WRITE_BUDGET", "0", 1);
  EXPECT_THROW(v.finish(2 * kUs), latsim::platform::OutputError);
  ::unsetenv("LATSIM_DEBUG_WRITE_BUDGET");
  EXPECT_FALSE(fs::exists(p));
}

TEST(VcdWriter, DumpsValuesAtWindowStartThenChanges) {
  const std::string p = tmp_path("w.vcd");
  tl::VcdWriter v(p, tl::TimeWindow{1000 * 1000, 5000 * 1000});  // 1 µs .. 5 µs
  const int irq = v.add("irq", "ide_intrq", 1, 0);
  const int owner = v.add("pci", "bus_owner", 4, tl::kVcdZ);
  v.change(irq, 500 * 1000, 1);  // before the window: only the current value
  v.change(owner, 2000 * 1000, 1);
  v.change(irq, 2500 * 1000, 0);
  v.change(owner, 3000 * 1000, tl::kVcdZ);
  v.change(irq, 6000 * 1000, 1);  // after: dropped
  v.finish(9000 * 1000);
  EXPECT_EQ(slurp(p),
            "$version latsim $end\n$timescale 1ns $end\n$scope module latsim $end\n"
            "$scope module irq $end\n$var wire 1 ! ide_intrq $end\n$upscope $end\n"
            "$scope module pci $end\n$var reg 4 \" bus_owner $end\n$upscope $end\n"
            "$upscope $end\n$enddefinitions $end\n"
            "#1000\n$dumpvars\n1!\nbz \"\n$end\n#2000\nb1 \"\n#2500\n0!\n#3000\nbz \"\n#5000\n");
  fs::remove(p);
}

TEST(FtraceTextWriter, SchedSwitchLineAsPerfettoReadsIt) {
  const std::string p = tmp_path("sched.txt");
  tl::FtraceTextWriter f(p, {}, 2);
  f.sched_switch(1, 5075958079ull * kUs, false, {"bash", 1234, 120}, 'S', {"IRQ 14", 321, 49});
  f.sched_wakeup(0, 2 * kUs, true, {"swapper", 0, 140}, {"cyclictest", 305, 19}, 1);
  f.finish();
  const std::string s = slurp(p);
  fs::remove(p);
  EXPECT_EQ(s.rfind("# tracer: nop\n", 0), 0u);
  // The counts, written over the header's first version when the run ends.
  EXPECT_NE(s.find("\n# entries-in-buffer/entries-written: 2/2   #P:2 "), std::string::npos) << s;
  // No space in a comm: argument parsers split at spaces.
  EXPECT_NE(s.find("            bash-1234    [001] ....  5075.958079: sched_switch: prev_comm=bash "
                   "prev_pid=1234 prev_prio=120 prev_state=S ==> next_comm=irq/14 next_pid=321 "
                   "next_prio=49\n"),
            std::string::npos)
      << s;
  EXPECT_NE(
      s.find("         swapper-0       [000] d...     0.000002: sched_wakeup: comm=cyclictest "
             "pid=305 prio=19 target_cpu=001\n"),
      std::string::npos)
      << s;
}

TEST(TimeWindow, ParsesUnitsAndRejectsBadText) {
  const auto w = tl::parse_window("12.3s..12.4s");
  EXPECT_EQ(w.from_ps, 12300000000000ull);
  EXPECT_EQ(w.to_ps, 12400000000000ull);
  const auto u = tl::parse_window("250us..1ms");
  EXPECT_EQ(u.from_ps, 250 * kUs);
  EXPECT_EQ(u.to_ps, 1000 * kUs);
  EXPECT_EQ(tl::parse_window("").to_ps, UINT64_MAX);
  for (const char* bad : {"12s", "a..b", "2s..1s", "-1s..2s"}) {
    try {
      tl::parse_window(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  const auto m = tl::window_around(30 * kUs, 100 * kUs);  // clamped at 0
  EXPECT_EQ(m.from_ps, 0u);
  EXPECT_EQ(m.to_ps, 100 * kUs);
}

TEST(BusUtilisation, SpreadsTrainsExactlyOverIntervalsAndReportsChanges) {
  tl::BusUtilisation u(1000);  // 1 ns intervals
  // Bursts of 300 ps every 600 ps from 0 to 2000: 0-300, 600-900, 1200-1500, 1800-2000.
  u.add_train(0, 2000, 600, 300);
  u.add_busy(2500, 2600);
  std::vector<std::pair<uint64_t, uint64_t>> got;
  auto emit = [&](uint64_t at, uint64_t permille) { got.emplace_back(at, permille); };
  u.flush(1999, emit);  // only the first interval is over
  EXPECT_EQ(got, (std::vector<std::pair<uint64_t, uint64_t>>{{0, 600}}));
  u.flush(5000, emit);  // the last idle interval repeats 0: not reported again
  EXPECT_EQ(got, (std::vector<std::pair<uint64_t, uint64_t>>{
                     {0, 600}, {1000, 500}, {2000, 100}, {3000, 0}}));
}
