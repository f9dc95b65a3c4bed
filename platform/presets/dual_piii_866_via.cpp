#include "platform/presets/dual_piii_866_via.h"

// This board is the reference machine: every device's declared default is its value,
// with the source beside the declaration (CALIBRATION.md sections, the seeds, or
// "assumption"), so the preset only names it.
namespace latsim::platform::presets {

void dual_piii_866_via(PlatformConfig& p) { p.preset = kDualPiii866Via; }

}  // namespace latsim::platform::presets
