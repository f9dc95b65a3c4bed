#include "platform/presets/registry.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "platform/presets/athlon_1000_irongate.h"
#include "platform/presets/atom_c2758.h"
#include "platform/presets/dual_piii_866_serverworks.h"
#include "platform/presets/dual_piii_866_via.h"
#include "platform/presets/pii_333_permedia2.h"

namespace latsim::platform {

const std::vector<PresetInfo>& platform_presets() {
  static const std::vector<PresetInfo> kPresets = {
      {presets::kDualPiii866Via,
       "dual Pentium III 866, VIA Apollo Pro 133A (VT82C694X + VT82C686B), udma2 IDE disk",
       &presets::dual_piii_866_via},
      {presets::kDualPiii866Serverworks,
       "dual Pentium III 866, ServerWorks LE (CNB30LE + OSB4): 64-bit/66 MHz PCI, udma2 IDE",
       &presets::dual_piii_866_serverworks},
      {presets::kPii333Permedia2,
       "single Pentium II 333, 440BX-class host bridge, PIIX4-class IDE, Permedia 2-class "
       "video card with a 256-entry command FIFO (seed 000, video FIFO)",
       &presets::pii_333_permedia2},
      {presets::kAtomC2758,
       "Atom C2758 (Avoton, Supermicro A1SRi-2758F): 8 cores at 2.4 GHz, PIT/8259A/IO-APIC "
       "legacy block (seed 003, rt cyclictest)",
       &presets::atom_c2758},
      {presets::kAthlon1000Irongate,
       "single Athlon 1 GHz, AMD-751 + VT82C686A, 8259A interrupts only (no IO-APIC), "
       "10 000 rpm disk behind a 40 MB/s bus (seed 001, dbench)",
       &presets::athlon_1000_irongate},
  };
  return kPresets;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : platform_presets()) names.push_back(p.name);
  return names;
}

const PresetInfo* find_preset(const std::string& name) {
  for (const auto& p : platform_presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

void apply_preset(const std::string& name, PlatformConfig& platform) {
  const PresetInfo* preset = find_preset(name);
  if (!preset) {
    throw std::invalid_argument(fmt::format("unknown platform preset `{}` (accepted: {})", name,
                                            fmt::join(preset_names(), ", ")));
  }
  // A preset is a whole machine: it starts from the declared defaults.
  const std::string preset_name = preset->name;
  platform = PlatformConfig{};
  preset->fill(platform);
  platform.preset = preset_name;
}

}  // namespace latsim::platform
