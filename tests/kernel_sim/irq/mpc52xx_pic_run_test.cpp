// Seed 002's board through arch/powerpc/sysdev/mpc52xx_pic: the BestComm tasks' SDMA
// interrupts are virqs from 16 on the "MPC52xx SDMA" chip, /proc/interrupts prints them as
// the powerpc show_interrupts does, nothing fires IRQ 0, and the decrementer keeps the tick.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct PicRun {
  nlohmann::json metrics;
  std::string interrupts;
};

PicRun run(const std::string& tag, const std::string& args) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-mpcpic-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/mpc5200-rcu-nfs.yaml -q --duration 300ms --out " +
                          out.string() + " --set workload.2.enabled=false " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  PicRun r;
  std::ifstream in(out / "metrics.json");
  r.metrics = nlohmann::json::parse(in);
  std::ifstream txt(out / "interrupts.txt");
  std::stringstream ss;
  ss << txt.rdbuf();
  r.interrupts = ss.str();
  fs::remove_all(out);
  return r;
}

TEST(Mpc52xxPicRun, SdmaTasksAreVirqsOnTheSdmaChip) {
  const PicRun r = run("chips", "");
  EXPECT_NE(r.interrupts.find(" 16: "), std::string::npos) << r.interrupts;
  EXPECT_NE(r.interrupts.find("MPC52xx SDMA Level     mpc52xx-fec_rx"), std::string::npos);
  EXPECT_NE(r.interrupts.find("MPC52xx SDMA Level     mpc52xx-fec_tx"), std::string::npos);
  EXPECT_EQ(r.interrupts.find("IO-APIC"), std::string::npos) << r.interrupts;
  EXPECT_EQ(r.interrupts.find("timer"), std::string::npos);  // no IRQ 0 on this board
  EXPECT_NE(r.interrupts.find("BAD:"), std::string::npos);
  EXPECT_GT(r.metrics["irqs"]["16"]["count"].get<uint64_t>(), 100u);
  EXPECT_FALSE(r.metrics["irqs"].contains("0"));
}

// The decrementer is the tick: one per jiffy at HZ=1000, jiffies advanced on CPU0.
TEST(Mpc52xxPicRun, TheDecrementerKeepsTheTick) {
  const PicRun r = run("tick", "");
  const uint64_t ticks = r.metrics["ticks"]["handled"];
  EXPECT_GE(ticks, 298u);
  EXPECT_LE(ticks, 300u);
  EXPECT_GT(r.metrics["workloads"]["cyclictest"]["count"].get<uint64_t>(), 250u);
}

}  // namespace
