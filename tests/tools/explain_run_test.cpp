// `latsim explain` end to end on real runs: the ledger of every kept trace of the reference
// scenario sums to the trace exactly, the explanation names the mechanism the seed argued
// about, the output is deterministic, and bad input gets a one-line error.
#include <gtest/gtest.h>
#include <map>
#include "tests/tools/sweep_test_support.h"

namespace {

using namespace sweep_test;

class Explain : public Sweep {
 protected:
  fs::path run(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> a{"run", kScenario, "-q", "--out", (dir_ / name).string()};
    a.insert(a.end(), extra.begin(), extra.end());
    const Result r = latsim(a);
    EXPECT_EQ(r.code, 0) << r;
    return dir_ / name;
  }
};

// The causes of each trace, summed here, against the tracer's own interval and the trace
// file's header: a CPU call left uncharged, or time passing outside one, shows as a gap.
TEST_F(Explain, EveryKeptTraceOfTheReferenceRunSumsToItsLatencyExactly) {
  const fs::path out = run("ref");
  const json ledgers = read_json(out / "traces" / "blame.json");
  std::vector<json> all(ledgers["traces"].begin(), ledgers["traces"].end());
  ASSERT_GE(all.size(), 10u);
  all.push_back(ledgers["max"]);
  for (const json& t : all) {
    const std::string file = t["file"];
    uint64_t sum = 0;
    for (const json& c : t["causes"]) sum += c["ps"].get<uint64_t>();
    const uint64_t length = t["t_end_ps"].get<uint64_t>() - t["t_start_ps"].get<uint64_t>();
    EXPECT_EQ(sum, length) << file;
    EXPECT_EQ(length / 1000000, t["latency_us"].get<uint64_t>()) << file;
    const std::string text = slurp(out / "traces" / file);
    EXPECT_TRUE(
        contains(text, " latency: " + std::to_string(t["latency_us"].get<uint64_t>()) + " us,"))
        << file;
  }
  // And its cyclictest thread's longest wake-up.
  ASSERT_EQ(ledgers["windows"].size(), 1u);
  const json& wake = ledgers["windows"][0];
  EXPECT_EQ(wake["measure"], "wake-up");
  uint64_t woke = 0;
  for (const json& c : wake["causes"]) woke += c["ps"].get<uint64_t>();
  EXPECT_EQ(woke, wake["t_end_ps"].get<uint64_t>() - wake["t_start_ps"].get<uint64_t>());
  // Which task ran instead of the woken one, and whether anything could have preempted it.
  const Result w = latsim({"explain", out.string(), "--cyclictest"});
  ASSERT_EQ(w.code, 0) << w;
  EXPECT_TRUE(contains(w.out, "; other tasks ran ")) << w;
  EXPECT_TRUE(contains(w.out, " with preemption or interrupts off.")) << w;
  // blame-traces.svg: a bar per trace of the ten longest, in parts by cause.
  const std::string svg = slurp(out / "blame-traces.svg");
  const json& first = ledgers["traces"][0];
  EXPECT_TRUE(
      contains(svg, "trace-001 (" + std::to_string(first["latency_us"].get<uint64_t>()) + " us)"));
  EXPECT_TRUE(contains(svg, "trace-010 ("));
  EXPECT_FALSE(contains(svg, "trace-011 ("));
  EXPECT_TRUE(contains(svg, "<title>bus_master: "));
  // The longest section: IDE bus-master DMA holds the CPU, for a request cat issued.
  const Result e = latsim({"explain", out.string()});
  ASSERT_EQ(e.code, 0) << e;
  const auto lines = lines_of(e.out);
  ASSERT_GE(lines.size(), 4u) << e;
  EXPECT_TRUE(contains(lines[3], "bus-master DMA by ide")) << e;
  EXPECT_TRUE(contains(lines[3], "issued for cat/")) << e;
  EXPECT_TRUE(contains(e.out, "the causes sum to the section exactly")) << e;
}

TEST_F(Explain, LedgerAndJsonAreByteIdenticalAcrossReruns) {
  const fs::path a = run("a", {"--duration", "5s"}), b = run("b", {"--duration", "5s"});
  EXPECT_EQ(slurp(a / "traces" / "blame.json"), slurp(b / "traces" / "blame.json"));
  const Result ja = latsim({"explain", a.string(), "--json", "--trace", "2"});
  const Result jb = latsim({"explain", b.string(), "--json", "--trace", "2"});
  ASSERT_EQ(ja.code, 0) << ja;
  EXPECT_EQ(ja.out, jb.out);
  EXPECT_EQ(json::parse(ja.out)["trace"]["file"], json::parse(jb.out)["trace"]["file"]);
}

// Four cyclictest threads on one CPU, priorities 80 down to 77 (--priospread): a lower thread's
// worst wake-up waited behind the higher ones, which ran at a higher priority; the window says its
// own priority, and the reasons add up to the time the others ran.
TEST_F(Explain, AWakeUpSaysWhyTheTasksThatRanInsteadWereNotPreempted) {
  const fs::path out = dir_ / "rt4";
  const Result r =
      latsim({"run", kSource + "/scenarios/rt-posix-timers.yaml", "-q", "--out", out.string(),
              "--duration", "1s", "--set", "tracing.enabled=true", "--set", "workload.0.threads=4",
              "--set", "workload.0.affinity=0", "--set", "workload.0.priospread=true"});
  ASSERT_EQ(r.code, 0) << r;
  const json ledgers = read_json(out / "traces" / "blame.json");
  ASSERT_EQ(ledgers["windows"].size(), 4u);
  json t3;
  for (const json& w : ledgers["windows"])
    if (w["label"] == "cyclictest T3") t3 = w;
  ASSERT_TRUE(t3.is_object()) << ledgers["windows"];
  EXPECT_EQ(t3["prio"], 99 - 77);  // the kernel's scale: MAX_RT_PRIO - 1 - rt_priority
  uint64_t higher = 0;
  for (const json& c : t3["causes"])
    if (c.contains("prio") && c["prio"].get<int>() < t3["prio"].get<int>() && !c["critical"])
      higher += c["ps"].get<uint64_t>();
  EXPECT_GT(higher, 0u);
  const Result e = latsim({"explain", out.string(), "--window", "cyclictest T3"});
  ASSERT_EQ(e.code, 0) << e;
  EXPECT_TRUE(contains(e.out, "cyclictest/300")) << e;
  EXPECT_TRUE(contains(e.out, " at an equal or higher priority")) << e;
  EXPECT_TRUE(contains(e.out, " not preemptible")) << e;
}

// A journal folded every few calls (its ledgers added up early, as a long section or window
// does) gives the same ledgers, for sections and for windows, as one that never fills.
TEST_F(Explain, AFoldedJournalGivesTheSameLedgers) {
  auto ledgers = [&](const std::string& name, const std::string& journal) {
    const fs::path out = dir_ / name;
    const Result r = latsim({"run", kSource + "/scenarios/latencytest-stress.yaml", "-q", "--out",
                             out.string(), "--duration", "1.5s", "--set", "workload.0.phase_s=0.3",
                             "--set", "kernel.tunables./proc/sys/kernel/preempt_max_latency=100",
                             "--set", "tracing.blame_journal=" + journal});
    EXPECT_EQ(r.code, 0) << r;
    return read_json(out / "traces" / "blame.json");
  };
  const json folded = ledgers("folded", "4"), whole = ledgers("whole", "1000000");
  EXPECT_FALSE(whole["traces"].empty());
  EXPECT_FALSE(whole["windows"].empty());
  EXPECT_EQ(folded, whole);
}

// latencytest: each phase's longest CPU loop and write-to-write interval get a window whose
// causes sum to it, the same interval the workload itself reports as the phase's worst.
TEST_F(Explain, LatencytestPhasesWorstLoopAndWriteAreExplained) {
  const fs::path out = dir_ / "lt";
  const Result r = latsim({"run", kSource + "/scenarios/latencytest-stress.yaml", "-q", "--out",
                           out.string(), "--duration", "2.6s", "--set", "workload.0.phase_s=0.3"});
  ASSERT_EQ(r.code, 0) << r;
  const json ledgers = read_json(out / "traces" / "blame.json");
  const json phases = read_json(out / "metrics.json")["workloads"]["latencytest"]["phases"];
  ASSERT_EQ(ledgers["windows"].size(), 2 * phases.size());
  const std::map<std::string, std::string> label{
      {"x11", "X11"},          {"proc", "/proc"},         {"net_out", "net out"},
      {"net_in", "net in"},    {"disk_write", "dsk wrt"}, {"disk_copy", "dsk copy"},
      {"disk_read", "disk rd"}};
  auto window = [&](const std::string& l) {
    for (const json& w : ledgers["windows"])
      if (w["label"] == l) return w;
    ADD_FAILURE() << "no window " << l;
    return json::object();
  };
  for (const auto& [name, ph] : phases.items()) {
    const json loop = window("latencytest " + label.at(name) + " loop");
    const json write = window("latencytest " + label.at(name) + " write");
    for (const json* w : {&loop, &write}) {
      uint64_t sum = 0;
      for (const json& c : (*w)["causes"]) sum += c["ps"].get<uint64_t>();
      EXPECT_EQ(sum, (*w)["t_end_ps"].get<uint64_t>() - (*w)["t_start_ps"].get<uint64_t>())
          << (*w)["label"];
    }
    EXPECT_EQ(loop["measure"], "cpu loop");
    EXPECT_NEAR(loop["t_start_ps"].get<double>() / 1e12,
                ph["max_cpu_loop"]["start_s"].get<double>(), 1e-6)
        << name;
    EXPECT_EQ(write["measure"], "write");
    EXPECT_NEAR(write["t_end_ps"].get<double>() / 1e12, ph["max_write_at_s"].get<double>(), 1e-6)
        << name;
  }
  const Result e = latsim({"explain", out.string(), "--window", "latencytest disk rd loop"});
  ASSERT_EQ(e.code, 0) << e;
  EXPECT_TRUE(contains(e.out, "latencytest disk rd loop (pid ")) << e;
  // --whatif reruns it, comparing the reruns' windows of the same measure and label.
  const Result w = latsim({"explain", out.string(), "--window", "latencytest disk rd loop",
                           "--whatif", "--top", "2", "-j", "2", "-q"});
  ASSERT_EQ(w.code, 0) << w;
  EXPECT_TRUE(contains(w.out, "same us: the one with the same label")) << w;
  const Result bad = latsim({"explain", out.string(), "--window", "latencytest nowhere"});
  EXPECT_EQ(bad.code, 1) << bad;
  EXPECT_TRUE(contains(bad.err, "no such window; the run has \"latencytest X11 write\"")) << bad;
}

// tracing.blame=false: no ledger is recorded, and nothing else the run says changes.
TEST_F(Explain, TheLedgerSwitchedOffChangesNothingButTheLedger) {
  const fs::path on = run("on", {"--duration", "2s"});
  const fs::path off = run("off", {"--duration", "2s", "--set", "tracing.blame=false"});
  EXPECT_FALSE(fs::exists(off / "traces" / "blame.json"));
  EXPECT_EQ(slurp(on / "traces" / "max.txt"), slurp(off / "traces" / "max.txt"));
  json a = read_json(on / "metrics.json"), b = read_json(off / "metrics.json");
  ASSERT_TRUE(a.contains("blame"));
  EXPECT_FALSE(b.contains("blame"));
  a.erase("blame");
  a["latency_tracer"].erase("blame");
  EXPECT_EQ(a, b);
}

TEST_F(Explain, BadInputGetsAOneLineErrorAndExitOne) {
  auto fails = [&](const std::vector<std::string>& args, const std::string& says) {
    const Result r = latsim(args);
    EXPECT_EQ(r.code, 1) << r;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r;
    EXPECT_TRUE(contains(r.err, says)) << r;
  };
  fails({"explain", (dir_ / "nowhere").string()}, "no such run directory");
  const fs::path untraced =
      run("untraced", {"--duration", "0.2s", "--set", "tracing.enabled=false"});
  fails({"explain", untraced.string()}, "no blame ledger");
  const fs::path unblamed = run("unblamed", {"--duration", "0.2s", "--set", "tracing.blame=false"});
  fails({"explain", unblamed.string()}, "tracing.blame=false");
  const fs::path small = run("small", {"--duration", "2s"});
  const size_t kept = read_json(small / "traces" / "blame.json")["traces"].size();
  fails({"explain", small.string(), "--trace", std::to_string(kept + 1)},
        "the run kept " + std::to_string(kept) + " traces");
  json info = read_json(small / "run-info.json");
  info["versions"]["latsim"] = "0.0.1";
  std::ofstream(small / "run-info.json") << info.dump(2);
  fails({"explain", small.string()}, "written by latsim 0.0.1");
}

}  // namespace
