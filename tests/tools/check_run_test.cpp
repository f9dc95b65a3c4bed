// `latsim check` end to end: the self-test hypotheses of tests/tools/data/check run for real
// (1 s simulated per case), so check's verdict logic is tested on real outputs: one file
// must pass, one must fail row by row as its comments say; bad files exit 2 with
// FILE:LINE:COLUMN; verdicts are reproducible; JUnit XML parses.
#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

const std::string kPass = kSource + "/tests/tools/data/check/self-test-pass.yaml";
const std::string kFail = kSource + "/tests/tools/data/check/self-test-fail.yaml";
const std::string kBad = kSource + "/tests/tools/data/check/bad-hypothesis.yaml";
const std::string kKnown = kSource + "/tests/tools/data/check/self-test-known.yaml";

using Check = Sweep;  // a per-test directory and the real binary

std::vector<std::string> verdicts_of(const json& v) {
  std::vector<std::string> out;
  for (const auto& r : v["rows"]) out.push_back(r["verdict"].get<std::string>());
  return out;
}

TEST_F(Check, SelfTestPassHolds) {
  const Result r = latsim({"check", kPass, "-j", "2", "--out", "o", "--junit", "o/junit.xml"});
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(r.err, "") << r;
  const auto out = lines_of(r.out);
  ASSERT_GE(out.size(), 2u);
  EXPECT_EQ(out[0].rfind("| hypothesis", 0), 0u) << r.out;
  size_t rows = 0;
  for (const auto& l : out) {
    if (l.rfind("| self-test-pass ", 0) != 0) continue;
    ++rows;
    EXPECT_NE(l.find("| PASS    |"), std::string::npos) << l;
  }
  EXPECT_EQ(rows, 9u) << r.out;
  EXPECT_TRUE(contains(r.out, "PASS self-test-pass: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "check: 2 of 2 seed figures hold within their bands")) << r.out;
  EXPECT_TRUE(contains(
      r.out, "check: 9 of 9 expectations hold, 0 known misses, 0 fail, 0 could not be judged"))
      << r.out;

  const fs::path o = dir_ / "o";
  const json v = read_json(o / "self-test-pass" / "verdicts.json");
  EXPECT_EQ(v["verdict"], "PASS");
  EXPECT_EQ(verdicts_of(v), std::vector<std::string>(9, "PASS"));
  // Each case ran as `latsim run` of the base with the file's duration and its own sets.
  for (const char* c : {"defaults", "quiet", "small"}) {
    const fs::path run = o / "self-test-pass" / c / "seed-1";
    EXPECT_TRUE(fs::is_regular_file(run / "metrics.json")) << run;
    EXPECT_EQ(read_json(run / "metrics.json")["simulated_s"], 1.0);
  }
  EXPECT_TRUE(contains(slurp(o / "self-test-pass/quiet/seed-1/scenario.resolved.yaml"),
                       kMaxSectors + ": 32"));
  EXPECT_TRUE(contains(slurp(o / "self-test-pass/small/seed-1/scenario.resolved.yaml"),
                       kMaxSectors + ": 8"));
  // The measured figures are the runs' own, as text and as numbers.
  const json max_us =
      read_json(o / "self-test-pass/defaults/seed-1/metrics.json")["latency_tracer"]["max_us"];
  EXPECT_EQ(v["rows"][0]["measured"], max_us.dump());
  EXPECT_EQ(v["rows"][0]["value"], max_us.get<double>());
  EXPECT_EQ(v["rows"][0]["per_seed"], json::array({max_us.get<double>()}));
  EXPECT_EQ(v["rows"][0]["seeds"], json::array({1}));
  EXPECT_EQ(v["rows"][0]["band"], json::parse(R"({"low": 1000.0, "high": null})"));
  // approx ± tolerance: the band's ends and how it was given.
  EXPECT_EQ(v["rows"][2]["metric"], "cpus.0.nmis");  // written cpus[0].nmis: stored canonical
  EXPECT_EQ(v["rows"][2]["band"], json::parse(R"({"low": 950.0, "high": 1050.0, "approx": 1000.0,
                                                 "tolerance": 5.0, "tolerance_unit": "%"})"));
  EXPECT_EQ(v["rows"][3]["band"]["tolerance_unit"], "metric");
  // A comparison: each side's numbers; a ratio's value is the ratio judged.
  const json& ratio = v["rows"][8];
  ASSERT_EQ(ratio["compared"].size(), 2u) << ratio;
  EXPECT_EQ(ratio["compared"][0]["name"], "defaults");
  EXPECT_DOUBLE_EQ(ratio["value"].get<double>(),
                   ratio["compared"][0]["values"][0].get<double>() /
                       ratio["compared"][1]["values"][0].get<double>());

  const std::string xml = slurp(o / "junit.xml");
  EXPECT_TRUE(contains(xml,
                       "<testsuites name=\"latsim check\" tests=\"9\" failures=\"0\" "
                       "errors=\"0\" skipped=\"0\">"))
      << xml;
  EXPECT_EQ(shell("xmllint --noout o/junit.xml").code, 0);
}

// csv and json put the verdicts alone on stdout, with their numbers; the summary goes to
// stderr. A table on request fits $COLUMNS.
TEST_F(Check, FormatsForScripts) {
  const Result j = latsim({"check", kPass, "-j", "2", "--out", "o", "--format", "json"});
  ASSERT_EQ(j.code, 0) << j;
  const json v = json::parse(j.out);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], read_json(dir_ / "o/self-test-pass/verdicts.json"));
  EXPECT_TRUE(v[0]["rows"][0]["value"].is_number()) << v[0]["rows"][0];
  EXPECT_TRUE(contains(j.err, "check: 9 of 9 expectations hold")) << j;

  const Result c = latsim({"check", kPass, "-j", "2", "--out", "o", "--format", "csv"});
  ASSERT_EQ(c.code, 0) << c;
  const auto rows = lines_of(c.out);
  ASSERT_EQ(rows.size(), 10u) << c.out;
  EXPECT_EQ(rows[0],
            "hypothesis,case,metric,expected,measured,verdict,value,low,high,kind,location,detail");
  EXPECT_EQ(rows[1].rfind("self-test-pass,defaults,latency_tracer.max_us,≥ 1000,", 0), 0u)
      << rows[1];

  const Result t =
      latsim({"check", kPass, "-j", "2", "--out", "o", "--format", "table"}, "COLUMNS=90");
  ASSERT_EQ(t.code, 0) << t;
  for (const auto& l : lines_of(t.out)) {
    if (l.rfind("PASS ", 0) == 0 || l.rfind("check: ", 0) == 0) break;  // the lines below it
    size_t width = 0;
    for (unsigned char ch : l) width += (ch & 0xC0) != 0x80;
    EXPECT_LE(width, 90u) << l;
  }
}

TEST_F(Check, SelfTestFailFailsRowByRow) {
  const Result r = latsim({"check", kFail, "-j", "2", "--out", "o", "--junit", "o/junit.xml"});
  ASSERT_EQ(r.code, 1) << r;
  const json v = read_json(dir_ / "o/self-test-fail/verdicts.json");
  EXPECT_EQ(v["verdict"], "FAIL");
  // In the file's order, as its comments say.
  EXPECT_EQ(verdicts_of(v), (std::vector<std::string>{"PASS", "FAIL", "ERROR", "FAIL", "FAIL",
                                                      "FAIL", "PASS", "FAIL", "FAIL", "FAIL"}));
  EXPECT_EQ(v["rows"][2]["detail"],
            "defaults (seed 1): latency_tracer has no key `no_such_metric` (has: "
            "blame, critical_sections, max_us, threshold_us, traces_over_threshold, "
            "traces_per_min)");
  EXPECT_EQ(v["rows"][1]["location"], kFail + ":15:9");
  EXPECT_EQ(v["rows"][4]["measured"].get<std::string>().rfind("missing rtl8139_poll (", 0), 0u)
      << v["rows"][4];
  EXPECT_TRUE(contains(r.out, kFail + ":15:9: FAIL: self-test-fail/defaults: outside ≤ 100: "
                                      "seed 1: "))
      << r.out;
  EXPECT_TRUE(contains(
      r.out, "check: 2 of 10 expectations hold, 0 known misses, 7 fail, 1 could not be judged"))
      << r.out;
  const std::string xml = slurp(dir_ / "o/junit.xml");
  EXPECT_TRUE(contains(xml, "tests=\"10\" failures=\"7\" errors=\"1\"")) << xml;
  EXPECT_EQ(shell("xmllint --noout o/junit.xml").code, 0);
}

// A row the file marks known_miss fails as KNOWN MISS and does not fail the check; one that
// holds is reported for promotion; --strict fails on the first, --exact on the second.
TEST_F(Check, KnownMissesAreReportedAndFailOnlyWhenAsked) {
  const Result r = latsim({"check", kKnown, "-j", "2", "--out", "o", "--junit", "o/junit.xml"});
  ASSERT_EQ(r.code, 0) << r;
  const json v = read_json(dir_ / "o/self-test-known/verdicts.json");
  EXPECT_EQ(v["verdict"], "PASS");
  EXPECT_EQ(verdicts_of(v), (std::vector<std::string>{"KNOWN MISS", "PASS", "PASS"}));
  EXPECT_EQ(v["rows"][0]["known_miss"], "over 1 ms: bus-master DMA holds the CPU");
  EXPECT_EQ(v["rows"][1]["promote"], true);
  EXPECT_FALSE(v["rows"][2].contains("promote"));
  EXPECT_TRUE(contains(r.out, kKnown + ":14:9: KNOWN MISS: self-test-known/defaults: outside "
                                       "≤ 100: seed 1: "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "; known miss: over 1 ms: bus-master DMA holds the CPU")) << r.out;
  EXPECT_TRUE(contains(r.out, kKnown + ":15:9: known miss now holds: self-test-known/defaults"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "check: 2 of 3 expectations hold (1 of them known misses that now "
                       "hold), 1 known miss, 0 fail, 0 could not be judged"))
      << r.out;
  const std::string xml = slurp(dir_ / "o/junit.xml");
  EXPECT_TRUE(contains(xml, "failures=\"0\" errors=\"0\" skipped=\"1\"")) << xml;
  EXPECT_EQ(shell("xmllint --noout o/junit.xml").code, 0);
  EXPECT_EQ(latsim({"check", kKnown, "-j", "2", "--out", "s", "--strict"}).code, 1);
  EXPECT_EQ(latsim({"check", kKnown, "-j", "2", "--out", "e", "--exact"}).code, 1);
}

TEST_F(Check, VerdictsAreReproducible) {
  ASSERT_EQ(latsim({"check", kFail, "-j", "2", "--out", "a", "--junit", "a.xml"}).code, 1);
  ASSERT_EQ(latsim({"check", kFail, "-j", "1", "--out", "b", "--junit", "b.xml"}).code, 1);
  EXPECT_EQ(slurp(dir_ / "a/self-test-fail/verdicts.json"),
            slurp(dir_ / "b/self-test-fail/verdicts.json"));
  EXPECT_EQ(slurp(dir_ / "a.xml"), slurp(dir_ / "b.xml"));
  // Again into the same directory: the old runs are replaced, the verdicts the same.
  ASSERT_EQ(latsim({"check", kFail, "--out", "a", "--junit", "a2.xml"}).code, 1);
  EXPECT_EQ(slurp(dir_ / "a.xml"), slurp(dir_ / "a2.xml"));
}

TEST_F(Check, SeedsRunEachCaseSeveralTimes) {
  const Result r =
      latsim({"check", kPass, "--seeds", "2", "--duration", "1s", "-j", "2", "--out", "o"});
  ASSERT_EQ(r.code, 0) << r;
  for (const char* c : {"defaults", "quiet", "small"})
    for (const char* s : {"seed-1", "seed-2"})
      EXPECT_TRUE(fs::is_regular_file(dir_ / "o/self-test-pass" / c / s / "metrics.json"))
          << c << "/" << s;
  const json v = read_json(dir_ / "o/self-test-pass/verdicts.json");
  EXPECT_EQ(v["seeds"], 2);
  // Every seed's figure is shown: "3599, 3612"; the value judged is their median.
  EXPECT_TRUE(contains(v["rows"][0]["measured"].get<std::string>(), ", ")) << v["rows"][0];
  const json& per_seed = v["rows"][0]["per_seed"];
  ASSERT_EQ(per_seed.size(), 2u) << v["rows"][0];
  EXPECT_EQ(v["rows"][0]["seeds"], json::array({1, 2}));
  EXPECT_DOUBLE_EQ(v["rows"][0]["value"].get<double>(),
                   (per_seed[0].get<double>() + per_seed[1].get<double>()) / 2);
  EXPECT_EQ(v["rows"][1]["measured"].get<std::string>().rfind("2 of 2 seeds: ", 0), 0u)
      << v["rows"][1];
}

// --set is a counterfactual of every run: without the host bridge's holdoff the pass
// file's DMA-made expectations fail, and the outputs say what was changed.
TEST_F(Check, SetOverridesEveryRunAfterItsCase) {
  const Result r = latsim({"check", kPass, "-j", "2", "--out", "o", "--junit", "o/junit.xml",
                           "--set", "mechanisms.bus_master_holdoff=false", "--set",
                           "/sys/block/hda/queue/read_ahead_kb=64"});
  ASSERT_EQ(r.code, 1) << r;
  // Two cases set read_ahead_kb themselves: the command line's wins, and says so.
  EXPECT_EQ(lines_of(r.err),
            (std::vector<std::string>{
                "latsim check: note: --set /sys/block/hda/queue/read_ahead_kb=64 replaces "
                "self-test-pass/quiet's own /sys/block/hda/queue/read_ahead_kb=32",
                "latsim check: note: --set /sys/block/hda/queue/read_ahead_kb=64 replaces "
                "self-test-pass/small's own /sys/block/hda/queue/read_ahead_kb=8"}))
      << r;
  for (const char* c : {"defaults", "quiet", "small"}) {
    const std::string y = slurp(dir_ / "o/self-test-pass" / c / "seed-1/scenario.resolved.yaml");
    EXPECT_TRUE(contains(y, "bus_master_holdoff: false")) << c;
    EXPECT_TRUE(contains(y, "read_ahead_kb: 64")) << c;
  }
  EXPECT_TRUE(contains(slurp(dir_ / "o/self-test-pass/quiet/seed-1/scenario.resolved.yaml"),
                       kMaxSectors + ": 32"));
  const json v = read_json(dir_ / "o/self-test-pass/verdicts.json");
  EXPECT_EQ(v["verdict"], "FAIL");
  EXPECT_EQ(v["set"],
            (json{"mechanisms.bus_master_holdoff=false", "/sys/block/hda/queue/read_ahead_kb=64"}));
  EXPECT_EQ(v["rows"][0]["verdict"], "FAIL") << v["rows"][0];  // no section over 1 ms
  EXPECT_TRUE(contains(r.out,
                       ", with --set mechanisms.bus_master_holdoff=false --set "
                       "/sys/block/hda/queue/read_ahead_kb=64); outputs in "))
      << r.out;
  EXPECT_TRUE(contains(slurp(dir_ / "o/junit.xml"),
                       "<property name=\"set\" value=\"mechanisms.bus_master_holdoff=false\" />"));
  // A bad value is a bad command line: exit 2, nothing run.
  const Result bad = latsim({"check", kPass, "--out", "b", "--set", "kernel.plugging=foo"});
  EXPECT_EQ(bad.code, 2) << bad;
  EXPECT_TRUE(contains(bad.err, "--set kernel.plugging=foo")) << bad;
  EXPECT_FALSE(fs::exists(dir_ / "b/self-test-pass/defaults"));
}

TEST_F(Check, BadFileExits2AndRunsNothing) {
  const Result r = latsim({"check", kPass, kBad, "--out", "o"});
  EXPECT_EQ(r.code, 2) << r;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines_of(r.err),
            (std::vector<std::string>{
                kBad + ":9:41: error: cases[0].expect[0].aprox: unknown key; did you mean "
                       "`approx`? (accepted: metric, min, max, approx, tolerance, trace, "
                       "over_seeds, known_miss, kind)",
                kBad + ":9:65: error: cases[0].expect[0].tolerance: a tolerance goes with "
                       "`approx`",
                kBad + ":9:9: error: cases[0].expect[0]: needs `min`, `max`, or `approx` with "
                       "`tolerance`"}));
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  // A case's --set is checked against the scenario schema before anything runs.
  const fs::path bad_set = dir_ / "bad-set.yaml";
  std::ofstream(bad_set) << "schema_version: 1\nclaim: c\nsource: s\n"
                            "base: "
                         << kScenario
                         << "\ncases:\n  - name: a\n    set: [/sys/block/hda/queue/"
                            "max_sectors_kb=256]\n";
  const Result s = latsim({"check", bad_set.string(), "--out", "o"});
  EXPECT_EQ(s.code, 2) << s;
  EXPECT_EQ(s.err, bad_set.string() +
                       ":7:11: error: cases[0].set[0]: "
                       "kernel.tunables./sys/block/hda/queue/max_sectors_kb: 256 is out of range "
                       "(accepted: 4..128)\n");
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  EXPECT_EQ(latsim({"check", "no-such-file.yaml"}).err,
            "no-such-file.yaml: error: cannot read hypothesis file: No such file or directory\n");
}

TEST_F(Check, ValidateRunsNothing) {
  const Result r = latsim({"check", "--validate", kPass, kFail, "--out", "o"});
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(lines_of(r.out),
            (std::vector<std::string>{
                kPass +
                    ": ok (self-test-pass: 3 case(s), 6 expectation(s), 3 comparison(s), 1 "
                    "seed(s) each; base " +
                    fs::proximate(kScenario, dir_).string() + ")",
                kFail +
                    ": ok (self-test-fail: 2 case(s), 6 expectation(s), 4 comparison(s), 1 "
                    "seed(s) each; base " +
                    fs::proximate(kScenario, dir_).string() + ")"}));
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

TEST_F(Check, AFailedRunCannotBeJudged) {
  const Result r = latsim({"check", kFail, "--out", "o"},
                          "LATSIM_DEBUG_CRASH_ON_SET=/sys/block/hda/queue/max_sectors_kb=8");
  ASSERT_EQ(r.code, 1) << r;
  EXPECT_TRUE(contains(r.err,
                       "check: self-test-fail/small seed 1 failed: killed by signal 6 "
                       "(SIGABRT): latsim: LATSIM_DEBUG_CRASH_ON_SET="))
      << r;
  const json v = read_json(dir_ / "o/self-test-fail/verdicts.json");
  // The defaults case's own rows stand; every comparison with `small` is an error.
  EXPECT_EQ(verdicts_of(v), (std::vector<std::string>{"PASS", "FAIL", "ERROR", "FAIL", "FAIL",
                                                      "FAIL", "ERROR", "ERROR", "ERROR", "ERROR"}));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "o/self-test-fail/small/seed-1.stderr.txt"));
}

TEST_F(Check, HelpTeachesTheFormat) {
  const Result r = latsim({"check", "--help"});
  ASSERT_EQ(r.code, 0) << r;
  for (const char* s : {"schema_version: 1", "longest_step_in", "consecutive_steps_over_us",
                        "longest_trace_has", "longest_section_in", "monotonic", "ratio",
                        "over_seeds", "--junit", "--seeds", "--set", "Exit status"})
    EXPECT_TRUE(contains(r.out, s)) << s << "\n" << r.out;
}

}  // namespace
}  // namespace sweep_test
