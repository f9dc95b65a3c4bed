// PREEMPT_RT's sleeping spinlocks under contention, through the real binary: four
// unpinned cyclictest -x threads share the process's sighand->siglock, so a thread
// entering rt_spin_lock's slow path can find the lock released before it queues itself.
#include <gtest/gtest.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

TEST(RtSpinLock, OwnerReleasingDuringTheSlowPathLeavesTheLockToTheWaiter) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-rt-spin-lock-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/rt-posix-timers.yaml --duration 50ms --set "
                          "workload.0.threads=4 -q --out " +
                          out.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  EXPECT_TRUE(fs::exists(out / "metrics.json"));
  fs::remove_all(out);
}

}  // namespace
