// The measurement files of a run: cyclictest.txt (summary lines and the
// -h block), cyclictest.json (rt-tests --json, key layout copied from Debian's
// rt-tests 2.4), timerlat.txt (rtla timerlat top), syslog.txt (the VP tracer's
// kernel messages) and the kernel sections of metrics.json. Each has a golden file
// (LATSIM_UPDATE_GOLDEN=1 regenerates them when a change is intended) plus checks
// that hold whatever the simulated figures are.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const std::string kSource = LATSIM_SOURCE_DIR;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << p;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path run(const std::string& scenario, const std::string& tag, const std::string& args = "") {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-measure-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd =
      std::string(LATSIM_BINARY) + " run " + scenario + " -q --out " + out.string() + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

std::string data(const std::string& f) { return kSource + "/tests/tools/data/" + f; }

void expect_golden(const std::string& got, const std::string& name) {
  const fs::path want = fs::path(kSource) / "tests/tools/data/golden" / name;
  if (std::getenv("LATSIM_UPDATE_GOLDEN")) {
    std::ofstream(want, std::ios::binary) << got;
    return;
  }
  EXPECT_EQ(got, read_text(want)) << name
                                  << " differs (LATSIM_UPDATE_GOLDEN=1 regenerates it when the "
                                     "change is intended)";
}

nlohmann::json metrics(const fs::path& out) {
  return nlohmann::json::parse(read_text(out / "metrics.json"));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// printf("T:%2d (%5d) P:%2d I:%ld C:%7lu Min:%7ld Act:%5ld Avg:%5ld Max:%8ld")
const std::regex kSummary(
    R"(^T:[ \d]\d \([ \d]{4}\d\) P:[ \d]\d I:\d+ C:[ \d]{6}\d Min:[ \d]{6}\d Act:[ \d]{4}\d )"
    R"(Avg:[ \d]{4}\d Max:[ \d]{7}\d$)");

TEST(MeasureOutputs, CyclictestSummaryThreadsAndGolden) {
  const auto out = run(data("cyclictest-threads.yaml"), "threads");
  const std::string text = read_text(out / "cyclictest.txt");
  const auto m = metrics(out)["workloads"]["cyclictest"];
  const auto l = lines(text);
  ASSERT_EQ(l.size(), 2u) << text;
  for (const auto& s : l) EXPECT_TRUE(std::regex_match(s, kSummary)) << s;
  // -d 500 (interval + i * distance), -l 600: each thread stops after 600 cycles.
  EXPECT_NE(l[0].find(" I:1000 C:    600 "), std::string::npos) << l[0];
  EXPECT_NE(l[1].find(" I:1500 C:    600 "), std::string::npos) << l[1];
  // -a: thread i pinned to CPU i.
  EXPECT_EQ(m["threads"][0]["cpu"], 0);
  EXPECT_EQ(m["threads"][1]["cpu"], 1);
  EXPECT_EQ(m["count"], 1200);
  expect_golden(text, "cyclictest-threads.cyclictest.txt");
  fs::remove_all(out);
}

TEST(MeasureOutputs, CyclictestJsonHasTheRtTestsKeysAndGolden) {
  const auto out =
      run(data("cyclictest-threads.yaml"), "json", "--set workload.cyclictest.histogram_us=300");
  const std::string text = read_text(out / "cyclictest.json");
  const auto j = nlohmann::json::parse(text);
  for (const char* k : {"file_version", "cmdline:", "rt_test_version:", "start_time", "end_time",
                        "return_code", "sysinfo", "num_threads", "resolution_in_ns", "thread"})
    EXPECT_TRUE(j.contains(k)) << k;
  for (const char* k : {"sysname", "nodename", "release", "version", "machine", "realtime"})
    EXPECT_TRUE(j["sysinfo"].contains(k)) << k;
  EXPECT_EQ(j["num_threads"], 2);
  EXPECT_EQ(j["cmdline:"],
            "cyclictest -t 2 -p 80 -i 1000 -l 600 -a -h 300 -q --json=cyclictest.json");
  const auto hist = lines(read_text(out / "cyclictest.txt"));
  for (int t = 0; t < 2; ++t) {
    const auto& th = j["thread"][std::to_string(t)];
    for (const char* k : {"histogram", "cycles", "min", "max", "avg", "cpu", "node"})
      EXPECT_TRUE(th.contains(k)) << k;
    EXPECT_EQ(th["cycles"], 600);
    EXPECT_EQ(th["cpu"], t);
    // The JSON histogram holds the same counts as the -h block's column.
    uint64_t in_json = 0;
    for (const auto& [bucket, n] : th["histogram"].items()) {
      const int b = std::stoi(bucket);
      ASSERT_LT(b, 300);
      const auto& row = hist[size_t(1 + b)];
      EXPECT_EQ(std::stoull(row.substr(7 + size_t(t) * 7, 6)), n.get<uint64_t>()) << row;
      in_json += n.get<uint64_t>();
    }
    EXPECT_EQ(hist[301].substr(0, 8), "# Total:");
    EXPECT_EQ(std::stoull(hist[301].substr(9 + size_t(t) * 10, 9)), in_json) << hist[301];
  }
  // Byte layout as rt_write_json writes it: no newline after the closing brace.
  EXPECT_EQ(text.back(), '}');
  expect_golden(text, "cyclictest-threads.cyclictest.json");
  expect_golden(read_text(out / "cyclictest.txt"), "cyclictest-threads-h300.cyclictest.txt");
  fs::remove_all(out);
}

// rtla timerlat's split of each wakeup: the IRQ part can never exceed the thread part.
TEST(MeasureOutputs, TimerlatSplitsIrqAndThreadLatency) {
  const auto out = run(data("cyclictest-threads.yaml"), "timerlat");
  const auto l = lines(read_text(out / "timerlat.txt"));
  ASSERT_EQ(l.size(), 5u);
  EXPECT_EQ(l[0], "                                     Timer Latency");
  EXPECT_EQ(l[1],
            "  0 00:00:02   |          IRQ Timer Latency (us)        |         Thread Timer "
            "Latency (us)");
  const std::regex row(R"(^  ([01]) #(\d+) +\|((?: +\d+){4}) \|((?: +\d+){4}) $)");
  for (int i = 3; i < 5; ++i) {
    std::smatch mm;
    ASSERT_TRUE(std::regex_match(l[size_t(i)], mm, row)) << l[size_t(i)];
    EXPECT_EQ(std::stoi(mm[1]), i - 3);
    EXPECT_EQ(std::stoi(mm[2]), 600);
  }
  for (const auto& t : metrics(out)["workloads"]["cyclictest"]["threads"]) {
    EXPECT_LE(t["irq_latency_us"]["max"].get<double>(),
              t["thread_latency_us"]["max"].get<double>());
    EXPECT_LE(t["irq_latency_us"]["avg"].get<double>(),
              t["thread_latency_us"]["avg"].get<double>());
    EXPECT_GT(t["thread_latency_us"]["min"].get<double>(), 0.0);
  }
  expect_golden(read_text(out / "timerlat.txt"), "cyclictest-threads.timerlat.txt");
  fs::remove_all(out);
}

// POSIX timers (-x): the signal path (posix_timer_fn, send_sigqueue under the
// siglock, dequeue_signal and the rearm) is longer than clock_nanosleep's
// process_timeout wakeup, so on an idle CPU the shortest wakeup is longer.
TEST(MeasureOutputs, PosixTimerWakeupCostsMoreThanNanosleep) {
  const auto ns = run(data("cyclictest-quiet.yaml"), "nanosleep");
  const auto px =
      run(data("cyclictest-quiet.yaml"), "posix", "--set workload.cyclictest.timer=posix_timers");
  const auto a = metrics(ns)["workloads"]["cyclictest"]["threads"][0];
  const auto b = metrics(px)["workloads"]["cyclictest"]["threads"][0];
  EXPECT_GT(b["thread_latency_us"]["min"].get<double>(),
            a["thread_latency_us"]["min"].get<double>());
  EXPECT_GT(b["count"].get<int>(), 900);
  // The signal path takes the process's siglock and the timer's it_lock every period.
  const auto locks = metrics(px)["locks"];
  EXPECT_GE(locks["sighand->siglock"]["acquisitions"].get<int>(), 2 * b["count"].get<int>());
  EXPECT_GE(locks["timr->it_lock"]["acquisitions"].get<int>(), 2 * b["count"].get<int>());
  EXPECT_FALSE(metrics(ns)["locks"].contains("sighand->siglock"));
  EXPECT_NE(read_text(px / "cyclictest.json").find("-x -q --json=cyclictest.json"),
            std::string::npos);
  fs::remove_all(ns);
  fs::remove_all(px);
}

// Per-CPU time accounts for all of each CPU's simulated time; locks and IRQs are listed.
TEST(MeasureOutputs, KernelMetricsAddUpAndGolden) {
  const auto out = run(data("cyclictest-threads.yaml"), "kernel");
  const auto m = metrics(out);
  nlohmann::json subset;
  for (const auto& c : m["cpus"]) {
    double sum = 0;
    for (const auto& [k, v] : c["time_ms"].items()) sum += v.get<double>();
    EXPECT_GT(sum, 1900.0) << c.dump();
    EXPECT_LE(sum, 2000.001) << c.dump();
    EXPECT_GT(c["context_switches"].get<int>(), 0);
    subset["cpus"].push_back({{"time_ms", c["time_ms"]},
                              {"context_switches", c["context_switches"]},
                              {"migrations", c["migrations"]}});
  }
  EXPECT_GT(m["cpus"][0]["time_ms"]["user"].get<double>(), 0.0);
  for (const char* lock : {"rq->lock", "xtime_lock", "i8253_lock"}) {
    ASSERT_TRUE(m["locks"].contains(lock)) << lock;
    EXPECT_GT(m["locks"][lock]["max_hold_us"].get<double>(), 0.0) << lock;
  }
  ASSERT_TRUE(m["irqs"].contains("0"));
  EXPECT_EQ(m["irqs"]["0"]["name"], "timer");
  // HZ 1000 for 2 s; ticks that arrive while the previous one is still pending merge
  // (the IRR holds one), so a few per cent are lost under DMA.
  EXPECT_GT(m["irqs"]["0"]["count"].get<int>(), 1800);
  EXPECT_LE(m["irqs"]["0"]["count"].get<int>(), 2001);
  EXPECT_EQ(m["irqs"]["14"]["name"], "ide0");
  subset["locks"] = m["locks"];
  subset["irqs"] = m["irqs"];
  expect_golden(subset.dump(2) + "\n", "cyclictest-threads.kernel-metrics.json");
  fs::remove_all(out);
}

// /var/log/messages lines of the VP tracer; every new maximum is reported in order.
TEST(MeasureOutputs, SyslogReportsEachNewMaximumAndGolden) {
  const auto out = run(data("cyclictest-threads.yaml"), "syslog");
  const std::string text = read_text(out / "syslog.txt");
  const auto l = lines(text);
  ASSERT_GE(l.size(), 3u);
  ASSERT_EQ(l.size() % 3, 0u);
  const std::string stamp = R"(^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d latsim kernel: )";
  const std::regex head(stamp +
                        R"(\((.+)/(\d+)\): new (\d+) us maximum-latency critical section\.$)");
  const std::regex start(stamp + R"( => started at: <\w+\+0x[0-9a-f]+/0x[0-9a-f]+>$)");
  const std::regex end(stamp + R"( => ended at:   <\w+\+0x[0-9a-f]+/0x[0-9a-f]+>$)");
  uint64_t last = 0;
  for (size_t i = 0; i < l.size(); i += 3) {
    std::smatch mm;
    ASSERT_TRUE(std::regex_match(l[i], mm, head)) << l[i];
    const uint64_t us = std::stoull(mm[3]);
    EXPECT_GT(us, last);
    last = us;
    EXPECT_TRUE(std::regex_match(l[i + 1], start)) << l[i + 1];
    EXPECT_TRUE(std::regex_match(l[i + 2], end)) << l[i + 2];
  }
  EXPECT_EQ(last, metrics(out)["latency_tracer"]["max_us"].get<uint64_t>());
  expect_golden(text, "cyclictest-threads.syslog.txt");
  fs::remove_all(out);
}

// tracing_enabled=0 (Ingo Molnar in seed 000): sections are still timed and
// reported, but no mcount entries are kept (and their cost is not paid).
TEST(MeasureOutputs, TracingDisabledKeepsTimingDropsEntries) {
  const auto out = run(data("cyclictest-threads.yaml"), "notrace", "--set tracing.enabled=false");
  const auto m = metrics(out);
  EXPECT_GT(m["latency_tracer"]["critical_sections"].get<uint64_t>(), 0u);
  EXPECT_GT(m["latency_tracer"]["max_us"].get<uint64_t>(), 100u);
  const std::string max = read_text(out / "traces" / "max.txt");
  EXPECT_NE(max.find(" entries: 0 (0)\n"), std::string::npos) << max;
  EXPECT_NE(max.find("=======>\n"), std::string::npos);
  EXPECT_EQ(max.substr(max.find("=======>\n") + 9), "");
  EXPECT_NE(read_text(out / "syslog.txt").find("maximum-latency critical section."),
            std::string::npos);
  fs::remove_all(out);
}

}  // namespace
