#include "platform/presets/dual_piii_866_via.h"
#include "platform/presets/registry.h"

// This board is the reference machine: every device's declared default is its value,
// with the source beside the declaration (CALIBRATION.md sections, the seeds, or
// "assumption"), so the preset only names it.
namespace latsim::platform::presets {

void dual_piii_866_via(PlatformConfig& p) { p.preset = kDualPiii866Via; }

namespace {
const PresetRegistration kRegistration{
    {kDualPiii866Via,
     "dual Pentium III 866, VIA Apollo Pro 133A (VT82C694X + VT82C686B), udma2 IDE disk",
     &dual_piii_866_via}};
}  // namespace

}  // namespace latsim::platform::presets
