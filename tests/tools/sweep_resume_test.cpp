// An interrupted sweep (killed, or stopped with SIGINT as Ctrl-C does) loses at most the
// points in flight, and `--resume` finishes it with the same results as an uninterrupted run.
#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

// Six points of about 0.3 s each, one at a time: about 2 s in all.
std::vector<std::string> grid_args(const std::string& out) {
  return {"sweep", kScenario, "--param", kMaxSectors + "=4..128*2", "--duration", "2s", "-j", "1",
          "-q",    "--out",   out};
}

class SweepResume : public Sweep {
 protected:
  // Start the sweep, stop it with `sig` once `finished` points are done, resume it, and
  // compare with an uninterrupted run.
  void interrupt_and_resume(int sig, int expected_code) {
    const Result whole = latsim(grid_args("whole"));
    ASSERT_EQ(whole.code, 0) << whole;

    const fs::path dir = dir_ / "cut";
    const pid_t pid = start(grid_args(dir.string()));
    ASSERT_GT(pid, 0);
    const auto t0 = std::chrono::steady_clock::now();
    while (finished_points(dir) < 2 &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::kill(pid, sig);
    const int code = wait_for(pid);
    EXPECT_EQ(code, expected_code) << slurp(async_err_);
    // Nothing goes on writing once the sweep is gone (its children die with it).
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    const size_t kept = finished_points(dir);
    ASSERT_GE(kept, 2u);
    ASSERT_LT(kept, 6u) << "the sweep finished before it could be interrupted; make the points "
                           "longer";
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    EXPECT_EQ(finished_points(dir), kept);
    EXPECT_FALSE(fs::exists(dir / "results.csv"));

    auto args = grid_args(dir.string());
    args.push_back("--resume");
    const Result resumed = latsim(args);
    ASSERT_EQ(resumed.code, 0) << resumed;
    EXPECT_EQ(resumed.err, "") << resumed;
    const json info = read_json(dir / "sweep-run-info.json");
    EXPECT_EQ(info["already_finished"], kept);
    EXPECT_EQ(info["run"], 6 - kept);
    EXPECT_EQ(finished_points(dir), 6u);
    EXPECT_EQ(hidden_points(dir), std::vector<std::string>{});
    expect_same_results(dir_ / "whole", dir);
  }
};

TEST_F(SweepResume, KillHalfwayThenResumeIsByteIdentical) {
  interrupt_and_resume(SIGKILL, 128 + SIGKILL);
}

TEST_F(SweepResume, InterruptHalfwayThenResumeIsByteIdentical) {
  interrupt_and_resume(SIGINT, 128 + SIGINT);
  // It said how to go on.
  EXPECT_TRUE(contains(slurp(async_err_), "with --resume")) << slurp(async_err_);
}

}  // namespace
}  // namespace sweep_test
