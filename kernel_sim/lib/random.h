#pragma once
// The kernel's randomness is the project's one generator (models/common/random.h):
// seeded per component from the scenario seed and the component's name, with our own
// distributions, so runs are byte-identical across standard libraries.
#include "models/common/random.h"

namespace latsim::kernel {
using latsim::Rng;
}  // namespace latsim::kernel
