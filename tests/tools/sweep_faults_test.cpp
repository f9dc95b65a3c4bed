// A sweep on a full disk and killed with -9 at seeded moments: a point directory is there
// only when it is whole (it holds its completion marker), `--resume` redoes exactly the
// points that are not, and ends byte-identical to an uninterrupted sweep. A point of an
// older latsim (metrics.json without the marker) is redone as well, and sweep-merge does
// not take it.
#include <sys/mount.h>

#include <random>

#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

constexpr size_t kPoints = 4;

std::vector<std::string> grid_args(const std::string& out) {
  return {"sweep", kScenario, "--param", kMaxSectors + "=4..32*2", "--duration", "500ms", "-j", "2",
          "-q",    "--out",   out};
}

class SweepFaults : public Sweep {
 protected:
  void TearDown() override {
    if (mounted_) ::umount2(mounted_->c_str(), MNT_DETACH);
    Sweep::TearDown();
  }

  // The point directories of `dir` (not the hidden temporaries): each must be marked
  // complete and hold what the same point of `whole` holds. Returns how many there are.
  static size_t expect_whole_points(const fs::path& dir, const fs::path& whole) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "points", ec)) {
      const std::string id = e.path().filename().string();
      if (id[0] == '.' || !e.is_directory()) continue;
      ++n;
      EXPECT_TRUE(fs::exists(e.path() / "COMPLETE")) << id;
      EXPECT_EQ(differences(snapshot(e.path()), snapshot(whole / "points" / id)), "") << id;
    }
    return n;
  }

  // --resume runs exactly the points that are not there and ends as `whole` did.
  void resume_and_compare(const fs::path& dir, const fs::path& whole, size_t kept) {
    auto args = grid_args(dir.string());
    args.push_back("--resume");
    const Result r = latsim(args);
    ASSERT_EQ(r.code, 0) << r;
    const json info = read_json(dir / "sweep-run-info.json");
    EXPECT_EQ(info["already_finished"], kept);
    EXPECT_EQ(info["run"], kPoints - kept);
    EXPECT_EQ(finished_points(dir), kPoints);
    EXPECT_EQ(hidden_points(dir), std::vector<std::string>{});
    expect_same_results(whole, dir);
  }

  std::optional<fs::path> mounted_;
};

TEST_F(SweepFaults, KillAtRandomMomentsThenResumeIsByteIdentical) {
  const auto t0 = std::chrono::steady_clock::now();
  const Result whole = latsim(grid_args("whole"));
  ASSERT_EQ(whole.code, 0) << whole;
  const auto wall = std::chrono::steady_clock::now() - t0;  // spreads the kill moments only
  std::mt19937 random(1);
  for (int trial = 0; trial < 3; ++trial) {
    const fs::path dir = dir_ / ("cut-" + std::to_string(trial));
    const pid_t pid = start(grid_args(dir.string()));
    std::this_thread::sleep_for(wall * (random() % 1000) / 1000);
    ::kill(pid, SIGKILL);
    wait_for(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // its children die with it
    const size_t kept = expect_whole_points(dir, dir_ / "whole");
    resume_and_compare(dir, dir_ / "whole", kept);
  }
}

// The sweep's file system fills up halfway: points that could not be written are not
// there, and --resume on the enlarged file system completes it. Skipped where this process
// may not mount.
TEST_F(SweepFaults, AFullTmpfsThenResumeIsByteIdentical) {
  const Result whole = latsim(grid_args("whole"));
  ASSERT_EQ(whole.code, 0) << whole;
  size_t total = 0;
  for (const auto& kv : snapshot(dir_ / "whole")) total += kv.second.size();

  const fs::path at = dir_ / "fs";
  fs::create_directories(at);
  const std::string size = "size=" + std::to_string(total / 2);
  if (::mount("tmpfs", at.c_str(), "tmpfs", 0, size.c_str()) != 0)
    GTEST_SKIP() << "mount -t tmpfs not permitted here";
  mounted_ = at;
  const Result full = latsim(grid_args((at / "sw").string()));
  EXPECT_NE(full.code, 0) << full;
  const size_t kept = expect_whole_points(at / "sw", dir_ / "whole");
  EXPECT_LT(kept, kPoints);
  ASSERT_EQ(::mount("tmpfs", at.c_str(), "tmpfs", MS_REMOUNT, "size=64m"), 0);
  resume_and_compare(at / "sw", dir_ / "whole", kept);
}

// A point directory without the marker (an older latsim's, which wrote none) is not
// finished: --resume runs it again, sweep-merge leaves it out.
TEST_F(SweepFaults, APointWithoutItsMarkerIsRedoneAndNotMerged) {
  const Result whole = latsim(grid_args("whole"));
  ASSERT_EQ(whole.code, 0) << whole;
  fs::copy(dir_ / "whole", dir_ / "old", fs::copy_options::recursive);
  fs::remove(dir_ / "old" / ".lock");
  const auto pts = dry_run({"--param", kMaxSectors + "=4..32*2", "--duration", "500ms"});
  ASSERT_EQ(pts.size(), kPoints);
  fs::remove(dir_ / "old" / "points" / pts[1].id / "COMPLETE");
  ASSERT_TRUE(fs::exists(dir_ / "old" / "points" / pts[1].id / "metrics.json"));

  const Result merged = latsim({"sweep-merge", "old", "--out", "merged", "-q"});
  EXPECT_EQ(merged.code, 1) << merged;
  EXPECT_TRUE(contains(merged.err, "1 of 4 points are in none of the directories")) << merged;
  EXPECT_FALSE(fs::exists(dir_ / "merged" / "points" / pts[1].id));

  resume_and_compare(dir_ / "old", dir_ / "whole", kPoints - 1);
}

}  // namespace
}  // namespace sweep_test
