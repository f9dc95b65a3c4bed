// fpu.* from a real run of the seed 004 scenario (Athlon MMX routines on 2.4.10-preempt,
// dbench and the FPU-decoding MP3 player), without and with the Athlon patch: the lazy
// switch's traps and saves, the MMX sections, and the patch's own accounting.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

nlohmann::json run(const std::string& patch) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-fpu-" + patch + "-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/athlon-mmx-preempt.yaml -q --duration 4s --set "
                          "kernel.fpu.athlon_patch=" +
                          patch + " --out " + out.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / "metrics.json");
  nlohmann::json m = nlohmann::json::parse(in);
  fs::remove_all(out);
  return m;
}

TEST(FpuRun, MmxSectionsTrapsAndThePatch) {
  const auto plain = run("false")["fpu"];
  const auto patched = run("true")["fpu"];
  EXPECT_GT(plain["nm_traps"].get<uint64_t>(), 0u);  // the player's switches
  EXPECT_EQ(plain["nm_traps"], plain["saves"]);
  EXPECT_GT(plain["kernel_fpu_sections"].get<uint64_t>(), 0u);  // buffer clears, journal copies
  EXPECT_GT(plain["preemptible_ms"].get<double>(), 0.0);        // the clears: preemption on
  EXPECT_EQ(patched["corrupted"].get<uint64_t>(), 0u);
  EXPECT_EQ(patched["switched_inside"].get<uint64_t>(), 0u);
  EXPECT_EQ(plain["corrupted"].get<uint64_t>(),
            plain["corrupted_user"].get<uint64_t>() + plain["corrupted_kernel"].get<uint64_t>());
}

}  // namespace
