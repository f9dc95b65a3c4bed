// End-to-end: `latsim run --trace-dat` on 2 s of the reference scenario, read back by
// trace-cmd (skipped where it is not installed): every event appears with plausible fields,
// each CPU's buffer holds only that CPU's records in time order, recording changes none of
// the run's own outputs, and the file is the same on a second run.
#include <gtest/gtest.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "tests/tools/sweep_test_support.h"

namespace {

namespace fs = std::filesystem;
using sweep_test::kScenario;
using sweep_test::slurp;

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 65536> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

int latsim(const std::string& args) {
  const std::string cmd = "env -u SC_COPYRIGHT_MESSAGE " + std::string(LATSIM_BINARY) + " run " +
                          kScenario + " -q --duration 2s " + args;
  return std::system(cmd.c_str());
}

class TraceDat : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("latsim-td-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_EQ(latsim("--out " + (dir_ / "plain").string()), 0);
    ASSERT_EQ(latsim("--out " + (dir_ / "a").string() + " --trace-dat " + dat().string()), 0);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static fs::path dat() { return dir_ / "a-trace.dat"; }
  static std::string report(const std::string& opts = "") {
    return run("trace-cmd report " + opts + " " + dat().string() + " 2>&1");
  }
  static fs::path dir_;
};
fs::path TraceDat::dir_;

}  // namespace

#define SKIP_WITHOUT_TRACE_CMD()           \
  if (run("command -v trace-cmd").empty()) \
  GTEST_SKIP() << "trace-cmd is not installed (apt-get install trace-cmd)"

TEST_F(TraceDat, ReportListsEveryEventWithPlausibleFields) {
  SKIP_WITHOUT_TRACE_CMD();
  const std::string r = report();
  // One line per event with its fields as the kernel's print fmt (or the sched plugin) shows.
  const std::map<std::string, std::string> events = {
      {"sched_switch", R"(sched_switch: +\S+:\d+ \[\d+\] [RSDX]\+? ==> \S+:\d+ \[\d+\])"},
      {"sched_wakeup", R"(sched_wakeup: +\S+:\d+ \[\d+\] CPU:00[01])"},
      {"irq_handler_entry", R"(irq_handler_entry: +irq=14 name=ide0)"},
      {"irq_handler_exit", R"(irq_handler_exit: +irq=14 ret=handled)"},
      {"softirq_entry", R"(softirq_entry: +vec=1 \[action=TIMER\])"},
      {"softirq_exit", R"(softirq_exit: +vec=1 \[action=TIMER\])"},
      {"irq_disable", R"(irq_disable: +caller=\w+\+0x0 parent=\w+\+0x0)"},
      {"irq_enable", R"(irq_enable: +caller=\w+\+0x0 parent=\w+\+0x0)"},
      {"preempt_disable", R"(preempt_disable: +caller=\w+\+0x0 parent=\w+\+0x0)"},
      {"preempt_enable", R"(preempt_enable: +caller=\w+\+0x0 parent=\w+\+0x0)"},
      {"fsb_holdoff", R"(fsb_holdoff: +master=ide wait_ns=[1-9]\d*)"},
      {"dma_burst", R"(dma_burst: +master=ide bytes=[1-9]\d* bursts=[1-9]\d* period_ns=[1-9]\d* )"
                    R"(tenure_ns=[1-9]\d* duration_ns=[1-9]\d*)"}};
  for (const auto& [name, pattern] : events)
    EXPECT_TRUE(std::regex_search(r, std::regex(pattern))) << name << ": " << pattern;
  // The IDE interrupt thread under a comm without a space, as trace parsers need.
  EXPECT_TRUE(std::regex_search(r, std::regex(R"(==> irq/14:\d+ \[\d+\])")));
  EXPECT_EQ(r.find("IRQ 14"), std::string::npos);
  EXPECT_EQ(r.find("[unknown"), std::string::npos);     // every event's format was found
  EXPECT_EQ(r.find("=0xffffffff"), std::string::npos);  // every caller has its symbol
  // Timestamps in seconds of simulated time, within the 2 s.
  EXPECT_TRUE(std::regex_search(r, std::regex(R"(\[00[01]\] +1\.9\d{5}: )")));
  EXPECT_FALSE(std::regex_search(r, std::regex(R"(\] +[2-9]\.\d{6}: )")));
}

TEST_F(TraceDat, EachCpuBufferHoldsThatCpusRecordsInTimeOrder) {
  SKIP_WITHOUT_TRACE_CMD();
  for (const char* cpu : {"0", "1"}) {
    std::istringstream lines(report(std::string("--cpu ") + cpu));
    std::string line;
    const std::regex head(R"(^\s*\S.*-\d+ +\[(\d{3})\] +(\d+\.\d{6}): (\w+):)");
    size_t n = 0;
    double last = 0;
    std::map<std::string, size_t> seen;
    while (std::getline(lines, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, head)) continue;
      ++n;
      EXPECT_EQ(std::stoi(m[1]), std::stoi(cpu)) << line;
      const double t = std::stod(m[2]);
      EXPECT_GE(t, last) << line;
      last = t;
      ++seen[m[3]];
    }
    EXPECT_GT(n, 10000u) << "CPU " << cpu;
    // Each CPU switches tasks, takes interrupts and toggles IF and preemption itself.
    for (const char* e : {"sched_switch", "irq_handler_entry", "irq_disable", "preempt_disable"})
      EXPECT_GT(seen[e], 0u) << "CPU " << cpu << " " << e;
  }
}

TEST_F(TraceDat, TheTimelineWindowBoundsIt) {
  SKIP_WITHOUT_TRACE_CMD();
  const fs::path w = dir_ / "w-trace.dat";
  ASSERT_EQ(latsim("--out " + (dir_ / "w").string() + " --trace-dat " + w.string() +
                   " --timeline-window 500ms..600ms"),
            0);
  std::istringstream lines(run("trace-cmd report " + w.string() + " 2>&1"));
  std::string line;
  const std::regex ts(R"(\] +(\d+\.\d{6}): )");
  size_t n = 0;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, ts)) continue;
    ++n;
    const double t = std::stod(m[1]);
    EXPECT_TRUE(t >= 0.5 && t <= 0.6) << line;
  }
  EXPECT_GT(n, 1000u);
}

TEST_F(TraceDat, RecordingChangesNoOutputAndIsDeterministic) {
  for (const char* f : {"metrics.json", "cyclictest.txt", "dmesg.txt", "traces/max.txt"})
    EXPECT_EQ(slurp(dir_ / "plain" / f), slurp(dir_ / "a" / f)) << f;
  const fs::path again = dir_ / "b-trace.dat";
  ASSERT_EQ(latsim("--out " + (dir_ / "b").string() + " --trace-dat " + again.string()), 0);
  EXPECT_EQ(slurp(dat()), slurp(again));
}
