#pragma once
// `latsim explain RUN_DIR`: why a latency happened. Reads the run's blame ledgers
// (traces/blame.json), prints where the section's time went, cause by cause, summing to
// its length, and in a sentence; --whatif reruns the scenario with each top cause's
// mechanism switched off and prints what the latency became.
#include <CLI/CLI.hpp>
#include <string>

namespace latsim::explain {

struct ExplainOptions {
  std::string run_dir;
  int trace = 0;  // traces/trace-NNN (1 = the longest kept); 0: the longest section (max.txt)
  bool cyclictest = false;  // the longest cyclictest wake-up instead of a trace
  std::string window;       // a measured window by its label, instead of a trace
  bool json = false;
  bool whatif = false;
  size_t jobs = 0;  // reruns at a time; 0: one per CPU
  size_t top = 5;   // causes --whatif tries
  bool quiet = false;
};

int run_explain(const ExplainOptions& o);

class Command {
 public:
  explicit Command(CLI::App& app);  // adds the subcommand; keep this object in place
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;
  bool selected() const;
  int run() const;

 private:
  CLI::App* cmd_ = nullptr;
  ExplainOptions o_;
};

}  // namespace latsim::explain
