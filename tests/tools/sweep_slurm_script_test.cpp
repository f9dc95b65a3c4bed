// tools/sweep-slurm.sh without a cluster: the sbatch commands it prints (-d) and submits to a
// stand-in sbatch, with a stand-in scontrol for MaxArraySize. The real cluster is
// tests/tools/slurm_cluster.sh (ctest -L slurm).
#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

const std::string kScript = kSource + "/tools/sweep-slurm.sh";

class SweepSlurm : public Sweep {
 protected:
  void SetUp() override {
    Sweep::SetUp();
    fs::create_directories(dir_ / "bin");
    max_array("");
    // Prints job ids 101, 102, ... and logs its arguments, one call a line.
    write_program("sbatch",
                  "n=$(($(cat next 2>/dev/null || echo 100) + 1)); echo $n >next\n"
                  "printf '%s\\n' \"$*\" >>sbatch.log\n"
                  "case \" $* \" in *\" --parsable \"*) echo $n ;; "
                  "*) echo \"Submitted batch job $n\" ;; esac\n");
  }

  void write_program(const std::string& name, const std::string& body) {
    const fs::path p = dir_ / "bin" / name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    fs::permissions(p, fs::perms::owner_all);
  }

  // The cluster's MaxArraySize as `scontrol show config` prints it; "": scontrol fails (no
  // cluster reachable).
  void max_array(const std::string& n) {
    write_program("scontrol", n.empty() ? "exit 1\n"
                                        : "echo 'MaxJobCount             = 10000'\n"
                                          "echo 'MaxArraySize            = " +
                                              n + "'\n");
  }

  // tools/sweep-slurm.sh OPTIONS... kScenario SWEEP_ARGS...
  Result script(const std::vector<std::string>& options,
                const std::vector<std::string>& sweep_args) {
    std::string cmd = "PATH=" + sh_quote((dir_ / "bin").string()) +
                      ":\"$PATH\" LATSIM=" + sh_quote(kBinary) + " " + sh_quote(kScript);
    for (const auto& a : options) cmd += " " + sh_quote(a);
    cmd += " " + sh_quote(kScenario);
    for (const auto& a : sweep_args) cmd += " " + sh_quote(a);
    return shell(cmd);
  }

  std::vector<std::string> sbatch_calls() { return lines_of(slurp(dir_ / "sbatch.log")); }
};

// 6 points.
const std::vector<std::string> kGrid{
    "--param", kMaxSectors + "=16,64,128", "--param", kReadAhead + "=32,128", "--duration", "100s"};

TEST_F(SweepSlurm, DryRunPrintsAThrottledArrayAndAMergeJobWithItsOwnResources) {
  const Result r =
      script({"-d", "-n", "3", "-c", "2", "-r", "5", "-o", "out", "-b", "--partition=p",
              "--array-sbatch", "--account=a", "--merge-sbatch", "--qos=q"},
             kGrid);
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(r.err, "") << r;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  const std::string& array = lines[0];
  const std::string& merge = lines[1];
  // 2 points a task, 2 at a time: one after the other, (100 s + 2 s) + 10 min -> 12 min.
  for (const char* want :
       {"sbatch --parsable ", " --array=0-2%5 ", " --cpus-per-task=2 ", " --time=12 ",
        " --partition=p ", " --account=a ", "--shard\\ \\\"\\$k/3\\\"", "--resume\\ -j\\ 2",
        "\\'--keep\\'\\ \\'metrics\\'", "SLURM_ARRAY_TASK_ID\\ +\\ 0"})
    EXPECT_TRUE(contains(array, want)) << want << " in " << array;
  EXPECT_FALSE(contains(array, "--qos") || contains(array, "--dependency")) << array;
  // The merge: one CPU, its memory, 6 points * 0.1 s + 10 min -> 11 min, after the array.
  for (const std::string& want : std::vector<std::string>{
           "sbatch --job-name=latsim-sweep-merge ", " --dependency=afterany:ARRAY0 ",
           " --ntasks=1 ", " --cpus-per-task=1 ", " --mem=1G ", " --time=11 ", " --partition=p ",
           " --qos=q ", "sweep-merge\\ \\'" + (dir_ / "out" / "shard-0").string(), "--out\\ \\'"})
    EXPECT_TRUE(contains(merge, want)) << want << " in " << merge;
  EXPECT_FALSE(contains(merge, "--account") || contains(merge, "--array")) << merge;
  EXPECT_FALSE(fs::exists(dir_ / "out")) << "-d writes nothing";
}

TEST_F(SweepSlurm, MoreShardsThanMaxArraySizeMakeSeveralArrays) {
  max_array("2");
  // Unthrottled: the arrays are independent; the merge waits for all three.
  Result r = script({"-d", "-n", "5", "-t", "1:00:00"}, kGrid);
  ASSERT_EQ(r.code, 0) << r;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r;
  const char* ranges[] = {"--array=0-1 ", "--array=0-1 ", "--array=0-0 "};
  const char* offsets[] = {"+\\ 0\\)", "+\\ 2\\)", "+\\ 4\\)"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(contains(lines[i], ranges[i])) << lines[i];
    EXPECT_TRUE(contains(lines[i], offsets[i])) << lines[i];
    EXPECT_TRUE(contains(lines[i], "--time=1:00:00 ")) << lines[i];
    EXPECT_TRUE(contains(lines[i], "/5\\\"")) << lines[i];
    EXPECT_FALSE(contains(lines[i], "--dependency")) << lines[i];
  }
  EXPECT_TRUE(contains(lines[3], "--dependency=afterany:ARRAY0:ARRAY1:ARRAY2 ")) << lines[3];

  // Throttled: each array waits for the previous one, so that the throttle holds overall.
  r = script({"-d", "-n", "5", "-r", "2"}, kGrid);
  ASSERT_EQ(r.code, 0) << r;
  lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r;
  EXPECT_FALSE(contains(lines[0], "--dependency")) << lines[0];
  EXPECT_TRUE(contains(lines[1], "--array=0-1%2 --cpus-per-task")) << lines[1];
  EXPECT_TRUE(contains(lines[1], "--dependency=afterany:ARRAY0 ")) << lines[1];
  EXPECT_TRUE(contains(lines[2], "--dependency=afterany:ARRAY1 ")) << lines[2];
}

TEST_F(SweepSlurm, SubmitsTheArraysThenTheMergeAfterTheirJobIds) {
  max_array("2");
  const Result r = script({"-n", "3", "-r", "1", "-w", "-o", "out"}, kGrid);
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_TRUE(contains(r.out, "submitted array job(s) 101 102: 3 shards of 6 points")) << r;
  EXPECT_TRUE(contains(r.out, "Submitted batch job 103")) << r;
  EXPECT_TRUE(fs::is_directory(dir_ / "out")) << "Slurm writes its logs there";
  const auto calls = sbatch_calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_TRUE(contains(calls[0], "--array=0-1%1 ")) << calls[0];
  EXPECT_TRUE(contains(calls[1], "--array=0-0%1 ")) << calls[1];
  EXPECT_TRUE(contains(calls[1], "--dependency=afterany:101 ")) << calls[1];
  // The shard a task runs is its index plus its array's offset.
  EXPECT_TRUE(contains(calls[1], "k=$((SLURM_ARRAY_TASK_ID + 2)); exec ")) << calls[1];
  EXPECT_TRUE(contains(calls[2], "--dependency=afterany:101:102 ")) << calls[2];
  EXPECT_TRUE(contains(calls[2], " --wait ")) << calls[2];
}

TEST_F(SweepSlurm, KeepGivenIsPassedAsGivenAndShardsAreAtMostThePoints) {
  auto grid = kGrid;
  grid.insert(grid.end(), {"--keep", "traces"});
  const Result r = script({"-d", "-n", "10"}, grid);
  ASSERT_EQ(r.code, 0) << r;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r;
  EXPECT_TRUE(contains(lines[0], "\\'--keep\\'\\ \\'traces\\'")) << lines[0];
  EXPECT_FALSE(contains(lines[0], "metrics")) << lines[0];
  EXPECT_TRUE(contains(lines[0], "--array=0-5 ")) << lines[0];  // 6 points, 6 shards
  EXPECT_TRUE(contains(lines[1], "shard-5") && !contains(lines[1], "shard-6")) << lines[1];
}

TEST_F(SweepSlurm, BadInputFailsBeforeAnythingIsSubmitted) {
  struct Case {
    std::vector<std::string> options, sweep;
    int code;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"-n", "0"}, kGrid, 2, "--shards takes a positive integer, not '0'"},
      {{"--max-running", "x"}, kGrid, 2, "--max-running takes a positive integer, not 'x'"},
      {{"--frobnicate"}, kGrid, 2, "unknown option --frobnicate"},
      {{"-t"}, {}, 2, "-t needs a value"},
      {{}, {"--param", "cpus.count=1..x"}, 255, "`1..x` is not a range"},
      {{}, {"--keep", "some"}, 255, "--keep: `some` is not one of metrics, traces, all"},
  };
  for (const auto& c : cases) {
    const Result r = c.options == std::vector<std::string>{"-t"} ? shell(sh_quote(kScript) + " -t")
                                                                 : script(c.options, c.sweep);
    EXPECT_EQ(r.code, c.code) << r;
    EXPECT_TRUE(contains(r.err, c.message)) << c.message << "\n" << r;
  }
  EXPECT_FALSE(fs::exists(dir_ / "sbatch.log")) << "nothing submitted";
}

}  // namespace
}  // namespace sweep_test
