#include "common/log.h"
#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include "common/local_time.h"

namespace latsim::log {

const std::array<ChannelInfo, kChannels>& channels() {
  static const std::array<ChannelInfo, kChannels> table{{
#define LATSIM_LOG_INFO(name, doc) {#name, doc},
      LATSIM_LOG_CHANNELS(LATSIM_LOG_INFO)
#undef LATSIM_LOG_INFO
  }};
  return table;
}

namespace {

// %* : the simulated time in seconds to the nanosecond, the running thread's lead included.
class SimTimeFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&, spdlog::memory_buf_t& out) override {
    const uint64_t ps = local_time::now().value();  // the default resolution: 1 ps
    fmt::format_to(std::back_inserter(out), "{:4}.{:09}", ps / 1000000000000,
                   ps / 1000 % 1000000000);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<SimTimeFlag>();
  }
};

// One logger per channel (its name is the line's channel column), all on one sink.
std::vector<std::shared_ptr<spdlog::logger>> make_loggers(spdlog::sink_ptr sink) {
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<SimTimeFlag>('*').set_pattern("[%* s] %-7n %v");
  sink->set_formatter(std::move(f));
  sink->set_level(spdlog::level::trace);
  std::vector<std::shared_ptr<spdlog::logger>> loggers;
  for (const auto& c : channels()) {
    loggers.push_back(std::make_shared<spdlog::logger>(std::string(c.name), sink));
    loggers.back()->set_level(spdlog::level::trace);  // the gate is detail::threshold
    loggers.back()->flush_on(spdlog::level::warn);
  }
  return loggers;
}

std::vector<std::shared_ptr<spdlog::logger>>& loggers() {
  static auto l = make_loggers(std::make_shared<spdlog::sinks::stderr_sink_st>());
  return l;
}

std::string accepted_flags() {
  std::string s = "all";
  for (const auto& c : channels()) s += fmt::format(", {}", c.name);
  return s;
}

Level parse_level(const std::string& s) {
  static const char* const names[] = {"trace", "debug", "info", "warn", "error", "off"};
  for (size_t i = 0; i < std::size(names); ++i)
    if (s == names[i]) return Level(i);
  throw std::invalid_argument(
      fmt::format("unknown log level '{}': accepted: trace, debug, info, warn, error, off", s));
}

size_t channel_index(std::string_view flag) {
  const auto& t = channels();
  return size_t(std::find_if(t.begin(), t.end(), [&](const auto& c) { return c.name == flag; }) -
                t.begin());
}

// The channels `flags` names (with "all"), or an error listing the accepted ones.
std::array<bool, kChannels> parse_flags(const std::vector<std::string>& flags) {
  std::array<bool, kChannels> on{};
  for (const auto& f : flags) {
    if (const std::string e = unknown_flag(f); !e.empty()) throw std::invalid_argument(e);
    if (f == "all")
      on.fill(true);
    else
      on[channel_index(f)] = true;
  }
  return on;
}

}  // namespace

std::string unknown_flag(std::string_view flag) {
  if (flag == "all" || channel_index(flag) < kChannels) return "";
  return fmt::format("unknown debug flag '{}': accepted: {} (or help)", flag, accepted_flags());
}

void configure(const Config& c) {
  const std::array<bool, kChannels> flagged = parse_flags(c.flags);
  const bool given = !c.level.empty();
  const Level level = given ? parse_level(c.level) : Level::warn;
  const Level debug = given ? level : Level::debug;  // a flag alone asks for debug lines
  if (!c.file.empty()) {
    spdlog::sink_ptr sink;
    try {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_st>(c.file, true);
    } catch (const spdlog::spdlog_ex& e) {
      throw std::runtime_error(fmt::format("cannot write the log {}: {}", c.file, e.what()));
    }
    flush();
    loggers() = make_loggers(sink);
  }
  for (size_t i = 0; i < kChannels; ++i)
    detail::threshold[i] = flagged[i] ? debug : std::max(level, Level::info);
}

std::string flags_help() {
  std::string s = "Debug flags (--debug-flags a,b,... or all):\n";
  for (const auto& c : channels()) s += fmt::format("  {:<10} {}\n", c.name, c.doc);
  return s;
}

void flush() {
  for (auto& l : loggers()) l->flush();
}

void detail::write(Channel c, Level l, std::string_view who, std::string&& msg) {
  loggers()[size_t(c)]->log(spdlog::level::level_enum(l), "{}: {}", who, msg);
}

}  // namespace latsim::log
