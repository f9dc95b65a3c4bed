#pragma once
// Range checks of numeric command-line options that say the range in the option's own
// terms ("--jobs: 0 is not in 1..1024"; CLI11 puts the option's name first), and the
// ranges the subcommands share.
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/text.h"

namespace latsim::cli {

inline constexpr double kMaxJobs = 1024;
inline constexpr double kMaxSeeds = 1000;             // as a scenario's sweep.seeds
inline constexpr double kMaxTimeoutSeconds = 604800;  // a week

// A number in lo..hi; `note` follows the range ("seconds, 0: no limit").
inline CLI::Validator in_range(double lo, double hi, const std::string& note = "") {
  const std::string range =
      fmt::format("{}..{}", lo, hi) + (note.empty() ? "" : fmt::format(" ({})", note));
  return CLI::Validator(
      [lo, hi, range](std::string& input) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(input.c_str(), &end);
        if (input.empty() || *end != '\0')
          return fmt::format("`{}` is not a number (accepted: {})", text::escaped(input), range);
        if (!(v >= lo && v <= hi))
          return fmt::format("{} is not in {}", text::escaped(input), range);
        return {};
      },
      range);
}

}  // namespace latsim::cli
