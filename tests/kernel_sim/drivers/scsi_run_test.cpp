// The 2.4 SCSI path end to end through the real binary: seed 001's dbench scenario with
// the disk behind the AIC-7880 (platform.disk.adapter aic7xxx). scsi_request_fn queues
// tagged commands up to the aic7xxx tag depth, every one completes through the
// interrupt handler and the SCSI bottom half, and the data moves as the adapter's own
// bus-master traffic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

nlohmann::json run(const std::string& tag, const std::string& args) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-scsi-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/preempt-2.4-dbench.yaml -q --duration 6s "
                          "--set platform.disk.adapter=aic7xxx --out " +
                          out.string() + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / "metrics.json");
  return nlohmann::json::parse(in);
}

TEST(Aic7xxxDriver, TaggedCommandsCompleteThroughTheBottomHalf) {
  const auto m = run("tags", "");
  const auto& d = m["disk"];
  const auto& s = d["scsi"];
  ASSERT_TRUE(s.is_object());
  EXPECT_GT(s["commands"].get<uint64_t>(), 0u);
  EXPECT_EQ(d["ide_commands"].get<uint64_t>(), 0u);  // the IDE channel has no disk
  EXPECT_GT(s["max_outstanding"].get<uint64_t>(), 1u);
  EXPECT_LE(s["max_outstanding"].get<uint64_t>(), 32u);  // the tag depth
  EXPECT_GT(s["irqs"].get<uint64_t>(), 0u);
  EXPECT_GT(s["disconnects"].get<uint64_t>(), 0u);
  // Each command is one request the block layer queued (some still queued at the end).
  EXPECT_LE(s["commands"].get<uint64_t>(),
            d["read_requests"].get<uint64_t>() + d["write_requests"].get<uint64_t>());
  EXPECT_GT(s["bytes_written"].get<uint64_t>(), 0u);
  const auto& masters = m["pci"]["masters"];
  ASSERT_TRUE(masters.contains("scsi")) << masters.dump();
  EXPECT_GT(masters["scsi"]["busy_us"].get<double>(), 0.0);
}

TEST(Aic7xxxDriver, TagDepthOneKeepsOneCommandAtTheAdapter) {
  const auto m = run("depth1", "--set kernel.aic7xxx.tag_depth=1");
  EXPECT_EQ(m["disk"]["scsi"]["max_outstanding"].get<uint64_t>(), 1u);
  EXPECT_GT(m["disk"]["scsi"]["commands"].get<uint64_t>(), 0u);
}

}  // namespace
