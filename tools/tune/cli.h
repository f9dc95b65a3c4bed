#pragma once
// The `tune` subcommand of the latsim CLI (tools/cli/main.cpp).
#include <CLI/CLI.hpp>

#include "tools/tune/tune.h"

namespace latsim::tune {

class Command {
 public:
  explicit Command(CLI::App& app);  // adds the subcommand; keep this object in place
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;
  bool selected() const;
  int run() const;

 private:
  CLI::App* cmd_ = nullptr;
  TuneOptions o_;
};

}  // namespace latsim::tune
