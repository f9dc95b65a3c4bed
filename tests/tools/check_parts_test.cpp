// `latsim check`'s pieces, without running anything: tolerances, metric paths into
// metrics.json, the VP tracer's text as check reads it, trace signatures, JUnit XML.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "tools/check/bounds.h"
#include "tools/check/report.h"
#include "tools/check/trace_signature.h"
#include "tools/check/vp_trace.h"

namespace {

namespace fs = std::filesystem;
using namespace latsim::check;
using nlohmann::json;

const std::string kSource = LATSIM_SOURCE_DIR;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---- tolerances ----

TEST(CheckBounds, RelativeToleranceIsAPercentOfTheFigure) {
  Bounds b;
  b.approx = 2305;
  b.tolerance = 35;
  b.relative = true;
  EXPECT_DOUBLE_EQ(b.lo(), 1498.25);
  EXPECT_DOUBLE_EQ(b.hi(), 3111.75);
  EXPECT_TRUE(b.holds(1498.25));  // inclusive
  EXPECT_TRUE(b.holds(3111.75));
  EXPECT_FALSE(b.holds(3111.76));
  EXPECT_FALSE(b.holds(3996));  // the uncalibrated model's defaults figure
  EXPECT_EQ(b.text(), "2305 ± 35% (1498.25..3111.75)");
}

TEST(CheckBounds, AbsoluteToleranceAndMinMax) {
  Bounds a;
  a.approx = 70;
  a.tolerance = 5;
  EXPECT_TRUE(a.holds(65));
  EXPECT_FALSE(a.holds(64.5));
  EXPECT_EQ(a.text(), "70 ± 5 (65..75)");
  Bounds m;
  m.min = 2.5;
  EXPECT_TRUE(m.holds(1e300));
  EXPECT_FALSE(m.holds(2.4));
  EXPECT_EQ(m.text(), "≥ 2.5");
  m.max = 6;
  EXPECT_EQ(m.text(), "2.5..6");
  EXPECT_FALSE(m.holds(6.01));
  Bounds x;
  x.max = 0.5;
  EXPECT_EQ(x.text(), "≤ 0.5");
  EXPECT_TRUE(x.holds(-3));
}

TEST(CheckBounds, NumbersPrintShort) {
  EXPECT_EQ(number_text(3996), "3996");
  EXPECT_EQ(number_text(3996.0 / 1013.0), "3.94472");
  EXPECT_EQ(number_text(0.1 + 0.2), "0.3");
  EXPECT_EQ(number_text(1.0 / 0.0), "inf");
}

// ---- the VP tracer's text ----

TEST(CheckVpTrace, ReadsTheTracersOwnGoldenOutput) {
  const std::string path = kSource + "/tests/kernel_sim/data/vp_trace_golden.txt";
  const VpTrace t = parse_vp_trace(slurp(path), "vp_trace_golden.txt");
  EXPECT_EQ(t.latency_us, 2305);
  EXPECT_EQ(t.task, "ksoftirqd/0/3");
  ASSERT_EQ(t.steps.size(), 8u);
  EXPECT_EQ(t.steps[0].fn, "schedule");
  EXPECT_EQ(t.steps[0].parent, "worker_thread");
  EXPECT_EQ(t.steps[0].line, 10u);
  EXPECT_EQ(t.steps[5].fn, "dequeue_task");
  EXPECT_EQ(t.steps[5].step_us, 764);
  EXPECT_EQ(t.steps[6].preempt_count, 0x04000002u);
  EXPECT_EQ(t.steps[6].at_us, 765);
  const TraceStep* s = t.longest_step();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->fn, "finish_task_switch");
  EXPECT_EQ(s->step_us, 1505);
}

// The layouts of other tracer versions quoted in docs/MODEL.md, "The VP trace format".
TEST(CheckVpTrace, ReadsTheOlderAndNewerLayouts) {
  const VpTrace v10 = parse_vp_trace(
      "preemption latency trace v1.0\n-----------------------------\n"
      " latency: 121 us, entries: 1032 (1032)\n process: default.hotplug/1470, uid: 0\n"
      "=======>\n 0.000ms (+0.000ms): page_address (kmap_high)\n"
      " 0.050ms (+0.071ms): kunmap_high (page_address)\n",
      "v10.txt");
  EXPECT_EQ(v10.latency_us, 121);
  ASSERT_EQ(v10.steps.size(), 2u);
  EXPECT_EQ(v10.longest_step()->fn, "kunmap_high");
  EXPECT_EQ(v10.longest_step()->step_us, 71);

  const VpTrace v107 = parse_vp_trace(
      "preemption latency trace v1.0.7 on 2.6.9-rc4-mm1-RT-U3\n"
      " latency: 700 us, entries: 2 (2)   |   [VP:0 KP:1 SP:1 HP:1 #CPUS:2]\n"
      "=======>\n    4 88000001 0.000ms (+0.650ms): do_nmi (default_idle)\n"
      "    4 80010004 0.650ms (+0.050ms): nmi_watchdog_tick (do_nmi)\n",
      "v107.txt");
  ASSERT_EQ(v107.steps.size(), 2u);
  EXPECT_EQ(v107.steps[0].preempt_count, 0x88000001u);
  EXPECT_EQ(v107.longest_step()->fn, "do_nmi");
}

// Seed 000's own 2305 us trace as Mark H. Johnson mailed it (v1.0.3, which prints each
// entry's time since the previous one), cut where his mail cut it: read off its
// timestamps, its steps are the v1.0.5 re-rendering's (tests/kernel_sim/data).
TEST(CheckVpTrace, ReadsSeed000sV103TraceByItsTimestamps) {
  const auto dir = kSource + "/tests/tools/data/check/seed000";
  const VpTrace seed = read_trace_dir(dir).at(0);
  const VpTrace golden = parse_vp_trace(
      slurp(kSource + "/tests/kernel_sim/data/vp_trace_golden.txt"), "vp_trace_golden.txt");
  EXPECT_EQ(seed.latency_us, 2305);
  ASSERT_EQ(seed.steps.size(), 30u);
  for (size_t i = 0; i + 1 < golden.steps.size(); ++i) {
    EXPECT_EQ(seed.steps[i].fn, golden.steps[i].fn) << i;
    EXPECT_EQ(seed.steps[i].step_us, golden.steps[i].step_us) << i;
  }
  EXPECT_EQ(seed.steps[5].fn, "dequeue_task");
  EXPECT_EQ(seed.steps[5].next_parent, "schedule");
  EXPECT_EQ(seed.steps[12].fn, "generic_handle_IRQ_event");
  EXPECT_EQ(seed.steps[12].step_us, 468);             // timer_interrupt's +0.468 ms
  EXPECT_EQ(seed.steps.back().step_us, 2305 - 2249);  // to the section's end
  const TraceStep* s = seed.longest_step();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->fn, "dequeue_task");
  EXPECT_EQ(s->step_us, 764);
  EXPECT_TRUE(s->in("schedule"));
  EXPECT_FALSE(s->in("__switch_to"));
}

TEST(CheckVpTrace, MalformedTextSaysFileAndLine) {
  try {
    parse_vp_trace(
        "preemption latency trace v1.0.5 on x\n latency: 600 us, entries: 1 (1)\n=======>\n"
        "00000001 0.000ms (+0.600ms): schedule (worker_thread)\n"
        "00000001 0.6ms (+0.000ms): oops (schedule)\n",
        "trace-001-600us.txt");
    FAIL() << "accepted a malformed entry";
  } catch (const TraceFormatError& e) {
    EXPECT_EQ(std::string(e.what()),
              "trace-001-600us.txt:5: expected `PPPPPPPP T.TTTms (+D.DDDms): function "
              "(parent)`, got `00000001 0.6ms (+0.000ms): oops (schedule)`");
  }
  EXPECT_THROW(parse_vp_trace("cyclictest output\n", "x.txt"), TraceFormatError);
  EXPECT_THROW(parse_vp_trace("preemption latency trace v1.0.5\n latency: 5 us\n", "x.txt"),
               TraceFormatError);
}

// ---- trace signatures, on real latsim traces (tests/tools/data/check/traces) ----

std::vector<VpTrace> real_traces() {
  return read_trace_dir(kSource + "/tests/tools/data/check/traces");
}

TEST(CheckTraceSignature, ReadsARunsTraceDirectory) {
  const auto traces = real_traces();
  ASSERT_GE(traces.size(), 2u);
  for (size_t i = 1; i < traces.size(); ++i) EXPECT_LT(traces[i - 1].file, traces[i].file);
  const VpTrace* l = longest_trace(traces);
  ASSERT_NE(l, nullptr);
  for (const auto& t : traces) EXPECT_LE(t.latency_us, l->latency_us);
  EXPECT_EQ(read_trace_dir(kSource + "/no/such/dir").size(), 0u);
}

// The traces are those of a 2 s run of scenarios/disk-dma-kernel-build.yaml with
// max_sectors_kb and read_ahead_kb at 32: max.txt and trace-001-992us.txt are the same
// section (mark_offset_tsc's PIT reads stretched to 124/248 us), trace-003-868us.txt another.
TraceSignature step_in(std::vector<std::string> fns, int64_t min_us) {
  TraceSignature s;
  s.kind = TraceSignature::Kind::LongestStepIn;
  s.functions = std::move(fns);
  s.min_step_us = min_us;
  return s;
}

TraceSignature slow(int64_t over, size_t count, std::optional<int64_t> under = {}) {
  TraceSignature s;
  s.kind = TraceSignature::Kind::SlowMotion;
  s.step_over_us = over;
  s.count_at_least = count;
  s.step_under_us = under;
  return s;
}

TraceSignature has(std::vector<std::string> fns) {
  TraceSignature s;
  s.kind = TraceSignature::Kind::LongestTraceHas;
  s.functions = std::move(fns);
  return s;
}

TraceSignature section(std::vector<std::string> fns, std::optional<int64_t> min_us,
                       std::optional<int64_t> max_us = {}) {
  TraceSignature s;
  s.kind = TraceSignature::Kind::LongestSectionIn;
  s.functions = std::move(fns);
  s.min_us = min_us;
  s.max_us = max_us;
  return s;
}

// disk-dma-kernel-build's trace signatures, judged on the seed's own trace: the step
// signature holds there (764 us, schedule's), the slow-motion one is not in this trace
// (it comes from the author's other reports).
TEST(CheckTraceSignature, TheHypothesisHoldsOnTheSeedsOwnTrace) {
  const auto seed = read_trace_dir(kSource + "/tests/tools/data/check/seed000");
  auto r = evaluate(step_in({"schedule", "__switch_to", "mark_offset_tsc"}, 300), seed);
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.measured, "dequeue_task (then schedule) 764 us (trace-2305us-v1.0.3.txt, 2305 us)");
  EXPECT_FALSE(evaluate(step_in({"__switch_to", "mark_offset_tsc"}, 300), seed).holds);
  EXPECT_TRUE(evaluate(has({"schedule", "__switch_to", "do_IRQ", "mark_offset_tsc"}), seed).holds);
  EXPECT_FALSE(evaluate(slow(40, 4, 100), seed).holds);
}

TEST(CheckTraceSignature, LongestStepIn) {
  const auto traces = real_traces();
  auto r = evaluate(step_in({"mark_offset_tsc"}, 200), traces);
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.measured, "mark_offset_tsc (then timer_interrupt) 248 us (max.txt, 992 us)");
  EXPECT_EQ(r.value, 248);
  EXPECT_TRUE(evaluate(step_in({"schedule", "mark_offset_tsc"}, 0), traces).holds);
  EXPECT_FALSE(evaluate(step_in({"mark_offset_tsc"}, 300), traces).holds);  // 248 < 300
  r = evaluate(step_in({"schedule", "__switch_to"}, 50), traces);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.measured, "mark_offset_tsc (then timer_interrupt) 248 us (max.txt, 992 us)");
  // The step ends at a call timer_interrupt makes (the next PIT read's mcount): it counts.
  EXPECT_TRUE(evaluate(step_in({"timer_interrupt"}, 200), traces).holds);
  EXPECT_EQ(step_in({"schedule", "__switch_to"}, 50).expected(),
            "in schedule/__switch_to, ≥ 50 us");
}

TEST(CheckTraceSignature, SlowMotion) {
  const auto traces = real_traces();
  // Lines 22-25 of trace-003-868us.txt: spin_lock +0.123, mark_offset_tsc +0.125, +0.248,
  // +0.124 ms (max.txt has only three in a row: +0.248, +0.248, +0.124 at line 23).
  auto r = evaluate(slow(100, 4), traces);
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.measured, "4 steps (trace-003-868us.txt:22, from spin_lock)");
  EXPECT_EQ(r.value, 4);
  EXPECT_FALSE(evaluate(slow(100, 5), traces).holds);
  // Under 200 us the 248 us step breaks that run.
  r = evaluate(slow(100, 2, 200), traces);
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.measured, "2 steps (trace-003-868us.txt:22, from spin_lock)");
  // A failure shows what the traces have instead of steps under the bound.
  r = evaluate(slow(100, 3, 200), traces);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.measured,
            "2 steps (trace-003-868us.txt:22, from spin_lock); 4 in a row of 123..248 us at "
            "trace-003-868us.txt:22");
  r = evaluate(slow(200, 2), traces);
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.measured, "2 steps (max.txt:23, from mark_offset_tsc)");
  r = evaluate(slow(240, 1, 245), traces);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.measured, "0 steps; 2 in a row of 248..248 us at max.txt:23");
  r = evaluate(slow(300, 1), traces);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.measured, "0 steps");
  r = evaluate(slow(123, 1, 124), traces);  // only 123 < step < 124: none (whole us)
  EXPECT_FALSE(r.holds);
  r = evaluate(slow(122, 1, 124), traces);  // the 123 us steps, none two in a row
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.measured, "1 step (max.txt:20, from spin_lock)");
  EXPECT_EQ(slow(100, 2, 200).expected(), "≥ 2 steps in a row of 100..200 us");
  EXPECT_EQ(slow(50, 4).expected(), "≥ 4 steps in a row > 50 us");
  // Only traces the author's threshold would have kept: the 868 us one drops out at 900.
  TraceSignature kept = slow(100, 4);
  kept.in_traces_over_us = 900;
  r = evaluate(kept, traces);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.measured, "3 steps (max.txt:23, from mark_offset_tsc)");
  EXPECT_EQ(kept.expected(), "≥ 4 steps in a row > 100 us in traces ≥ 900 us");
  kept.in_traces_over_us = 868;  // at least that long: it counts
  EXPECT_TRUE(evaluate(kept, traces).holds);
  kept.in_traces_over_us = 5000;
  EXPECT_EQ(evaluate(kept, traces).measured, "no trace of 5000 us or more");
}

TEST(CheckTraceSignature, LongestTraceHas) {
  const auto traces = real_traces();
  auto r = evaluate(has({"do_IRQ", "mark_offset_tsc", "do_timer"}), traces);
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.measured, "all (max.txt, 992 us)");
  r = evaluate(has({"do_IRQ", "schedule", "__switch_to"}), traces);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.measured, "missing schedule, __switch_to (max.txt, 992 us)");
  EXPECT_EQ(r.value, 1);
}

// Seed 000's rtl8139_poll section (731 us, "started at rtl8139_poll+0x3c/0x160") is found
// by its sites among the seed's traces, not by being the longest (the 2305 us one is).
TEST(CheckTraceSignature, LongestSectionIn) {
  const auto seed = read_trace_dir(kSource + "/tests/tools/data/check/seed000");
  ASSERT_EQ(seed.size(), 2u);
  EXPECT_EQ(seed[0].started_in, "schedule");
  EXPECT_EQ(seed[0].ended_in, "schedule");
  EXPECT_EQ(seed[1].started_in, "rtl8139_poll");
  EXPECT_EQ(seed[1].ended_in, "rtl8139_poll");
  auto r = evaluate(section({"rtl8139_poll"}, 140), seed);
  EXPECT_TRUE(r.holds);
  EXPECT_EQ(r.measured,
            "731 us (trace-731us-rtl8139_poll-v1.0.3.txt, rtl8139_poll .. rtl8139_poll)");
  EXPECT_EQ(r.value, 731);
  EXPECT_TRUE(evaluate(section({"rtl8139_poll"}, 475, 986), seed).holds);
  EXPECT_FALSE(evaluate(section({"rtl8139_poll"}, 800), seed).holds);
  EXPECT_FALSE(evaluate(section({"rtl8139_poll"}, {}, 500), seed).holds);
  // Either site names the section: schedule's starts and ends there, 2305 us.
  EXPECT_EQ(evaluate(section({"net_rx_action", "schedule"}, 0), seed).value, 2305);
  r = evaluate(section({"no_such_function"}, 0), seed);
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.measured, "no trace started or ended in no_such_function (2 traces)");
  // latsim's own traces carry the sites too.
  EXPECT_EQ(evaluate(section({"do_IRQ"}, 900), real_traces()).value, 992);
  EXPECT_EQ(section({"rtl8139_poll"}, 140).expected(), "in rtl8139_poll, ≥ 140 us");
  EXPECT_EQ(section({"a", "b"}, 475, 986).expected(), "in a/b, 475..986 us");
  EXPECT_EQ(section({"a"}, {}, 500).expected(), "in a, ≤ 500 us");
  EXPECT_EQ(section({"a"}, 1).what(), "trace: longest section");
}

TEST(CheckTraceSignature, NoTracesNeverHolds) {
  TraceSignature s;
  s.kind = TraceSignature::Kind::LongestTraceHas;
  s.functions = {"schedule"};
  const auto r = evaluate(s, {});
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.measured, "no traces");
}

// ---- the verdict table and CSV ----

std::vector<Row> table_rows() {
  Row a{"h",
        "defaults",
        "latency_tracer.max_us",
        "2305 ± 35% (1498.25..3111.75)",
        "median 2252.5 of 2284, 2221",
        Verdict::Pass,
        "",
        "h.yaml:9:9"};
  a.value = 2252.5;
  latsim::check::Bounds b;
  b.approx = 2305;
  b.tolerance = 35;
  b.relative = true;
  a.band = b;
  Row t{"h",
        "quiet",
        "trace: longest step",
        "in do_IRQ/timer_interrupt/mark_offset_tsc/do_timer, ≥ 60 us",
        "x, \"y\"",
        Verdict::Fail,
        "why",
        "h.yaml:12:9"};
  return {a, t};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

size_t code_points(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

TEST(CheckTable, FitsTheWidthByWrappingCells) {
  const auto rows = table_rows();
  const std::string wide = latsim::check::fitted_table(rows, 0);
  EXPECT_EQ(lines_of(wide).size(), 4u) << wide;  // header, rule, a line per row
  for (const size_t width : {60, 80, 100}) {
    const std::string t = latsim::check::fitted_table(rows, width);
    for (const auto& l : lines_of(t)) EXPECT_LE(code_points(l), width) << width << "\n" << t;
    EXPECT_GT(lines_of(t).size(), 4u) << t;
    EXPECT_NE(t.find("PASS"), std::string::npos) << t;  // the verdict is never narrowed
  }
  // Words stay whole while they can.
  const std::string t100 = latsim::check::fitted_table(rows, 100);
  EXPECT_NE(t100.find("latency_tracer.max_us"), std::string::npos) << t100;
  EXPECT_NE(t100.find("1498.25..3111.75)"), std::string::npos) << t100;
  EXPECT_EQ(lines_of(latsim::check::fitted_table(rows, 80))[0],
            "hypothesis  case      metric           expected         measured         verdict");
}

TEST(CheckTable, CsvHasNumbersAndQuotes) {
  EXPECT_EQ(latsim::check::verdicts_csv(table_rows()),
            "hypothesis,case,metric,expected,measured,verdict,value,low,high,kind,location,detail\n"
            "h,defaults,latency_tracer.max_us,2305 ± 35% (1498.25..3111.75),\"median 2252.5 of "
            "2284, 2221\",PASS,2252.5,1498.25,3111.75,bound,h.yaml:9:9,\n"
            "h,quiet,trace: longest step,\"in do_IRQ/timer_interrupt/mark_offset_tsc/do_timer, ≥ "
            "60 us\",\"x, \"\"y\"\"\",FAIL,,,,bound,h.yaml:12:9,why\n");
}

// ---- JUnit ----

TEST(CheckJunit, EscapesWhatXmlCannotHoldAndParsesBack) {
  EXPECT_EQ(xml_text("a<b\x01\x1b\tc\n"), "a<b\tc\n");
  latsim::check::Hypothesis h;
  h.name = "odd<&>";
  h.file = "x/odd.yaml";
  h.claim = "Claims with \"quotes\" & <angles>\x02";
  h.source = "seed 000";
  Row pass{"odd<&>", "a", "m.x", "≥ 1", "2", Verdict::Pass, "", "x:1:1"};
  Row fail{"odd<&>", "b", "m.y", "≤ 1", "2 & more", Verdict::Fail, "outside ≤ 1: <2>", "x:2:3"};
  Row err{"odd<&>", "c", "m.z", "≥ 0", "-", Verdict::Error, "seed 1 run failed: exit 2", "x:3:3"};
  Row known{"odd<&>", "d", "m.w", "≤ 1", "2", Verdict::KnownMiss, "outside", "x:4:3", "why <&>"};
  const std::string xml = junit_xml({HypothesisResult{&h, {pass, fail, err, known}, {}}});
  EXPECT_NE(xml.find("<testsuites name=\"latsim check\" tests=\"4\" failures=\"1\" errors=\"1\" "
                     "skipped=\"1\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(
      xml.find("<skipped message=\"known miss: measured 2, expected ≤ 1: why &lt;&amp;>\" />"),
      std::string::npos)
      << xml;
  EXPECT_EQ(xml.find('\x02'), std::string::npos);
  const fs::path file =
      fs::temp_directory_path() / ("check-junit-" + std::to_string(::getpid()) + ".xml");
  std::ofstream(file) << xml;
  // xmllint (libxml2-utils, tools/bootstrap.sh) is the well-formedness judge.
  const int rc = std::system(("xmllint --noout " + file.string()).c_str());
  EXPECT_EQ(rc, 0) << xml;
  fs::remove(file);
}

}  // namespace
