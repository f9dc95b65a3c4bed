// `latsim run` on a full disk and under kill -9: every run either exits 0 with all its
// outputs whole (the directory, its completion marker, the streamed timeline and VCD), or
// leaves nothing that looks finished; what a killed run leaves is removed by the next run
// into the same place; an unwritable --out fails before anything is simulated.
#include <sys/mount.h>

#include <random>

#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

// The parts a run publishes, each of which must be whole or absent: the directory and
// every streamed file.
std::string unit_of(const std::string& name) { return name.substr(0, name.find('/')); }

class RunFaults : public Sweep {
 protected:
  void TearDown() override {
    if (mounted_) ::umount2(mounted_->c_str(), MNT_DETACH);
    Sweep::TearDown();
  }

  // A run of 200 ms into PARENT/run, with a timeline (and its ftrace text) and a VCD beside.
  std::vector<std::string> run_args(const fs::path& parent) {
    return {"run",
            kScenario,
            "--duration",
            "200ms",
            "-q",
            "--out",
            (parent / "run").string(),
            "--timeline",
            (parent / "t.json").string(),
            "--vcd",
            (parent / "w.vcd").string()};
  }

  // A finished run's whole output into `parent`, after checking it is marked complete.
  Files reference(const fs::path& parent) {
    fs::create_directories(parent);
    const Result r = latsim(run_args(parent));
    EXPECT_EQ(r.code, 0) << r;
    const Files whole = snapshot(parent);
    EXPECT_TRUE(whole.count("run/COMPLETE")) << differences(whole, {});
    EXPECT_TRUE(whole.count("t.json") && whole.count("t.ftrace.txt") && whole.count("w.vcd"));
    for (const auto& [name, bytes] : whole)
      EXPECT_NE(name[0], '.') << "a finished run left a temporary: " << name;
    return whole;
  }

  // After a failed run: nothing at all, not even a temporary.
  static void expect_nothing(const fs::path& parent, const Result& r) {
    const Files got = snapshot(parent);
    EXPECT_TRUE(got.empty()) << "a failed run left:\n" << differences(got, {}) << r;
  }

  // After a killed run: each visible part whole or absent; temporaries may stay.
  static size_t expect_no_partial_output(const Files& got, const Files& whole) {
    std::set<std::string> units;
    size_t temporaries = 0;
    for (const auto& [name, bytes] : got) {
      if (name[0] == '.') {
        ++temporaries;
        continue;
      }
      units.insert(unit_of(name));
      EXPECT_TRUE(whole.count(name) && whole.at(name) == bytes) << name << " is not whole";
    }
    for (const auto& [name, bytes] : whole)
      EXPECT_TRUE(!units.count(unit_of(name)) || got.count(name))
          << unit_of(name) << " looks finished but lacks " << name;
    return temporaries;
  }

  bool mount_tmpfs(const fs::path& at, const std::string& size, bool remount = false) {
    fs::create_directories(at);
    const std::string opts = "size=" + size;
    if (::mount("tmpfs", at.c_str(), "tmpfs", remount ? MS_REMOUNT : 0, opts.c_str()) != 0)
      return false;
    mounted_ = at;
    return true;
  }

  std::optional<fs::path> mounted_;
};

// Writes fail with ENOSPC after a budget of bytes, at 21 levels from nothing to all of it.
TEST_F(RunFaults, EveryWriteBudgetGivesAWholeRunOrNothing) {
  const fs::path parent = dir_ / "b";
  const Files whole = reference(parent);
  size_t total = 0;
  for (const auto& kv : whole) total += kv.second.size();
  size_t ok = 0, failed = 0;
  for (size_t i = 0; i <= 20; ++i) {
    fs::remove_all(parent);
    fs::create_directories(parent);
    const size_t budget = i == 20 ? total + 4096 : total * i / 20;  // run-info.json: a margin
    const Result r =
        latsim(run_args(parent), "LATSIM_DEBUG_WRITE_BUDGET=" + std::to_string(budget));
    if (r.code == 0) {
      ++ok;
      EXPECT_EQ(differences(snapshot(parent), whole), "") << "budget " << budget << "\n" << r;
    } else {
      ++failed;
      EXPECT_EQ(r.code, 1) << r;
      EXPECT_TRUE(contains(r.err, ": No space left on device\n")) << r;
      expect_nothing(parent, r);
    }
  }
  EXPECT_GE(failed, 19u);  // every budget short of the whole output fails
  EXPECT_EQ(ok + failed, 21u);
  EXPECT_GE(ok, 1u);
}

// The same on a real file system that fills up: a tmpfs of 64 KiB, then of half the
// output, then large enough. Skipped where this process may not mount.
TEST_F(RunFaults, ATinyTmpfsGivesAWholeRunOrNothing) {
  const fs::path parent = dir_ / "fs";
  if (!mount_tmpfs(parent, "64m")) GTEST_SKIP() << "mount -t tmpfs not permitted here";
  const Files whole = reference(parent);
  size_t total = 0;
  for (const auto& kv : whole) total += kv.second.size();
  for (const auto& d : fs::directory_iterator(parent)) fs::remove_all(d.path());
  for (const std::string& size : {std::string("64k"), std::to_string(total / 2)}) {
    ASSERT_TRUE(mount_tmpfs(parent, size, true)) << size;
    const Result r = latsim(run_args(parent));
    EXPECT_NE(r.code, 0) << "size " << size << "\n" << r;
    EXPECT_TRUE(contains(r.err, "No space left on device")) << r;
    expect_nothing(parent, r);
  }
  ASSERT_TRUE(mount_tmpfs(parent, "64m", true));
  const Result r = latsim(run_args(parent));
  EXPECT_EQ(r.code, 0) << r;
  EXPECT_EQ(differences(snapshot(parent), whole), "");
}

// kill -9 at seeded moments spread over a run: nothing visible is ever partial, and the next
// run into the same place removes what the killed ones left.
TEST_F(RunFaults, KillAtRandomMomentsLeavesNothingPartial) {
  const fs::path parent = dir_ / "k";
  const auto t0 = std::chrono::steady_clock::now();
  const Files whole = reference(parent);
  const auto wall = std::chrono::steady_clock::now() - t0;  // spreads the kill moments only
  std::mt19937 random(1);
  size_t left_temporaries = 0;
  for (int trial = 0; trial < 6; ++trial) {
    for (const auto& d : fs::directory_iterator(parent)) fs::remove_all(d.path());
    const auto delay = wall * (random() % 1100) / 1000;
    const pid_t pid = start(run_args(parent));
    std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
    wait_for(pid);
    left_temporaries += expect_no_partial_output(snapshot(parent), whole);
  }
  const Result r = latsim(run_args(parent));
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(differences(snapshot(parent), whole), "") << left_temporaries << " temporaries left";
}

// What a dead run left (its directory, the previous output it moved aside, a streamed file)
// goes with the next run into the same place; a live process's temporary stays.
TEST_F(RunFaults, TheNextRunRemovesStaleTemporaries) {
  const fs::path parent = dir_ / "s";
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  wait_for(gone);
  const std::string dead = std::to_string(gone), live = std::to_string(::getpid());
  fs::create_directories(parent / (".run.tmp-" + dead) / "traces");
  fs::create_directories(parent / (".run.old-" + dead));
  std::ofstream(parent / (".t.json.tmp-" + dead)) << "[";
  std::ofstream(parent / (".other.tmp-" + live)) << "a live process's";
  const Result r = latsim(run_args(parent));
  ASSERT_EQ(r.code, 0) << r;
  std::set<std::string> hidden;
  for (const auto& e : fs::directory_iterator(parent))
    if (e.path().filename().string()[0] == '.') hidden.insert(e.path().filename().string());
  EXPECT_EQ(hidden, std::set<std::string>{".other.tmp-" + live});
}

// An output directory that cannot be made fails at once: no simulation, no timeline, no
// temporary, a message naming it.
TEST_F(RunFaults, AnUnwritableOutFailsBeforeTheRun) {
  const fs::path parent = dir_ / "u";
  fs::create_directories(parent);
  std::ofstream(parent / "file") << "a regular file, not a directory";
  std::vector<std::string> args = run_args(parent);
  args[6] = (parent / "file" / "run").string();  // --out below a regular file
  const Result r = latsim(args);
  EXPECT_EQ(r.code, 1) << r;
  EXPECT_TRUE(contains(r.err, "latsim: error: cannot write " + args[6] + ": Not a directory\n"))
      << r;
  EXPECT_EQ(differences(snapshot(parent), Files{{"file", "a regular file, not a directory"}}), "");
}

// The plots are part of the transaction: the marker lists every file, them too.
TEST_F(RunFaults, TheMarkerListsEveryFileIncludingThePlots) {
  const Files whole = reference(dir_ / "m");
  std::set<std::string> names{"run-info.json"};
  for (const auto& [name, bytes] : whole)
    if (name.rfind("run/", 0) == 0 && name.back() != '/' && name != "run/COMPLETE")
      names.insert(name.substr(4));
  std::string listed;
  for (const auto& n : names) listed += n + "\n";
  EXPECT_EQ(whole.at("run/COMPLETE"), listed);
  EXPECT_TRUE(contains(listed, "histogram-")) << listed;
}

}  // namespace
}  // namespace sweep_test
