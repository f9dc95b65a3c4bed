// End-to-end: `latsim run --timeline/--vcd/--timeline-window` on short runs of the
// reference scenario. The recorders only watch: every default output stays
// byte-identical; the files are deterministic; a window bounds what is written;
// the `max:SPAN` trigger centres the window on the longest critical section.
#include <gtest/gtest.h>
#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
const std::string kSource = LATSIM_SOURCE_DIR;
const std::string kScenario = kSource + "/scenarios/disk-dma-kernel-build.yaml";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path work_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("latsim-tl-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

int latsim(const std::string& args) {
  const std::string cmd = "env -u SC_COPYRIGHT_MESSAGE " + std::string(LATSIM_BINARY) + " run " +
                          kScenario + " -q " + args;
  return std::system(cmd.c_str());
}

// The latency tracer's critical sections of a timeline, as [start, end] in µs.
std::vector<std::pair<double, double>> sections(const nlohmann::json& j) {
  std::vector<std::pair<double, double>> v;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && e["name"] == "critical section")
      v.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
  return v;
}

}  // namespace

TEST(Timeline, RecordingLeavesEveryOutputUnchangedAndIsDeterministic) {
  const fs::path d = work_dir("identical");
  ASSERT_EQ(latsim("--duration 200ms --out " + (d / "plain").string()), 0);
  for (const char* run : {"a", "b"})
    ASSERT_EQ(latsim("--duration 200ms --out " + (d / run).string() + " --timeline " +
                     (d / run).string() + ".json --vcd " + (d / run).string() + ".vcd"),
              0);
  for (const char* f : {"metrics.json", "cyclictest.txt", "dmesg.txt", "traces/max.txt"})
    EXPECT_EQ(slurp(d / "plain" / f), slurp(d / "a" / f)) << f;
  EXPECT_EQ(slurp(d / "a.json"), slurp(d / "b.json"));
  EXPECT_EQ(slurp(d / "a.vcd"), slurp(d / "b.vcd"));
  EXPECT_EQ(slurp(d / "a.ftrace.txt"), slurp(d / "b.ftrace.txt"));
  EXPECT_NE(slurp(d / "a.ftrace.txt").find(": sched_switch: prev_comm="), std::string::npos);
  // The longest section in the timeline is the one the latency tracer reported.
  const auto j = nlohmann::json::parse(slurp(d / "a.json"));
  uint64_t longest = 0;
  size_t functions = 0;  // a whole run leaves them out by default (timeline_detail auto)
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "critical section")
      longest = std::max(longest, e["args"]["latency_us"].get<uint64_t>());
    functions += e.value("cat", "") == "function";
  }
  EXPECT_EQ(functions, 0u);
  const auto m = nlohmann::json::parse(slurp(d / "a" / "metrics.json"));
  EXPECT_EQ(longest, m["latency_tracer"]["max_us"].get<uint64_t>());
  fs::remove_all(d);
}

TEST(Timeline, WindowBoundsEveryEvent) {
  const fs::path d = work_dir("window");
  ASSERT_EQ(latsim("--duration 300ms --out " + (d / "run").string() + " --timeline " +
                   (d / "w.json").string() + " --vcd " + (d / "w.vcd").string() +
                   " --timeline-window 100ms..150ms"),
            0);
  const auto j = nlohmann::json::parse(slurp(d / "w.json"));
  size_t slices = 0, functions = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M") continue;
    functions += e.value("cat", "") == "function";
    const double ts = e["ts"].get<double>();
    const double end = ts + (e.contains("dur") ? e["dur"].get<double>() : 0.0);
    EXPECT_GE(ts, 100000.0) << e.dump();
    EXPECT_LE(end, 150000.0) << e.dump();
    slices += e["ph"] == "B";
  }
  EXPECT_GT(slices, 100u);     // 50 ms of two busy CPUs
  EXPECT_GT(functions, 100u);  // a window has the function slices by default
  const std::string vcd = slurp(d / "w.vcd");
  EXPECT_NE(vcd.find("#100000000\n$dumpvars\n"), std::string::npos);
  EXPECT_EQ(vcd.substr(vcd.size() - 11), "#150000000\n");
  EXPECT_NE(latsim("--duration 300ms --out " + (d / "bad").string() + " --timeline " +
                   (d / "x.json").string() + " --timeline-window 2s..1s 2>/dev/null"),
            0);
  EXPECT_FALSE(fs::exists(d / "x.json"));
  fs::remove_all(d);
}

TEST(Timeline, MaxTriggerCentresTheWindowOnTheLongestSection) {
  const fs::path d = work_dir("trigger");
  ASSERT_EQ(latsim("--duration 300ms --out " + (d / "run").string() + " --timeline " +
                   (d / "all.json").string()),
            0);
  ASSERT_EQ(latsim("--duration 300ms --out " + (d / "run2").string() + " --timeline " +
                   (d / "max.json").string() + " --timeline-window max:20ms"),
            0);
  // The longest section of the whole run, found in the full timeline...
  const auto all = sections(nlohmann::json::parse(slurp(d / "all.json")));
  ASSERT_FALSE(all.empty());
  auto longest = all.front();
  for (const auto& s : all)
    if (s.second - s.first > longest.second - longest.first) longest = s;
  // ...lies in the middle of the triggered 20 ms window, and is in it.
  const auto win = sections(nlohmann::json::parse(slurp(d / "max.json")));
  double lo = 1e18, hi = 0;
  for (const auto& s : win) lo = std::min(lo, s.first), hi = std::max(hi, s.second);
  EXPECT_NE(std::find(win.begin(), win.end(), longest), win.end());
  const double mid = (longest.first + longest.second) / 2;
  EXPECT_GE(lo, mid - 10000.0 - 1e-3);
  EXPECT_LE(hi, mid + 10000.0 + 1e-3);
  EXPECT_LT(lo, mid - 9000.0);  // the window really spans ~20 ms around it
  EXPECT_GT(hi, mid + 9000.0);
  fs::remove_all(d);
}

// The blame ledger of the longest section lies under it, its causes end to end and summing
// to it; arrows lead from the IDE master's transfers to the CPUs they held off.
TEST(Timeline, TheLedgerLiesUnderTheLongestSectionAndArrowsLeadToTheStalledCpus) {
  const fs::path d = work_dir("ledger");
  ASSERT_EQ(latsim("--duration 300ms --out " + (d / "run").string() + " --timeline " +
                   (d / "max.json").string() + " --timeline-window max:20ms"),
            0);
  const auto j = nlohmann::json::parse(slurp(d / "max.json"));
  auto ns = [](const nlohmann::json& e) { return std::llround(e["ts"].get<double>() * 1000); };
  // The ledger track: the first trace's ledger and, nested in it, its causes.
  long long from = -1, to = -1, sum = 0, cause_from = -1, largest = 0;
  std::string largest_name;
  std::map<uint64_t, std::pair<nlohmann::json, nlohmann::json>> flows;  // id -> (s, f)
  std::vector<std::pair<long long, long long>> holdoffs;
  for (const auto& e : j["traceEvents"]) {
    const std::string name = e.value("name", "");
    if (e["ph"] == "s") flows[e["id"].get<uint64_t>()].first = e;
    if (e["ph"] == "f") flows[e["id"].get<uint64_t>()].second = e;
    if (e["ph"] == "X" && e["pid"] == 4)
      holdoffs.emplace_back(ns(e), ns(e) + std::llround(e["dur"].get<double>() * 1000));
    if (e.value("cat", "") != "blame" && !(e["ph"] == "E" && from >= 0 && to < 0)) continue;
    if (e["ph"] == "B" && name.rfind("ledger of traces/trace-001-", 0) == 0)
      from = ns(e);
    else if (from >= 0 && to < 0 && e["ph"] == "B")
      cause_from = ns(e);
    else if (from >= 0 && to < 0 && e["ph"] == "E" && cause_from >= 0) {
      sum += ns(e) - cause_from;
      if (ns(e) - cause_from > largest) largest = ns(e) - cause_from, largest_name = name;
      cause_from = -1;
    } else if (from >= 0 && to < 0 && e["ph"] == "E")
      to = ns(e);
  }
  ASSERT_GE(from, 0);
  ASSERT_GT(to, from);
  EXPECT_EQ(sum, to - from);
  EXPECT_EQ(largest_name.rfind("bus_master: ide in ", 0), 0u) << largest_name;
  bool under = false;  // the ledger spans the longest section (X: ts + dur, each in whole ns)
  for (const auto& s : sections(j))
    under |=
        std::llround(s.first * 1000) == from && std::llabs(std::llround(s.second * 1000) - to) <= 1;
  EXPECT_TRUE(under);
  ASSERT_FALSE(flows.empty());
  for (const auto& [id, f] : flows) {
    ASSERT_FALSE(f.first.is_null()) << id;
    ASSERT_FALSE(f.second.is_null()) << id;
    if (f.first["pid"] == 1) {  // a lock holder's CPU to the spinning one
      EXPECT_EQ(f.second["pid"], 1);
      EXPECT_NE(f.first["tid"], f.second["tid"]);
      continue;
    }
    EXPECT_EQ(f.first["pid"], 2);   // from the PCI bus's master track...
    EXPECT_EQ(f.second["pid"], 4);  // ...to a CPU's held-off track, inside a holdoff
    bool inside = false;
    for (const auto& [a, b] : holdoffs) inside |= ns(f.second) >= a && ns(f.second) <= b;
    EXPECT_TRUE(inside) << f.second.dump();
  }
  fs::remove_all(d);
}

// The timeline's tracks beyond tasks and interrupts, checked against each other:
// every FSB holdoff overlaps a train of the master that caused it, every interrupt
// is taken while its CPU's IF=0 span is open (the interrupt gate clears IF), and the
// PCI utilisation and runqueue counters are there with sane values.
TEST(Timeline, HoldoffsInterruptFlagAndCountersAreConsistent) {
  const fs::path d = work_dir("tracks");
  ASSERT_EQ(latsim("--duration 300ms --out " + (d / "run").string() + " --timeline " +
                   (d / "t.json").string() + " --timeline-detail functions"),
            0);
  const auto j = nlohmann::json::parse(slurp(d / "t.json"));
  std::map<int, std::string> pci_tracks;
  std::map<std::string, std::vector<std::pair<double, double>>> trains;  // master -> slices
  std::map<int, std::vector<std::pair<double, double>>> if_off;          // cpu -> IF=0 spans
  std::vector<nlohmann::json> holdoffs, irqs;
  size_t functions = 0, utilisation = 0, busy = 0, runqueue = 0;
  for (const auto& e : j["traceEvents"]) {
    const int pid = e["pid"], tid = e.value("tid", 0);
    const std::string name = e.value("name", "");
    if (e["ph"] == "M" && pid == 2 && name == "thread_name") pci_tracks[tid] = e["args"]["name"];
    if (e["ph"] == "X" && pid == 2 && name.find(" bursts") != std::string::npos)
      trains[name.substr(0, name.find(" bursts"))].emplace_back(
          e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    if (e["ph"] == "X" && pid == 4) holdoffs.push_back(e);
    if (e["ph"] == "X" && pid == 1 && tid >= 200)
      if_off[tid - 200].emplace_back(e["ts"].get<double>(),
                                     e["ts"].get<double>() + e["dur"].get<double>());
    if (e["ph"] == "B" && pid == 1 && tid < 100) functions += e.value("cat", "") == "function";
    if (e["ph"] == "B" && e.value("cat", "") == "irq") irqs.push_back(e);
    if (e["ph"] == "C" && name == "PCI utilisation") {
      const double p = e["args"]["percent"];
      EXPECT_GE(p, 0.0);
      EXPECT_LE(p, 100.0);
      utilisation++;
      busy += p > 0;
    }
    if (e["ph"] == "C" && name.rfind("runqueue CPU", 0) == 0) runqueue++;
  }
  EXPECT_GT(functions, 1000u);
  EXPECT_GT(utilisation, 10u);
  EXPECT_GT(busy, 0u);
  EXPECT_GT(runqueue, 10u);
  auto inside = [](const std::vector<std::pair<double, double>>& spans, double a, double b) {
    for (const auto& s : spans)
      if (a >= s.first - 1e-3 && b <= s.second + 1e-3) return true;
    return false;
  };
  auto overlaps = [](const std::vector<std::pair<double, double>>& spans, double a, double b) {
    for (const auto& s : spans)
      if (a < s.second && b > s.first) return true;
    return false;
  };
  // The reference run reads the disk by bus-master DMA: the CPUs are held off.
  ASSERT_FALSE(holdoffs.empty());
  for (const auto& h : holdoffs) {
    const std::string name = h["name"];
    ASSERT_EQ(name.rfind("held off by ", 0), 0u) << h.dump();
    const double a = h["ts"], dur = h["dur"];
    EXPECT_EQ(h["args"]["wait_ns"].get<uint64_t>(), uint64_t(std::llround(dur * 1000)));
    // Overlaps, not inside: a CPU's stall is planned on the trains known when its miss
    // issues; another CPU's I/O cycle may then defer the train by a PCI transaction.
    EXPECT_TRUE(overlaps(trains[name.substr(12)], a, a + dur)) << h.dump();
  }
  ASSERT_FALSE(irqs.empty());
  for (const auto& i : irqs) {
    const double t = i["ts"];
    EXPECT_TRUE(inside(if_off[i["tid"].get<int>()], t, t)) << i.dump();
  }
  fs::remove_all(d);
}

// The output directory is replaced as a whole at the end of a run, so a timeline inside
// it is refused before the run starts, and nothing is written.
TEST(Timeline, AFileInsideTheOutputDirectoryIsRefusedBeforeTheRun) {
  const fs::path d = work_dir("inside");
  const std::string err = (d / "err.txt").string();
  EXPECT_NE(latsim("--duration 200ms --out " + (d / "o").string() + " --timeline " +
                   (d / "o" / "t.json").string() + " 2>" + err),
            0);
  EXPECT_FALSE(fs::exists(d / "o"));
  EXPECT_NE(slurp(err).find("outputs.timeline " + (d / "o" / "t.json").string() +
                            " is inside the output directory"),
            std::string::npos)
      << slurp(err);
  EXPECT_NE(latsim("--duration 200ms --out " + (d / "o").string() + " --vcd " +
                   (d / "o" / "w.vcd").string() + " 2>" + err),
            0);
  EXPECT_NE(slurp(err).find("outputs.vcd"), std::string::npos) << slurp(err);
  EXPECT_NE(latsim("--duration 200ms --out " + (d / "o").string() + " --trace-dat " +
                   (d / "o" / "trace.dat").string() + " 2>" + err),
            0);
  EXPECT_NE(slurp(err).find("outputs.trace_dat"), std::string::npos) << slurp(err);
  EXPECT_FALSE(fs::exists(d / "o"));
}
