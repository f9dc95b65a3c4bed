// Verdicts from finished runs: each expectation and comparison judged on metrics.json and
// traces/ files written here by hand (no simulation), with one or several seeds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tools/check/evaluate.h"
#include "tools/check/report.h"

namespace {

namespace fs = std::filesystem;
using namespace latsim::check;
using nlohmann::json;

const std::string kSource = LATSIM_SOURCE_DIR;

class CheckEvaluate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("check-evaluate-{}-{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A finished run whose metrics.json holds max_us / max_request_kb, and whose traces/ is
  // a copy of `traces` (a directory), if given.
  RunOutcome run(const std::string& name, uint64_t seed, double max_us, double request_kb,
                 const std::string& traces = "") {
    RunOutcome r;
    r.seed = seed;
    r.dir = dir_ / name / std::to_string(seed);
    fs::create_directories(r.dir / "traces");
    const json m = {
        {"latency_tracer", {{"max_us", max_us}}},
        {"disk", {{"max_request_kb", request_kb}}},
        {"phases", {{"x11", {{"max_ms", max_us}}}, {"disk_rd", {{"max_ms", request_kb}}}}}};
    std::ofstream(r.dir / "metrics.json") << m.dump(2);
    if (!traces.empty())
      for (const auto& e : fs::directory_iterator(traces))
        fs::copy_file(e.path(), r.dir / "traces" / e.path().filename());
    r.ok = true;
    return r;
  }

  Hypothesis hypothesis(const std::string& body) {
    return load_hypothesis_text(
        "schema_version: 1\nclaim: c\nsource: s\nbase: scenarios/disk-dma-kernel-build.yaml\n" +
            body,
        "h.yaml", kSource + "/tests/tools/data/check");
  }

  fs::path dir_;
};

std::string summary(const Row& r) {
  return fmt::format("{} | {} | {} | {} | {}", r.case_name, r.metric, r.expected, r.measured,
                     verdict_text(r.verdict));
}

TEST_F(CheckEvaluate, MetricsAndComparisonsOneSeed) {
  const Hypothesis h = hypothesis(
      "cases:\n"
      "  - name: defaults\n"
      "    expect:\n"
      "      - {metric: latency_tracer.max_us, approx: 2305, tolerance: 35%}\n"
      "      - {metric: latency_tracer.max_us, min: 2000}\n"
      "      - {metric: disk.max_request_kb, max: 64}\n"
      "      - {metric: disk.nope, max: 64}\n"
      "  - name: quiet\n"
      "    expect:\n"
      "      - {metric: latency_tracer.max_us, approx: 618, tolerance: 35%}\n"
      "  - name: tiny\n"
      "compare:\n"
      "  - {metric: latency_tracer.max_us, ratio: [defaults, quiet], approx: 3.73,\n"
      "     tolerance: 35%}\n"
      "  - {metric: latency_tracer.max_us, greater: [quiet, defaults]}\n"
      "  - {metric: disk.max_request_kb, monotonic: decreasing, cases: [defaults, quiet, tiny]}\n"
      "  - {metric: latency_tracer.max_us, monotonic: decreasing, cases: [defaults, quiet, tiny]}\n"
      "  - {metric: latency_tracer.max_us, monotonic: decreasing, strict: false,\n"
      "     cases: [defaults, quiet, tiny]}\n"
      "  - {metric: disk.max_request_kb, ratio: [quiet, tiny], max: 1}\n");
  const std::vector<std::vector<RunOutcome>> runs{
      {run("defaults", 1, 3996, 128)}, {run("quiet", 1, 1013, 32)}, {run("tiny", 1, 1013, 0)}};
  const auto rows = evaluate(h, runs);
  std::vector<std::string> got;
  for (const auto& r : rows) got.push_back(summary(r));
  EXPECT_EQ(got,
            (std::vector<std::string>{
                "defaults | latency_tracer.max_us | 2305 ± 35% (1498.25..3111.75) | 3996 | FAIL",
                "defaults | latency_tracer.max_us | ≥ 2000 | 3996 | PASS",
                "defaults | disk.max_request_kb | ≤ 64 | 128 | FAIL",
                "defaults | disk.nope | ≤ 64 | - | ERROR",
                "quiet | latency_tracer.max_us | 618 ± 35% (401.7..834.3) | 1013 | FAIL",
                "defaults / quiet | latency_tracer.max_us | ratio 3.73 ± 35% (2.4245..5.0355) | "
                "3.94472 (3996 / 1013) | PASS",
                "quiet > defaults | latency_tracer.max_us | quiet > defaults | 1013 vs 3996 | FAIL",
                "defaults, quiet, tiny | disk.max_request_kb | decreasing | 128, 32, 0 | PASS",
                "defaults, quiet, tiny | latency_tracer.max_us | decreasing | 3996, 1013, 1013 | "
                "FAIL",
                "defaults, quiet, tiny | latency_tracer.max_us | non-increasing | 3996, 1013, 1013 "
                "| PASS",
                "quiet / tiny | disk.max_request_kb | ratio ≤ 1 | 32 / 0 | ERROR"}));
  EXPECT_EQ(rows[0].detail, "outside 2305 ± 35% (1498.25..3111.75): seed 1: 3996");
  EXPECT_EQ(rows[0].location, "h.yaml:8:9");
  EXPECT_EQ(rows[0].hypothesis, "h");
  EXPECT_EQ(rows[3].detail, "defaults (seed 1): disk has no key `nope` (has: max_request_kb)");
  EXPECT_EQ(rows[10].detail, "ratio undefined: tiny's disk.max_request_kb is 0");
  EXPECT_FALSE((HypothesisResult{&h, rows, {}}.passed()));
}

// {case:, metrics:, monotonic:}: the order of several metrics within one case's run.
TEST_F(CheckEvaluate, OrderOfSeveralMetricsOfOneCase) {
  const Hypothesis h = hypothesis(
      "cases:\n"
      "  - name: defaults\n"
      "compare:\n"
      "  - {case: defaults, monotonic: decreasing,\n"
      "     metrics: [latency_tracer.max_us, disk.max_request_kb]}\n"
      "  - {case: defaults, monotonic: increasing,\n"
      "     metrics: [latency_tracer.max_us, disk.max_request_kb]}\n"
      "  - {case: defaults, monotonic: increasing, metrics: [phases.disk_rd.max_ms,\n"
      "     phases.x11.max_ms]}\n");
  const auto rows = evaluate(h, {{run("defaults", 1, 3996, 128)}});
  std::vector<std::string> got;
  for (const auto& r : rows) got.push_back(summary(r));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "defaults | latency_tracer.max_us, disk.max_request_kb | decreasing | "
                     "3996, 128 | PASS",
                     "defaults | latency_tracer.max_us, disk.max_request_kb | increasing | "
                     "3996, 128 | FAIL",
                     "defaults | phases.{disk_rd,x11}.max_ms | increasing | 128, 3996 | PASS"}));
}

// A `metrics` order names one case, and no `metric`, `cases` or bounds.
TEST_F(CheckEvaluate, MetricsOrderErrorsNameTheKey) {
  try {
    hypothesis(
        "cases:\n"
        "  - name: defaults\n"
        "compare:\n"
        "  - {case: nope, monotonic: sideways, metrics: [latency_tracer.max_us], max: 3}\n");
    FAIL() << "no error";
  } catch (const HypothesisError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) all += d.to_string() + "\n";
    EXPECT_NE(all.find("compare[0].max: goes with `ratio`"), std::string::npos) << all;
    EXPECT_NE(all.find("compare[0].monotonic: with `metrics`"), std::string::npos) << all;
    EXPECT_NE(all.find("compare[0].metrics: expected a list of at least two"), std::string::npos)
        << all;
    EXPECT_NE(all.find("nope"), std::string::npos) << all;
  }
}

TEST_F(CheckEvaluate, SeedsEachOrMedian) {
  const std::string body =
      "seeds: 3\n"
      "cases:\n"
      "  - name: defaults\n"
      "    expect:\n"
      "      - {metric: latency_tracer.max_us, approx: 2305, tolerance: 35%, over_seeds: "
      "each}\n"
      "      - {metric: latency_tracer.max_us, approx: 2305, tolerance: 35%}\n"  // the median
      "  - name: quiet\n"
      "compare:\n"
      "  - {metric: latency_tracer.max_us, ratio: [defaults, quiet], approx: 3.73,\n"
      "     tolerance: 35%, over_seeds: each}\n"
      "  - {metric: latency_tracer.max_us, ratio: [defaults, quiet], approx: 3.73,\n"
      "     tolerance: 35%}\n";
  const Hypothesis h = hypothesis(body);
  const std::vector<std::vector<RunOutcome>> runs{
      {run("defaults", 1, 3000, 128), run("defaults", 2, 3100, 128), run("defaults", 3, 3900, 128)},
      {run("quiet", 1, 1000, 32), run("quiet", 2, 1500, 32), run("quiet", 3, 800, 32)}};
  const auto rows = evaluate(h, runs);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(summary(rows[0]),
            "defaults | latency_tracer.max_us | 2305 ± 35% (1498.25..3111.75) | 3000, 3100, 3900 "
            "| FAIL");
  EXPECT_EQ(rows[0].detail, "outside 2305 ± 35% (1498.25..3111.75): seed 3: 3900");
  EXPECT_EQ(summary(rows[1]),
            "defaults | latency_tracer.max_us | 2305 ± 35% (1498.25..3111.75) | median 3100 of "
            "3000, 3100, 3900 | PASS");
  // Each seed pairs with the same seed index of the other case: 3, 2.06667, 4.875.
  EXPECT_EQ(rows[2].verdict, Verdict::Fail);
  EXPECT_EQ(rows[2].measured, "3 (3000 / 1000); 2.06667 (3100 / 1500); 4.875 (3900 / 800)");
  EXPECT_EQ(rows[3].verdict, Verdict::Pass);
  EXPECT_EQ(rows[3].measured, "medians 3.1 (3100 / 1000)");
}

TEST_F(CheckEvaluate, AFailedRunCannotBeJudged) {
  const Hypothesis h = hypothesis(
      "cases:\n"
      "  - name: defaults\n"
      "    expect:\n"
      "      - {metric: latency_tracer.max_us, min: 1}\n"
      "      - trace: {longest_trace_has: schedule}\n"
      "  - name: quiet\n"
      "compare:\n"
      "  - {metric: latency_tracer.max_us, greater: [defaults, quiet]}\n");
  RunOutcome bad;
  bad.seed = 1;
  bad.dir = dir_ / "missing";
  bad.error = "killed by signal 6 (SIGABRT): latsim: crashing on purpose";
  const auto rows = evaluate(h, {{bad}, {run("quiet", 1, 1013, 32)}});
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.verdict, Verdict::Error) << summary(r);
    EXPECT_EQ(r.measured, "-");
  }
  EXPECT_EQ(rows[0].detail,
            "defaults: seed 1 run failed: killed by signal 6 (SIGABRT): latsim: crashing on "
            "purpose");
  EXPECT_EQ(rows[1].detail, rows[0].detail);
  EXPECT_EQ(rows[2].detail, rows[0].detail);
}

TEST_F(CheckEvaluate, TraceSignaturesOnRealTraces) {
  const std::string traces = kSource + "/tests/tools/data/check/traces";
  const Hypothesis h = hypothesis(
      "seeds: 2\n"
      "cases:\n"
      "  - name: defaults\n"
      "    expect:\n"
      "      - trace: {longest_trace_has: [do_IRQ, no_such_function]}\n"
      "      - {trace: {longest_trace_has: [no_such_function]}, over_seeds: median}\n"
      "      - trace: {consecutive_steps_over_us: 0, count_at_least: 1}\n");
  RunOutcome empty = run("defaults", 2, 1, 1);  // ran, but no trace over the threshold
  const auto rows = evaluate(h, {{run("defaults", 1, 1, 1, traces), empty}});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].verdict, Verdict::Fail);
  EXPECT_EQ(rows[0].measured.rfind("0 of 2 seeds: missing no_such_function (", 0), 0u)
      << rows[0].measured;
  EXPECT_NE(rows[0].measured.find(" / no traces"), std::string::npos) << rows[0].measured;
  EXPECT_EQ(rows[1].verdict, Verdict::Fail);
  // One seed of two is not a majority.
  EXPECT_EQ(rows[2].verdict, Verdict::Fail);
  EXPECT_EQ(rows[2].measured.rfind("1 of 2 seeds: ", 0), 0u) << rows[2].measured;
}

}  // namespace
