#pragma once
// `latsim bench`: the simulator's speed on every scenario, each run in a child process of
// its own (SystemC elaborates once per process), beside the bare SystemC kernel's speed
// with as many threads (a token ring, tools/bench/pingpong.h), so that the table says how
// close each model runs to the kernel's bound.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/bench/pingpong.h"

namespace latsim::bench {

struct BenchOptions {
  std::vector<std::string> scenarios;  // empty: scenarios/*.yaml in the working directory
  std::string duration;                // every run's --duration; empty: the scenario's own
  std::vector<std::string> sets;       // every run's --set KEY=VALUE
  int repeat = 1;                      // runs of each scenario; the fastest is reported
  std::string json;                    // also write the results here
  bool quiet = false, markdown = false;
  int pingpong = 0;  // > 0: only run the ring of this many threads here (the child's side)
  uint64_t hops = kDefaultHops;
};

// Runs every scenario and ring, prints the table; the exit status (errors on stderr).
int run_bench(const BenchOptions& o);

class Command {
 public:
  explicit Command(CLI::App& app);  // adds the subcommand; keep this object in place
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  bool selected() const;  // also after a parse error
  int run() const;        // its exit status (errors reported on stderr)

 private:
  CLI::App* cmd_ = nullptr;
  BenchOptions o_;
};

}  // namespace latsim::bench
