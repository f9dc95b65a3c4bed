// latencytest's longest CPU loop per phase (metrics.json phases.<p>.max_cpu_loop):
// the loop's CPU time by class, by interrupt source and by stall cause, end to end
// through the real binary. The loop itself never stalls (it stays in L1), so its
// stretch must be the interrupts the breakdown names.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

TEST(LatencytestLoopBreakdown, LongestLoopIsItsUserTimePlusItsInterrupts) {
  const fs::path out = fs::temp_directory_path() / ("latsim-ltloop-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/tests/tools/data/latencytest-under-dma.yaml -q --out " + out.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / "metrics.json");
  const auto lt = nlohmann::json::parse(in)["workloads"]["latencytest"];
  const double nominal = lt["cpu_loop_ms"].get<double>();
  for (const auto& [name, ph] : lt["phases"].items()) {
    const auto& l = ph["max_cpu_loop"];
    const double loop = nominal + ph["max_cpu_delta_ms"].get<double>();
    auto v = [&](const char* k) { return l.contains(k) ? l[k].get<double>() : 0.0; };
    // The loop's calibrated cycles, all of them user time on the CPU it started on.
    EXPECT_NEAR(v("user_ms"), nominal, 0.002) << name;
    // Nothing else ran there: the rest is interrupt time (and the kernel's entries).
    EXPECT_NEAR(v("user_ms") + v("kernel_ms") + v("irq_ms") + v("softirq_ms"), loop, 0.003) << name;
    EXPECT_EQ(v("context_switches"), 0.0) << name;
    // Interrupt time by source, entry to exit, adds up to all of the loop's time outside
    // user mode: hardirq context, and the kernel-mode entry and exit around it (irq_exit's
    // softirq work, which under DMA can stall too: ksoftirqd's wakeup on a held-off line).
    double by_source = v("local_timer_ms") + v("nmi_ms") + v("ipi_ms");
    for (int irq = 0; irq < 24; ++irq)
      by_source += v(("irq" + std::to_string(irq) + "_ms").c_str());
    EXPECT_NEAR(by_source, v("irq_ms") + v("kernel_ms") + v("softirq_ms"), 0.005) << name;
    EXPECT_LE(v("irq_ms"), by_source + 0.001) << name;
    EXPECT_GE(v("interrupts"), 1.0) << name;             // a 1.16 ms loop always meets a tick
    EXPECT_GE(l["start_s"].get<double>(), 0.5) << name;  // after the warm-up
  }
  // The longest write-to-write interval is dated by the write that ended it, inside its
  // phase's window (0.5 s warm-up, then phases of 0.2 s in the tool's order).
  const char* order[] = {"x11",        "proc",      "net_out",  "net_in",
                         "disk_write", "disk_copy", "disk_read"};
  for (int i = 0; i < 7; ++i) {
    const double at = lt["phases"][order[i]]["max_write_at_s"].get<double>();
    EXPECT_GE(at, 0.5 + 0.2 * i) << order[i];
    EXPECT_LT(at, 0.5 + 0.2 * (i + 1)) << order[i];
  }
  // The background read runs through every phase: the run's longest loop is stretched by
  // bus-master DMA, misses held off the FSB.
  std::string worst;
  for (const auto& [name, ph] : lt["phases"].items())
    if (worst.empty() || ph["max_cpu_delta_ms"].get<double>() >
                             lt["phases"][worst]["max_cpu_delta_ms"].get<double>())
      worst = name;
  EXPECT_GT(lt["phases"][worst]["max_cpu_loop"].value("stall_memory_ms", 0.0), 0.05) << worst;
  fs::remove_all(out);
}

}  // namespace
