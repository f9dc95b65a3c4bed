// The debug log and the version from the command line: the real binary (LATSIM_BINARY),
// short runs of the reference scenario.
#include <gtest/gtest.h>

#include <regex>

#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

class LogRun : public Sweep {};  // a directory per test, `latsim ARGS...` run in it

TEST_F(LogRun, DebugFlagsHelpListsTheFlagsAndExitsZero) {
  const Result r = latsim({"run", "--debug-flags", "help"});
  EXPECT_EQ(r.code, 0) << r;
  for (const char* flag : {"  ide ", "  pci ", "  sched ", "  irq ", "  printk "})
    EXPECT_TRUE(contains(r.out, flag)) << flag << "\n" << r;
}

TEST_F(LogRun, UnknownFlagOrLevelIsAUsageError) {
  Result r = latsim({"run", kScenario, "--debug-flags", "ide,pcii"});
  EXPECT_EQ(r.code, 2) << r;
  EXPECT_TRUE(contains(r.err, "unknown debug flag 'pcii': accepted: all, cpu,")) << r;
  r = latsim({"run", kScenario, "--log-level", "loud"});
  EXPECT_EQ(r.code, 2) << r;
  EXPECT_TRUE(contains(r.err, "--log-level")) << r;
  EXPECT_FALSE(fs::exists(dir_ / "out")) << "nothing is run";
}

TEST_F(LogRun, FlaggedRunPrintsTimestampedLinesOfTheNamedComponents) {
  const Result r = latsim({"run", kScenario, "--duration", "10ms", "-q", "--out",
                           (dir_ / "out").string(), "--debug-flags", "ide,pci"});
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(r.out, "") << r;
  const std::regex line(R"(\[ +[0-9]+\.[0-9]{9} s\] (ide|pci) +[a-z_.0-9]+: .+)");
  bool command = false, request = false;
  for (const auto& l : lines_of(r.err)) {
    EXPECT_TRUE(std::regex_match(l, line)) << l;
    command |= contains(l, "] ide") && contains(l, "command 0xc8 (READ DMA)");
    request |= contains(l, "] pci") && contains(l, "REQ# ide");
  }
  EXPECT_TRUE(command) << r;
  EXPECT_TRUE(request) << r;
}

TEST_F(LogRun, LoggingChangesNoOutputFile) {
  const fs::path quiet = dir_ / "quiet", loud = dir_ / "loud", log = dir_ / "debug.log";
  ASSERT_EQ(latsim({"run", kScenario, "--duration", "300ms", "-q", "--out", quiet.string()}).code,
            0);
  const Result r = latsim({"run", kScenario, "--duration", "300ms", "-q", "--out", loud.string(),
                           "--debug-flags", "all", "--log-level", "trace", "--log", log.string()});
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(r.err, "") << "--log takes the lines off stderr";
  EXPECT_GT(lines_of(slurp(log)).size(), 1000u);
  size_t compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(quiet)) {
    const fs::path rel = fs::relative(e.path(), quiet);
    if (!e.is_regular_file() || rel == "run-info.json") continue;
    EXPECT_TRUE(slurp(e.path()) == slurp(loud / rel)) << rel << " differs";
    ++compared;
  }
  EXPECT_GE(compared, 5u);
}

TEST_F(LogRun, KernelMessagesGoThroughTheLog) {
  const fs::path out = dir_ / "out";
  const Result r = latsim({"run", kScenario, "--duration", "300ms", "-q", "--out", out.string(),
                           "--debug-flags", "printk"});
  ASSERT_EQ(r.code, 0) << r;
  const auto dmesg = lines_of(slurp(out / "dmesg.txt"));
  const auto log = lines_of(r.err);
  ASSERT_FALSE(dmesg.empty());
  ASSERT_EQ(log.size(), dmesg.size()) << r;
  for (const auto& l : log) EXPECT_TRUE(contains(l, "] printk  cpu")) << l;
  for (const auto& m : dmesg)  // dmesg.txt groups them by source; the log is in time order
    EXPECT_TRUE(std::any_of(log.begin(), log.end(), [&](const auto& l) {
      return l.size() >= m.size() + 2 &&
             l.compare(l.size() - m.size() - 2, std::string::npos, ": " + m) == 0;
    })) << m;
}

TEST_F(LogRun, VersionNamesLatsimAndSystemC) {
  const Result r = latsim({"--version"});
  EXPECT_EQ(r.code, 0) << r;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^latsim [0-9]+\.[0-9]+\.[0-9]+)"))) << r;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\nSystemC 2\.[0-9]+\.[0-9]+)"))) << r;
}

TEST_F(LogRun, RunHelpMentionsTheLogOptions) {
  const Result r = latsim({"run", "--help"});
  EXPECT_EQ(r.code, 0) << r;
  for (const char* opt : {"--debug-flags", "--log-level", "--log "})
    EXPECT_TRUE(contains(r.out, opt)) << opt;
}

}  // namespace
}  // namespace sweep_test

namespace sweep_test {
namespace {

// A sweep passes the debug options to each point's run: the lines land in the point's
// stderr.txt, and the results are those of the same sweep without them.
TEST_F(LogRun, SweepPassesTheFlagsToEveryPoint) {
  const std::vector<std::string> grid{"sweep",      kScenario, "--param", kMaxSectors + "=32,128",
                                      "--duration", "20ms",    "-j",      "1",
                                      "-q"};
  auto with = grid, without = grid;
  with.insert(with.end(), {"--debug-flags", "ide", "--out", (dir_ / "with").string()});
  without.insert(without.end(), {"--out", (dir_ / "without").string()});
  ASSERT_EQ(latsim(with).code, 0);
  ASSERT_EQ(latsim(without).code, 0);
  EXPECT_EQ(slurp(dir_ / "with" / "results.csv"), slurp(dir_ / "without" / "results.csv"));
  size_t logged = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "with" / "points"))
    logged += contains(slurp(e.path() / "stderr.txt"), "] ide     ide: command 0xc8");
  EXPECT_EQ(logged, 2u);
  // check and tune refuse a bad flag as run does, before reading anything.
  for (const char* cmd : {"check", "tune"}) {
    const Result r = latsim({cmd, "--debug-flags", "idee", kScenario});
    EXPECT_NE(r.code, 0) << r;  // check's usage error is 2, tune's errors 255
    EXPECT_TRUE(contains(r.err, "unknown debug flag 'idee': accepted: all, cpu,")) << r;
  }
}

}  // namespace
}  // namespace sweep_test
