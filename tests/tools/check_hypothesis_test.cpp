// Hypothesis files: what a valid one reads as, and the FILE:LINE:COLUMN errors of bad ones
// (every problem of a file at once, as the scenario loader does).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "tools/check/hypothesis.h"

namespace {

using namespace latsim::check;

const std::string kSource = LATSIM_SOURCE_DIR;
// A directory below the repo: `base` resolves by climbing to the repo root.
const std::string kDir = kSource + "/tests/tools/data/check";

Hypothesis load(const std::string& text, const std::vector<std::string>& extra = {}) {
  return load_hypothesis_text(text, "h.yaml", kDir, extra);
}

// The error lines of a bad file.
std::vector<std::string> errors_of(const std::string& text) {
  try {
    load(text);
  } catch (const HypothesisError& e) {
    std::vector<std::string> lines;
    for (const auto& d : e.diagnostics()) lines.push_back(d.to_string());
    return lines;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return {};
}

const std::string kHead =
    "schema_version: 1\n"
    "claim: Smaller requests shorten the worst latency.\n"
    "source: seed 000, 2004-09-03\n"
    "base: scenarios/disk-dma-kernel-build.yaml\n";

TEST(CheckHypothesis, ReadsEveryKind) {
  const Hypothesis h =
      load(kHead +
           "duration: 2s\n"
           "seeds: 3\n"
           "over_seeds: median\n"
           "cases:\n"
           "  - name: defaults\n"
           "    expect:\n"
           "      - {metric: latency_tracer.max_us, approx: 2305, tolerance: 35%}\n"
           "      - {metric: 'cpus[1].spin_us', min: 0, max: 1e6, over_seeds: each}\n"
           "      - trace: {longest_step_in: [schedule, __switch_to], min_step_us: 50}\n"
           "      - trace: {consecutive_steps_over_us: 50, count_at_least: 4,\n"
           "                steps_under_us: 100}\n"
           "      - trace: {longest_trace_has: do_IRQ}\n"
           "  - name: quiet\n"
           "    set:\n"
           "      - /sys/block/hda/queue/max_sectors_kb=32\n"
           "      - seed=7\n"
           "compare:\n"
           "  - {metric: latency_tracer.max_us, ratio: [defaults, quiet], "
           "approx: 3.73, tolerance: 0.5}\n"
           "  - {metric: latency_tracer.max_us, greater: [defaults, quiet]}\n"
           "  - metric: disk.max_request_kb\n"
           "    monotonic: decreasing\n"
           "    cases: [defaults, quiet]\n"
           "    strict: false\n");
  EXPECT_EQ(h.name, "h");
  EXPECT_EQ(h.claim, "Smaller requests shorten the worst latency.");
  EXPECT_EQ(h.base,
            std::filesystem::proximate(kSource + "/scenarios/disk-dma-kernel-build.yaml").string());
  EXPECT_EQ(h.duration, "2s");
  EXPECT_EQ(h.seeds, 3u);
  EXPECT_EQ(h.over_seeds, SeedMode::Median);
  ASSERT_EQ(h.cases.size(), 2u);
  const Case& d = h.cases[0];
  EXPECT_EQ(d.seed, 1u);  // the base scenario's
  EXPECT_EQ(h.cases[1].seed, 7u);
  EXPECT_EQ(h.cases[1].sets,
            (std::vector<std::string>{"/sys/block/hda/queue/max_sectors_kb=32", "seed=7"}));
  ASSERT_EQ(d.expect.size(), 5u);
  EXPECT_EQ(d.expect[0].location, "h.yaml:11:9");
  EXPECT_EQ(d.expect[0].metric->text, "latency_tracer.max_us");
  EXPECT_TRUE(d.expect[0].bounds.relative);
  EXPECT_EQ(d.expect[0].bounds.text(), "2305 ± 35% (1498.25..3111.75)");
  EXPECT_FALSE(d.expect[0].over_seeds);
  EXPECT_EQ(d.expect[1].bounds.text(), "0..1000000");
  EXPECT_EQ(d.expect[1].over_seeds, SeedMode::Each);
  EXPECT_EQ(d.expect[2].trace->kind, TraceSignature::Kind::LongestStepIn);
  EXPECT_EQ(d.expect[2].trace->expected(), "in schedule/__switch_to, ≥ 50 us");
  EXPECT_EQ(d.expect[3].trace->expected(), "≥ 4 steps in a row of 50..100 us");
  EXPECT_EQ(d.expect[4].trace->functions, std::vector<std::string>{"do_IRQ"});
  ASSERT_EQ(h.compare.size(), 3u);
  EXPECT_EQ(h.compare[0].op, Comparison::Op::Ratio);
  EXPECT_EQ(h.compare[0].bounds.text(), "3.73 ± 0.5 (3.23..4.23)");
  EXPECT_EQ(h.compare[1].op, Comparison::Op::Greater);
  EXPECT_EQ(h.compare[2].op, Comparison::Op::Monotonic);
  EXPECT_FALSE(h.compare[2].increasing);
  EXPECT_FALSE(h.compare[2].strict);
}

// A row's kind: inferred from its shape unless it says; a bad kind names the accepted ones.
TEST(CheckHypothesis, RowKindsAreInferredOrGiven) {
  const Hypothesis h =
      load(kHead +
           "cases:\n"
           "  - name: a\n"
           "    expect:\n"
           "      - {metric: latency_tracer.max_us, approx: 2305, tolerance: 35%}\n"
           "      - {metric: latency_tracer.max_us, min: 500}\n"
           "      - {metric: 'cpus[0].nmis', approx: 1000, tolerance: 1%, kind: "
           "by_construction}\n"
           "      - {metric: video.longest_bus_hold_us, min: 1, max: 2, kind: "
           "seed_figure}\n"
           "  - name: b\n"
           "compare:\n"
           "  - {metric: latency_tracer.max_us, greater: [a, b]}\n"
           "  - {metric: latency_tracer.max_us, ratio: [a, b], min: 2}\n"
           "  - {metric: latency_tracer.max_us, ratio: [a, b], approx: 3.73, "
           "tolerance: 35%}\n");
  const auto& e = h.cases[0].expect;
  EXPECT_EQ(e[0].kind, RowKind::SeedFigure);
  EXPECT_EQ(e[1].kind, RowKind::Bound);
  EXPECT_EQ(e[2].kind, RowKind::Construction);
  EXPECT_EQ(e[3].kind, RowKind::SeedFigure);
  EXPECT_EQ(h.compare[0].kind, RowKind::Ordering);
  EXPECT_EQ(h.compare[1].kind, RowKind::Bound);
  EXPECT_EQ(h.compare[2].kind, RowKind::SeedFigure);
  EXPECT_EQ(errors_of(kHead + "cases:\n"
                              "  - name: a\n"
                              "    expect:\n"
                              "      - {metric: latency_tracer.max_us, min: 1, kind: figure}\n"),
            std::vector<std::string>{
                "h.yaml:8:55: error: cases[0].expect[0].kind: `figure` is not an accepted value "
                "(accepted: seed_figure, ordering, bound, by_construction)"});
}

TEST(CheckHypothesis, ReportsEveryProblemWithItsPlace) {
  const auto errors = errors_of(kHead +
                                "cases:\n"
                                "  - name: defaults\n"
                                "    expect:\n"
                                "      - metric: latency_tracer.max_us\n"
                                "        aprox: 2305\n"
                                "      - metric: latency_tracer.max_us\n"
                                "        approx: 2305\n"
                                "  - name: quiet\n"
                                "compare:\n"
                                "  - metric: latency_tracer.max_us\n"
                                "    ratio: [defaults, quite]\n"
                                "    min: 2\n");
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "h.yaml:9:9: error: cases[0].expect[0].aprox: unknown key; did you mean "
                        "`approx`? (accepted: metric, min, max, approx, tolerance, trace, "
                        "over_seeds, known_miss, kind)",
                        "h.yaml:8:9: error: cases[0].expect[0]: needs `min`, `max`, or `approx` "
                        "with `tolerance`",
                        "h.yaml:11:17: error: cases[0].expect[1].approx: needs a `tolerance` "
                        "(relative as 35%, or absolute in the metric's unit)",
                        "h.yaml:15:23: error: compare[0].ratio[1]: no case named `quite`; did you "
                        "mean `quiet`? (cases: defaults, quiet)"}));
}

TEST(CheckHypothesis, SetErrorsPointAtTheCasesLine) {
  const auto errors = errors_of(kHead +
                                "duration: 2 fortnights\n"
                                "cases:\n"
                                "  - name: quiet\n"
                                "    set:\n"
                                "      - /sys/block/hda/queue/max_sectors_kb=300\n"
                                "      - platform.pci.latency_timr=32\n");
  // In the scenario loader's order: unknown keys of --set first, then values.
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "h.yaml:10:9: error: cases[0].set[1]: platform.pci.latency_timr: unknown "
                        "key; did you mean `platform.pci.latency_timer`? (accepted: mhz, "
                        "latency_timer, arbiter, width_bits)",
                        "h.yaml:5:11: error: duration: expected a duration such as `30s`, "
                        "`500ms`, `250us` or a number of seconds, got `2 fortnights` (accepted: "
                        "1ms..3600s)",
                        "h.yaml:9:9: error: cases[0].set[0]: "
                        "kernel.tunables./sys/block/hda/queue/max_sectors_kb: 300 is out of range "
                        "(accepted: 4..128)"}));
}

TEST(CheckHypothesis, LongestSectionInTakesBoundsOfItsOwn) {
  const Hypothesis h =
      load(kHead +
           "cases:\n"
           "  - name: a\n"
           "    expect:\n"
           "      - trace: {longest_section_in: rtl8139_poll, min_us: 140}\n"
           "      - trace: {longest_section_in: [a, b], min_us: 475, max_us: 986}\n");
  ASSERT_EQ(h.cases[0].expect.size(), 2u);
  const TraceSignature& s = *h.cases[0].expect[1].trace;
  EXPECT_EQ(s.kind, TraceSignature::Kind::LongestSectionIn);
  EXPECT_EQ(s.functions, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*s.min_us, 475);
  EXPECT_EQ(*s.max_us, 986);
  EXPECT_FALSE(h.cases[0].expect[0].trace->max_us);
  EXPECT_EQ(errors_of(kHead + "cases:\n"
                              "  - name: a\n"
                              "    expect:\n"
                              "      - trace: {longest_section_in: f, min_us: 900, max_us: 100}\n"
                              "      - trace: {longest_step_in: f, min_us: 100}\n"),
            (std::vector<std::string>{
                "h.yaml:8:53: error: cases[0].expect[0].trace.max_us: 100 is under min_us 900",
                "h.yaml:9:37: error: cases[0].expect[1].trace.min_us: goes with "
                "`longest_section_in`"}));
}

TEST(CheckHypothesis, TraceAndCompareShapes) {
  const auto errors = errors_of(kHead +
                                "cases:\n"
                                "  - name: a\n"
                                "    expect:\n"
                                "      - trace: {longest_step_in: schedule, count_at_least: 3}\n"
                                "      - trace: {consecutive_steps_over_us: 50}\n"
                                "      - trace: {longest_step_in: x, longest_trace_has: y}\n"
                                "      - {metric: a.b, trace: {longest_trace_has: y}}\n"
                                "      - {metric: a.b, min: 5, max: 1}\n"
                                "      - {metric: 'a..b', max: 1, over_seeds: mean}\n"
                                "      - {metric: a.b, approx: 1, tolerance: -3%}\n"
                                "  - name: a\n"
                                "  - name: b/c\n"
                                "compare:\n"
                                "  - {metric: a.b, greater: [a], min: 1}\n"
                                "  - {metric: a.b, monotonic: up, cases: [a, b]}\n"
                                "  - {metric: a.b, ratio: [a, b], greater: [a, b]}\n");
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "h.yaml:8:44: error: cases[0].expect[0].trace.count_at_least: goes with "
                        "`consecutive_steps_over_us`",
                        "h.yaml:9:16: error: cases[0].expect[1].trace.count_at_least: missing: "
                        "how many steps in a row (≥ 1)",
                        "h.yaml:10:16: error: cases[0].expect[2].trace: give exactly one of: "
                        "longest_step_in, consecutive_steps_over_us, longest_trace_has, "
                        "longest_section_in",
                        "h.yaml:11:9: error: cases[0].expect[3]: give either `metric` (with "
                        "min/max/approx) or `trace`",
                        "h.yaml:12:28: error: cases[0].expect[4].min: min 5 is above max 1",
                        "h.yaml:13:46: error: cases[0].expect[5].over_seeds: `mean` is not an "
                        "accepted value (accepted: each, median)",
                        "h.yaml:13:18: error: cases[0].expect[5].metric: `a..b`: empty key "
                        "between dots",
                        "h.yaml:14:45: error: cases[0].expect[6].tolerance: expected a relative "
                        "tolerance such as 35% or an absolute one such as 50 (in the metric's "
                        "unit, ≥ 0), got `-3%`",
                        "h.yaml:15:11: error: cases[1].name: duplicate case name `a`",
                        "h.yaml:16:11: error: cases[2].name: `b/c`: a case name is letters, "
                        "digits, _ - . + (it names a directory)",
                        "h.yaml:18:28: error: compare[0].greater: expected two case names [A, "
                        "B], got a list of 1",
                        "h.yaml:18:33: error: compare[0].min: goes with `ratio` (greater means "
                        "A's value > B's)",
                        "h.yaml:19:30: error: compare[1].monotonic: `up` is not an accepted value "
                        "(accepted: increasing, decreasing)",
                        "h.yaml:20:5: error: compare[2]: give exactly one of: ratio: [A, B], "
                        "greater: [A, B], monotonic: increasing|decreasing with cases: [A, B, "
                        "...]",
                        "h.yaml:19:45: error: compare[1].cases[1]: no case named `b`; did you "
                        "mean `a`? (cases: a, b/c)"}));
}

TEST(CheckHypothesis, TopLevelAndSyntax) {
  EXPECT_EQ(errors_of("schema_version: 2\nclaims: x\ncases: []\n"),
            (std::vector<std::string>{
                "h.yaml:2:1: error: claims: unknown key; did you mean `claim`? (accepted: "
                "schema_version, claim, source, base, duration, seeds, over_seeds, cases, "
                "compare)",
                "h.yaml:1:17: error: schema_version: `2` is not supported (accepted: 1)",
                "h.yaml:1:1: error: claim: missing: the claim in one sentence",
                "h.yaml:1:1: error: source: missing: the seed file and date, or another "
                "reference",
                "h.yaml:1:1: error: base: missing: the base scenario's path",
                "h.yaml:3:8: error: cases: expected a list of at least one case (name, set, "
                "expect), got an empty list"}));
  const auto syntax = errors_of("claim: [unclosed\n");
  ASSERT_EQ(syntax.size(), 1u);
  EXPECT_EQ(syntax[0].rfind("h.yaml:2:1: error: YAML syntax error: ", 0), 0u) << syntax[0];
  EXPECT_EQ(errors_of(""),
            (std::vector<std::string>{"h.yaml:1:1: error: a hypothesis is a mapping of keys "
                                      "(schema_version, claim, source, base, duration, seeds, "
                                      "over_seeds, cases, compare), got an empty file"}));
  const auto base =
      errors_of("schema_version: 1\nclaim: c\nsource: s\nbase: no/such.yaml\ncases: [{name: a}]\n");
  ASSERT_EQ(base.size(), 1u);
  EXPECT_EQ(base[0].rfind("h.yaml:4:7: error: base: scenario `no/such.yaml` not found (looked "
                          "in: ",
                          0),
            0u)
      << base[0];
  // A name longer than the file system takes (ENAMETOOLONG) is not found either, where
  // is_regular_file would throw (a fuzzer finding).
  const std::string long_name(300, 'x');
  const auto too_long = errors_of("schema_version: 1\nclaim: c\nsource: s\nbase: " + long_name +
                                  ".yaml\ncases: [{name: a}]\n");
  ASSERT_EQ(too_long.size(), 1u);
  EXPECT_EQ(
      too_long[0].rfind("h.yaml:4:7: error: base: scenario `" + long_name + ".yaml` not found", 0),
      0u)
      << too_long[0];
}

TEST(CheckHypothesis, ACommandLineDurationIsValidatedToo) {
  try {
    load(kHead + "cases: [{name: a}]\n", {"duration=forever"});
    FAIL() << "accepted duration=forever";
  } catch (const HypothesisError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].location, "--set duration=forever");
  }
}

TEST(CheckHypothesis, ACasesOverridesThatBreakTheBaseNameTheCase) {
  // kernel.flavour 2.6.9 has no voluntary-preempt switches, which the base sets at its
  // own lines: the error is the case's, said where the case is.
  const auto errors = errors_of(kHead +
                                "cases:\n"
                                "  - name: defaults\n"
                                "  - name: vanilla\n"
                                "    set: [kernel.flavour=2.6.9]\n");
  ASSERT_EQ(errors.size(), 3u);
  for (const auto& e : errors)
    EXPECT_EQ(e.rfind("h.yaml:7:5: error: cases[1]: case `vanilla` makes its base scenario "
                      "invalid: ",
                      0),
              0u)
        << e;
  EXPECT_NE(errors[0].find("scenarios/disk-dma-kernel-build.yaml:32:25: "
                           "kernel.voluntary_preemption: is a voluntary-preempt switch; "
                           "kernel.flavour 2.6.9 (vanilla) has none"),
            std::string::npos)
      << errors[0];
}

TEST(CheckHypothesis, InputIsBounded) {
  EXPECT_EQ(errors_of(kHead + "cases: [{name: a}]\n---\nclaim: b\n"),
            (std::vector<std::string>{"h.yaml:6:1: error: a second YAML document (after `---`); "
                                      "a file holds one document"}));
  std::string many = kHead + "cases:\n";
  for (int i = 0; i <= 1000; ++i) many += fmt::format("  - name: c{}\n", i);
  EXPECT_EQ(
      errors_of(many),
      (std::vector<std::string>{"h.yaml:1006:5: error: cases: 1001 cases; the limit is 1000"}));
  EXPECT_EQ(errors_of("schema_version: 1\nclaim: \"a\\e[2Jb\"\nsource: s\n"
                      "base: scenarios/disk-dma-kernel-build.yaml\ncases: [{name: a}]\n"),
            (std::vector<std::string>{"h.yaml:2:8: error: claim: contains the control character "
                                      "\\x1b; expected printable UTF-8 text on one line"}));
  try {
    load_hypothesis("/dev/null");
    ADD_FAILURE() << "accepted /dev/null";
  } catch (const HypothesisError& e) {
    EXPECT_STREQ(e.what(),
                 "/dev/null: error: cannot read hypothesis file: is a character device, not a "
                 "regular file");
  }
}

}  // namespace
