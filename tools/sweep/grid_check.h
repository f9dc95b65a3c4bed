#pragma once
// Every point of a sweep's grid loaded as its `latsim run` will load it (the scenario
// loader's checks: keys, types, ranges, cross-field rules) before anything runs, so a typo
// or a value out of range fails `latsim sweep` and its --dry-run at once instead of failing
// every point on a cluster.
#include <string>
#include <vector>

#include "tools/sweep/grid.h"

namespace latsim::sweep {

// Throws platform::InputError: each problem once, where its value came from (`where[i]` for
// grid.params[i]: "--param" or the FILE:LINE:COLUMN of the scenario's sweep: block), with
// the points it breaks, and a last line saying how many points would fail.
void check_grid(const std::string& scenario_path, const std::string& scenario_text,
                const Grid& grid, const std::vector<std::string>& where);

}  // namespace latsim::sweep
