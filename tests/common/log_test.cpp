// The debug log: which channels and levels write, what a line looks like, and that a
// line that is off evaluates nothing.
#include "common/log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using latsim::log::Channel;
using latsim::log::Level;
using latsim::log::on;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path temp_log(const std::string& name) {
  return fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".log");
}

TEST(Log, DefaultWritesWarningsOnly) {
  latsim::log::configure({});
  EXPECT_TRUE(on(Channel::ide, Level::warn));
  EXPECT_FALSE(on(Channel::ide, Level::debug));
  EXPECT_FALSE(on(Channel::printk, Level::info));  // today's stderr: no kernel messages
}

TEST(Log, FlaggedChannelsWriteDebugLinesOthersDoNot) {
  latsim::log::configure({{"ide", "sched"}, "", ""});
  EXPECT_TRUE(on(Channel::ide, Level::debug));
  EXPECT_TRUE(on(Channel::sched, Level::debug));
  EXPECT_FALSE(on(Channel::ide, Level::trace));
  EXPECT_FALSE(on(Channel::pci, Level::debug));
  EXPECT_FALSE(on(Channel::pci, Level::info));
  EXPECT_TRUE(on(Channel::pci, Level::warn));
}

TEST(Log, AllAndLevelTrace) {
  latsim::log::configure({{"all"}, "trace", ""});
  for (size_t c = 0; c < latsim::log::kChannels; ++c)
    EXPECT_TRUE(on(Channel(c), Level::trace)) << latsim::log::channels()[c].name;
}

TEST(Log, LevelInfoShowsKernelMessagesButNoDebugLines) {
  latsim::log::configure({{}, "info", ""});
  EXPECT_TRUE(on(Channel::printk, Level::info));
  EXPECT_FALSE(on(Channel::sched, Level::debug));
  latsim::log::configure({{"pci"}, "off", ""});
  EXPECT_FALSE(on(Channel::pci, Level::error));
}

TEST(Log, UnknownFlagOrLevelIsAnErrorListingTheAcceptedOnes) {
  EXPECT_EQ(latsim::log::unknown_flag("ide"), "");
  EXPECT_EQ(latsim::log::unknown_flag("all"), "");
  const std::string e = latsim::log::unknown_flag("pcii");
  EXPECT_NE(e.find("unknown debug flag 'pcii'"), std::string::npos) << e;
  for (const auto& c : latsim::log::channels())
    EXPECT_NE(e.find(std::string(c.name)), std::string::npos) << c.name;
  EXPECT_THROW(latsim::log::configure({{"ide", "pcii"}, "", ""}), std::invalid_argument);
  try {
    latsim::log::configure({{}, "verbose", ""});
    ADD_FAILURE() << "no error for level verbose";
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("trace, debug, info, warn, error, off"),
              std::string::npos)
        << ex.what();
  }
}

TEST(Log, HelpListsEveryFlagWithItsDescription) {
  const std::string h = latsim::log::flags_help();
  for (const auto& c : latsim::log::channels()) {
    EXPECT_NE(h.find("  " + std::string(c.name) + " "), std::string::npos) << c.name;
    EXPECT_NE(h.find(std::string(c.doc)), std::string::npos) << c.name;
  }
}

TEST(Log, LineHasSimulatedTimeChannelAndComponent) {
  const fs::path file = temp_log("log-line");
  latsim::log::configure({{"ide"}, "", file.string()});
  LATSIM_DEBUG(ide, "board.ide", "command {:#04x} lba {}", 0xc8, 42);
  LATSIM_DEBUG(pci, "board.pci", "not flagged");
  latsim::log::flush();
  const std::string text = slurp(file);
  fs::remove(file);
  EXPECT_TRUE(std::regex_match(
      text, std::regex(R"(\[ +0\.000000000 s\] ide +board\.ide: command 0xc8 lba 42\n)")))
      << text;
}

TEST(Log, LineTimeIsSimulatedTime) {
  const fs::path file = temp_log("log-time");
  latsim::log::configure({{"sched"}, "", file.string()});
  sc_core::sc_start(sc_core::sc_time(1234567891, sc_core::SC_NS));
  LATSIM_DEBUG(sched, "cpu0 swapper-0", "switch");
  latsim::log::flush();
  const std::string text = slurp(file);
  fs::remove(file);
  EXPECT_EQ(text, "[   1.234567891 s] sched   cpu0 swapper-0: switch\n");
}

TEST(Log, OffLineEvaluatesNothing) {
  latsim::log::configure({{"pci"}, "", ""});
  int evaluated = 0;
  auto who = [&] {
    ++evaluated;
    return std::string("x");
  };
  LATSIM_DEBUG(ide, who(), "{}", ++evaluated);
  EXPECT_EQ(evaluated, 0);
}

TEST(Log, UnwritableFileIsAClearError) {
  try {
    latsim::log::configure({{"ide"}, "", "/dev/null/x.log"});
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write the log /dev/null/x.log"), std::string::npos)
        << e.what();
  }
}

}  // namespace
