// /proc/irq/14/ide0/threaded (VP): with 0, ide_intr runs in hardirq context and
// the "IRQ 14" thread is never switched to, so the run has fewer context switches.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

nlohmann::json metrics(const std::string& tag, const std::string& args) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-irqthr-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/disk-dma-kernel-build.yaml -q --duration 2s --out " +
                          out.string() + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / "metrics.json");
  auto m = nlohmann::json::parse(in);
  fs::remove_all(out);
  return m;
}

// Preempt counts of every trace line (sections over 100 us of a 2 s run).
std::vector<uint32_t> trace_counts(const std::string& tag, const std::string& args) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-irqthr-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/disk-dma-kernel-build.yaml -q --duration 2s --out " +
                          out.string() + " --set /proc/sys/kernel/preempt_max_latency=100 " +
                          "--set tracing.max_traces=200 " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::vector<uint32_t> counts;
  for (const auto& f : fs::directory_iterator(out / "traces")) {
    std::ifstream in(f.path());
    for (std::string line; std::getline(in, line);)
      if (line.size() > 9 && line[8] == ' ' && line.find("ms (+") != std::string::npos)
        counts.push_back(uint32_t(std::stoul(line.substr(0, 8), nullptr, 16)));
  }
  fs::remove_all(out);
  return counts;
}

uint64_t context_switches(const std::string& tag, const std::string& args) {
  return metrics(tag, args)["scheduler"]["context_switches"];
}

TEST(IrqThreading, UnthreadedIdeHandlerSavesTheThreadSwitches) {
  const uint64_t threaded = context_switches("1", "--set /proc/irq/14/ide0/threaded=1");
  const uint64_t inline_handler = context_switches("0", "--set /proc/irq/14/ide0/threaded=0");
  EXPECT_LT(inline_handler, threaded);
}

// hardirq_preemption=1: do_IRQ for ide0 only acks the line and wakes its thread, so
// the interrupts-off time in hardirq context for IRQ 14 shrinks; the timer stays.
TEST(IrqThreading, ThreadedIdeLineSpendsLessTimeInHardirqContext) {
  const auto on = metrics("hp1", "--set kernel.hardirq_preemption=1");
  const auto off = metrics("hp0", "--set kernel.hardirq_preemption=0");
  EXPECT_EQ(on["irqs"]["14"]["threaded"], true);
  EXPECT_EQ(off["irqs"]["14"]["threaded"], false);
  const double on_max = on["irqs"]["14"]["max_hardirq_us"];
  const double off_max = off["irqs"]["14"]["max_hardirq_us"];
  EXPECT_LT(on_max * 2, off_max);
  EXPECT_LT(double(on["irqs"]["14"]["hardirq_total_us"]) * 2,
            double(off["irqs"]["14"]["hardirq_total_us"]));
  EXPECT_EQ(on["irqs"]["0"]["threaded"], false);  // the timer is never threaded
}

// softirq_preemption=1 sends every softirq to ksoftirqd/N; with 0 they run inline
// on the way out of the interrupt (irq_exit -> do_softirq).
TEST(IrqThreading, SoftirqPreemptionMovesSoftirqsIntoKsoftirqd) {
  const auto on = metrics("sp1", "--set kernel.softirq_preemption=1");
  const auto off = metrics("sp0", "--set kernel.softirq_preemption=0");
  EXPECT_EQ(on["softirqs"]["inline_runs"], 0);
  EXPECT_GT(on["softirqs"]["ksoftirqd_runs"], 1000);
  EXPECT_GT(off["softirqs"]["inline_runs"], 1000);
  EXPECT_LT(off["softirqs"]["ksoftirqd_runs"], off["softirqs"]["inline_runs"]);
}

// VP softirq_preemption: ksoftirqd runs the handlers preemptible, without SOFTIRQ_OFFSET
// (seed 000's rtl8139_poll trace shows count 00000001 under net_rx_action); inline
// softirqs (softirq_preemption=0) carry it.
TEST(IrqThreading, VpKsoftirqdRunsHandlersWithoutTheSoftirqCount) {
  const auto threaded = trace_counts("vpks1", "--set kernel.softirq_preemption=1");
  const auto inline_runs = trace_counts("vpks0", "--set kernel.softirq_preemption=0");
  ASSERT_GT(threaded.size(), 1000u);
  auto in_softirq = [](const std::vector<uint32_t>& v) {
    return std::count_if(v.begin(), v.end(), [](uint32_t c) { return (c & 0xff00u) != 0; });
  };
  EXPECT_EQ(in_softirq(threaded), 0);
  EXPECT_GT(in_softirq(inline_runs), 100);
}

// Every CPU reports its interrupts-off sections, whoever cleared IF; the longest is
// at least as long as the longest hardirq handler run (which runs with IF clear).
TEST(IrqThreading, IrqsOffSectionsCoverTheLongestHardirq) {
  const auto m = metrics("off", "");
  double longest_hardirq = 0;
  for (const auto& [irq, d] : m["irqs"].items())
    longest_hardirq = std::max(longest_hardirq, d["max_hardirq_us"].get<double>());
  double longest_off = 0;
  for (const auto& c : m["cpus"]) {
    EXPECT_GT(c["irqs_off"]["sections"], 1000);
    longest_off = std::max(longest_off, c["irqs_off"]["max_us"].get<double>());
  }
  EXPECT_GT(longest_hardirq, 0.0);
  EXPECT_GE(longest_off, longest_hardirq);
}

nlohmann::json net_in(const std::string& tag, const std::string& args) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-netin-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/tests/tools/data/net-in-softirq.yaml -q --out " + out.string() + " " +
                          args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / "metrics.json");
  auto m = nlohmann::json::parse(in);
  fs::remove_all(out);
  return m["drivers"]["eth0"];
}

// VP -Q5 (seed 000, fixed in -Q8): __netif_rx_schedule in the eth0 thread only sets
// the pending bit; without the thread's wakeup_softirqd the poll waits for the next
// irq_exit on that CPU, the local timer tick: up to one jiffy (1 ms at HZ 1000).
// NAPI keeps the card's RX interrupt masked meanwhile, so frames batch per poll.
TEST(IrqThreading, RedirectSoftirqWakeupBugDelaysNetRxUpToATick) {
  const auto fixed = net_in("q8", "--set kernel.vp_redirect_softirq_wakeup_bug=false");
  const auto bug = net_in("q5", "--set kernel.vp_redirect_softirq_wakeup_bug=true");
  EXPECT_LT(fixed["max_schedule_to_poll_us"].get<double>(), 50.0);
  EXPECT_EQ(fixed["max_packets_per_poll"], 1);
  EXPECT_GT(bug["max_schedule_to_poll_us"].get<double>(), 500.0);
  EXPECT_LT(bug["max_schedule_to_poll_us"].get<double>(), 1050.0);  // the tick wakes it
  EXPECT_GT(bug["max_packets_per_poll"].get<int>(), 4);             // 8 frames per ms
  EXPECT_LT(bug["polls"].get<int>() * 4, fixed["polls"].get<int>());
  EXPECT_EQ(bug["rx_packets"].get<int>() / 100, fixed["rx_packets"].get<int>() / 100);
}

}  // namespace
