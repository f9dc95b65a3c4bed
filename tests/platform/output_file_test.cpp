// The one checked writer and the run's output transaction on their own: a full device is an
// error naming the file, an abandoned transaction leaves nothing, a committed one is whole
// and marked, and temporaries of dead processes go while those of live ones stay.
#include "platform/output_file.h"
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include "platform/output_transaction.h"

namespace fs = std::filesystem;
using latsim::platform::OutputError;
using latsim::platform::OutputFile;
using latsim::platform::OutputTransaction;

namespace {

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("latsim-of-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("LATSIM_DEBUG_WRITE_BUDGET");
    if (!HasFailure()) fs::remove_all(dir_);
  }
  // Every entry of a directory, hidden ones too.
  static std::set<std::string> entries(const fs::path& d) {
    std::set<std::string> s;
    for (const auto& e : fs::directory_iterator(d)) s.insert(e.path().filename().string());
    return s;
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // A pid no process has: a child that has exited and been reaped.
  static pid_t dead_pid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
  }
  fs::path dir_;
};

// /dev/full fails every write with ENOSPC, as a full disk does: the writer says so, with
// the file's name, however short the text (a buffered stream would only find out on close).
TEST_F(OutputFiles, AFullDeviceIsAnErrorNamingTheFile) {
  try {
    latsim::platform::write_file("/dev/full", "a few bytes\n");
    FAIL() << "writing to /dev/full succeeded";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write /dev/full: No space left on device");
  }
  EXPECT_TRUE(fs::exists("/dev/full"));  // a device is never removed as unfinished
}

TEST_F(OutputFiles, AMissingDirectoryIsAnErrorNamingTheFile) {
  try {
    latsim::platform::write_file(dir_ / "no" / "x.txt", "x");
    FAIL() << "writing into a missing directory succeeded";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write " + (dir_ / "no" / "x.txt").string() + ": No such file or directory");
  }
}

TEST_F(OutputFiles, WriteBudgetFailsWritesWithNoSpace) {
  ::setenv("LATSIM_DEBUG_WRITE_BUDGET", "0", 1);
  EXPECT_THROW(latsim::platform::write_file(dir_ / "x.txt", "x"), OutputError);
  EXPECT_FALSE(fs::exists(dir_ / "x.txt"));  // the unfinished file is gone
  ::unsetenv("LATSIM_DEBUG_WRITE_BUDGET");
  latsim::platform::write_file(dir_ / "x.txt", "x");
  EXPECT_EQ(slurp(dir_ / "x.txt"), "x");
}

TEST_F(OutputFiles, AnUnclosedFileIsRemoved) {
  {
    OutputFile f(dir_ / "half.txt");
    f.write("half of it");
  }
  EXPECT_EQ(entries(dir_), std::set<std::string>{});
}

TEST_F(OutputFiles, AtomicWriteReplacesTheFileAndLeavesNoTemporary) {
  latsim::platform::write_file_atomic(dir_ / "r.csv", "one\n");
  latsim::platform::write_file_atomic(dir_ / "r.csv", "two\n");
  EXPECT_EQ(slurp(dir_ / "r.csv"), "two\n");
  EXPECT_EQ(entries(dir_), std::set<std::string>{"r.csv"});
}

TEST_F(OutputFiles, StaleTemporariesOfDeadProcessesGoThoseOfLiveOnesStay) {
  const std::string dead = std::to_string(dead_pid());
  const std::string live = std::to_string(::getpid());
  for (const std::string& d : {".run.tmp-" + dead, ".run.old-" + dead, ".run.tmp-" + live})
    fs::create_directories(dir_ / d / "traces");
  for (const std::string& f : {".t.json.tmp-" + dead, ".p.stderr-" + dead, ".backup-" + dead,
                               std::string(".x.tmp-abc"), std::string("run")})
    std::ofstream(dir_ / f) << "x";
  latsim::platform::remove_stale_temporaries(dir_);
  EXPECT_EQ(entries(dir_),
            (std::set<std::string>{".run.tmp-" + live, ".backup-" + dead, ".x.tmp-abc", "run"}));
}

// A process that has exited but is not reaped yet (its parent was killed, and no init reaps
// orphans in a container) writes nothing more: its temporaries are stale.
TEST_F(OutputFiles, AZombiesTemporariesAreStale) {
  const pid_t zombie = ::fork();
  if (zombie == 0) ::_exit(0);
  std::ofstream(dir_ / (".run.tmp-" + std::to_string(zombie))) << "x";
  for (int i = 0; i < 1000 && latsim::platform::process_alive(zombie); ++i) ::usleep(1000);
  EXPECT_EQ(::kill(zombie, 0), 0);  // still there, as a zombie
  EXPECT_FALSE(latsim::platform::process_alive(zombie));
  latsim::platform::remove_stale_temporaries(dir_);
  EXPECT_EQ(entries(dir_), std::set<std::string>{});
  ::waitpid(zombie, nullptr, 0);
}

TEST_F(OutputFiles, TransactionCommitsAWholeMarkedDirectory) {
  const fs::path out = dir_ / "out" / "run";
  const fs::path timeline = dir_ / "elsewhere" / "t.json";
  {
    OutputTransaction tx(out);
    EXPECT_TRUE(fs::is_directory(tx.temporary_dir()));  // made before anything is written
    tx.write("metrics.json", "{}\n");
    tx.write("traces/max.txt", "trace\n");
    const std::string staged = tx.stage(timeline.string());
    EXPECT_NE(staged, timeline.string());
    latsim::platform::write_file(staged, "[]\n");
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(timeline));
    tx.commit();
  }
  EXPECT_EQ(slurp(out / "metrics.json"), "{}\n");
  EXPECT_EQ(slurp(out / "traces/max.txt"), "trace\n");
  EXPECT_EQ(slurp(out / latsim::platform::kCompleteMarker), "metrics.json\ntraces/max.txt\n");
  EXPECT_TRUE(latsim::platform::run_complete(out));
  EXPECT_EQ(slurp(timeline), "[]\n");
  EXPECT_EQ(entries(dir_ / "out"), std::set<std::string>{"run"});
  EXPECT_EQ(entries(dir_ / "elsewhere"), std::set<std::string>{"t.json"});
}

TEST_F(OutputFiles, TransactionReplacesAnEarlierOutputWhole) {
  const fs::path out = dir_ / "run";
  {
    OutputTransaction tx(out);
    tx.write("old.txt", "old\n");
    tx.commit();
  }
  {
    OutputTransaction tx(out);
    tx.write("new.txt", "new\n");
    tx.commit();
  }
  EXPECT_EQ(entries(out), (std::set<std::string>{"COMPLETE", "new.txt"}));
  EXPECT_EQ(entries(dir_), std::set<std::string>{"run"});
}

TEST_F(OutputFiles, AnAbandonedTransactionLeavesNothing) {
  const fs::path out = dir_ / "run";
  {
    OutputTransaction tx(out);
    tx.write("metrics.json", "{}\n");
    latsim::platform::write_file(tx.stage((dir_ / "t.json").string()), "[");
  }  // destroyed uncommitted: a write failed
  EXPECT_EQ(entries(dir_), std::set<std::string>{});
}

TEST_F(OutputFiles, AFailedWriteInATransactionNamesTheFinalFile) {
  const fs::path out = dir_ / "run";
  OutputTransaction tx(out);
  ::setenv("LATSIM_DEBUG_WRITE_BUDGET", "0", 1);
  try {
    tx.write("dmesg.txt", "Linux version 2.6.9\n");
    FAIL() << "the write succeeded";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write " + (out / "dmesg.txt").string() + ": No space left on device");
  }
}

TEST_F(OutputFiles, AnUnwritableOutputDirectoryFailsWhenTheTransactionBegins) {
  std::ofstream(dir_ / "file") << "a regular file, not a directory";
  try {
    OutputTransaction tx(dir_ / "file" / "run");
    FAIL() << "a transaction began below a regular file";
  } catch (const OutputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot write " + (dir_ / "file" / "run").string(), 0),
              0u)
        << e.what();
  }
}

}  // namespace
