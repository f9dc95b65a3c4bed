// A sweep declared in the scenario (sweep: block) is what `latsim sweep` runs when
// given no --param; `latsim run` accepts the file and ignores the block.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

namespace {

std::string capture(const std::string& cmd, int* status) {
  std::array<char, 4096> buf;
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  while (p && fgets(buf.data(), int(buf.size()), p.get())) out += buf.data();
  *status = pclose(p.release());
  return out;
}

const std::string kFile = std::string(LATSIM_SOURCE_DIR) + "/tests/tools/data/sweep-block.yaml";

TEST(SweepBlock, ScenarioSweepIsTheGridWithoutParams) {
  int status = 0;
  const std::string out =
      capture(std::string(LATSIM_BINARY) + " sweep " + kFile + " --dry-run 2>&1", &status);
  EXPECT_EQ(status, 0) << out;
  // 2 max_sectors values x 2 read_ahead values x 2 seeds.
  EXPECT_NE(out.find("8 points"), std::string::npos) << out;
  EXPECT_NE(out.find("/sys/block/hda/queue/max_sectors_kb=128"), std::string::npos) << out;
  EXPECT_NE(out.find("seed=2"), std::string::npos) << out;
}

TEST(SweepBlock, CommandLineParamsWin) {
  int status = 0;
  const std::string out = capture(std::string(LATSIM_BINARY) + " sweep " + kFile +
                                      " --dry-run --seeds 1 --param kernel.hz=100,1000 2>&1",
                                  &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("2 points"), std::string::npos) << out;
  EXPECT_EQ(out.find("max_sectors_kb="), std::string::npos) << out;
}

TEST(SweepBlock, RunIgnoresItAndSetCannotChangeIt) {
  int status = 0;
  std::string out = capture(std::string(LATSIM_BINARY) + " validate " + kFile + " 2>&1", &status);
  EXPECT_EQ(status, 0) << out;
  out = capture(std::string(LATSIM_BINARY) + " validate " + kFile + " --set sweep.seeds=3 2>&1",
                &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("--set sweep.seeds=3: error: sweep.seeds: is swept, not set"),
            std::string::npos)
      << out;
}

}  // namespace
