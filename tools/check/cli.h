#pragma once
// The `check` subcommand of the latsim CLI (tools/cli/main.cpp).
#include <CLI/CLI.hpp>

#include "tools/check/check.h"

namespace latsim::check {

class Command {
 public:
  explicit Command(CLI::App& app);  // adds the subcommand; keep this object in place
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  bool selected() const;  // also after a parse error
  int run() const;        // its exit status (errors reported on stderr)

 private:
  CLI::App* cmd_ = nullptr;
  CheckOptions o_;
};

// The hypothesis file format, as `latsim check --help` prints it.
const char* format_help();

}  // namespace latsim::check
