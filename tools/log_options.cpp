#include "tools/log_options.h"
#include <iostream>

namespace latsim::cli {

void add_log_options(CLI::App* c, log::Config& log, bool with_file) {
  c->add_option("--debug-flags", log.flags,
                "Debug lines of these components, comma-separated: pci,ide,sched,... or all\n"
                "(`--debug-flags help` lists them); each line starts with the simulated time\n"
                "and the component's name")
      ->delimiter(',')
      ->each([](const std::string& f) {
        if (f != "help") return;
        std::cout << log::flags_help();
        throw CLI::Success();
      })
      ->check([](const std::string& f) { return f == "help" ? "" : log::unknown_flag(f); }, "FLAG");
  c->add_option("--log-level", log.level,
                "Lowest level written: trace, debug, info, warn, error or off (default: warn;\n"
                "debug for the --debug-flags channels). info shows the kernel's messages")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  if (with_file) c->add_option("--log", log.file, "Write the log to FILE instead of stderr");
}

std::vector<std::string> child_log_args(const log::Config& log) {
  std::vector<std::string> args;
  if (!log.flags.empty()) {
    std::string joined;
    for (const auto& f : log.flags) joined += (joined.empty() ? "" : ",") + f;
    args.insert(args.end(), {"--debug-flags", joined});
  }
  if (!log.level.empty()) args.insert(args.end(), {"--log-level", log.level});
  return args;
}

}  // namespace latsim::cli
