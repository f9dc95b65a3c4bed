#pragma once
// The `traces` subcommand of the latsim CLI (tools/cli/main.cpp): a census of a run's
// latency traces (tools/check/trace_census.h).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace latsim::check {

class CensusCommand {
 public:
  explicit CensusCommand(CLI::App& app);  // adds the subcommand; keep this object in place
  CensusCommand(const CensusCommand&) = delete;
  CensusCommand& operator=(const CensusCommand&) = delete;

  bool selected() const;
  int run() const;  // 0, or 2 when DIR is not a run's output or holds a malformed trace

 private:
  CLI::App* cmd_ = nullptr;
  std::string dir_;
  int64_t min_us_ = 0;
  size_t top_ = 15, examples_ = 8;
};

}  // namespace latsim::check
