#pragma once
// The `sweep` and `sweep-merge` subcommands of the latsim CLI (tools/cli/main.cpp).
#include <CLI/CLI.hpp>

#include "tools/sweep/merge.h"
#include "tools/sweep/sweep.h"

namespace latsim::sweep {

class Commands {
 public:
  explicit Commands(CLI::App& app);  // adds the subcommands; keep this object in place
  Commands(const Commands&) = delete;
  Commands& operator=(const Commands&) = delete;

  // Whether the command line names one of them (also after a parse error).
  bool selected() const;
  // Run the selected one; its exit status (errors are reported on stderr).
  int run() const;

 private:
  CLI::App* sweep_ = nullptr;
  CLI::App* merge_ = nullptr;
  SweepOptions so_;
  MergeOptions mo_;
};

}  // namespace latsim::sweep
