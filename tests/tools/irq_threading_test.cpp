// /proc/irq/14/ide0/threaded (VP): with 0, ide_intr runs in hardirq context and
// the "IRQ 14" thread is never switched to, so the run has fewer context switches.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

uint64_t context_switches(const std::string& tag, const std::string& args) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-irqthr-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/disk-dma-kernel-build.yaml -q --duration 2s --out " +
                          out.string() + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / "metrics.json");
  const uint64_t n = nlohmann::json::parse(in)["scheduler"]["context_switches"];
  fs::remove_all(out);
  return n;
}

TEST(IrqThreading, UnthreadedIdeHandlerSavesTheThreadSwitches) {
  const uint64_t threaded = context_switches("1", "--set /proc/irq/14/ide0/threaded=1");
  const uint64_t inline_handler = context_switches("0", "--set /proc/irq/14/ide0/threaded=0");
  EXPECT_LT(inline_handler, threaded);
}

}  // namespace
