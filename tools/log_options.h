#pragma once
// The debug log's options (common/log.h): `latsim run` opens the log itself; sweep, check
// and tune pass the same options on to every child `latsim run`, whose stderr each keeps.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>
#include "common/log.h"

namespace latsim::cli {

// --debug-flags, --log-level and, when `with_file`, --log FILE.
void add_log_options(CLI::App* c, log::Config& log, bool with_file = true);

// The options of `log` as a child `latsim run` takes them (no --log: a child's log goes to
// its stderr, kept beside its outputs).
std::vector<std::string> child_log_args(const log::Config& log);

}  // namespace latsim::cli
