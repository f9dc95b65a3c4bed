#pragma once
// `latsim sweep-merge DIR... --out DIR`: join the outputs of the shards of one sweep (or of
// partial runs of it) into one sweep directory, as if the grid had run in one place, and
// regenerate its results and plots. Directories of different sweeps (scenario content,
// fixed overrides, params or seeds differ) are refused. Exit status as `latsim sweep`'s,
// counting failed and missing points.
#include <optional>
#include <string>
#include <vector>

namespace latsim::sweep {

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out;
  std::string metrics;  // empty: the first directory's
  std::string pareto;   // empty: the first directory's
  std::optional<double> pareto_quantile;
  bool quiet = false;
};

int run_merge(const MergeOptions& o);

}  // namespace latsim::sweep
