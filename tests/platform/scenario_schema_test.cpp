// The schema table, the resolved-scenario emitter, the reference text and the presets.
#include "platform/scenario_schema.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kernel_sim/kernel_params.h"

#include "platform/presets/dual_piii_866_via.h"
#include "platform/presets/registry.h"
#include "platform/scenario_emit.h"
#include "platform/scenario_loader.h"

namespace latsim::platform {
namespace {

const std::string kReference = LATSIM_SOURCE_DIR "/scenarios/disk-dma-kernel-build.yaml";

TEST(ScenarioSchema, SplitKeepsKernelPathsWhole) {
  EXPECT_EQ(split_key_path("platform.pci.latency_timer"),
            (std::vector<std::string>{"platform", "pci", "latency_timer"}));
  EXPECT_EQ(
      split_key_path("kernel.tunables./sys/block/hda/queue/max_sectors_kb"),
      (std::vector<std::string>{"kernel", "tunables", "/sys/block/hda/queue/max_sectors_kb"}));
}

TEST(ScenarioSchema, EveryRowHasDocAndRoundTripsItsDefault) {
  Scenario defaults;
  apply_preset(defaults.platform.preset, defaults.platform);
  defaults.name = "x";
  for (const auto& key : scenario_keys()) {
    SCOPED_TRACE(key.spec.path);
    EXPECT_FALSE(key.spec.doc.empty());
    const std::string text = format_value(key.spec, key.get(defaults));
    const ParsedValue parsed = parse_value(key.spec, text);
    ASSERT_TRUE(parsed.value) << parsed.message;
    EXPECT_EQ(format_value(key.spec, *parsed.value), text);
  }
}

// The kernel declares its keys (kernel_sim); the schema mounts each exactly once.
TEST(ScenarioSchema, MountsEveryKeyTheKernelDeclares) {
  std::map<std::string, int> mounted;
  for (const auto& key : scenario_keys()) mounted[key.spec.path]++;
  std::vector<std::string> declared;
  for (const auto& k : kernel::kernel_keys()) declared.push_back("kernel." + k.spec.path);
  for (const auto& k : kernel::mechanism_keys()) declared.push_back("mechanisms." + k.spec.path);
  for (const auto& k : kernel::tracer_keys()) declared.push_back("tracing." + k.spec.path);
  EXPECT_EQ(declared.size(), 71u);
  for (const auto& path : declared) EXPECT_EQ(mounted[path], 1) << path;
}

// A key mounted from the kernel writes the member the kernel reads.
TEST(ScenarioSchema, KernelKeysSetTheKernelsMembers) {
  const Scenario s =
      load_scenario(kReference, {"kernel.pci_irq_trigger=edge", "kernel.irq_delivery=cpu0",
                                 "/proc/irq/14/ide0/threaded=0", "tracing.task_at=start",
                                 "/proc/sys/kernel/preempt_max_latency=700",
                                 "kernel.reiserfs.journal_max_batch=64", "kernel.hdparm.dma=off",
                                 "kernel.fpu.athlon_patch=true"});
  EXPECT_FALSE(s.kernel.pci_irq_level);
  EXPECT_FALSE(s.kernel.irq_lowest_priority);
  EXPECT_FALSE(s.kernel.irq_threaded.at(14));
  EXPECT_FALSE(s.kernel.trace.task_at_end);
  EXPECT_EQ(s.kernel.trace.threshold_us, 700u);
  EXPECT_EQ(s.kernel.reiserfs.journal_max_batch, 64u);
  EXPECT_FALSE(s.kernel.block.hdparm.dma);
  EXPECT_TRUE(s.kernel.fpu.athlon_patch);
  EXPECT_FALSE(s.kernel.fpu.mmx_routines);  // off unless a scenario builds for the Athlon
}

TEST(ScenarioSchema, DurationSpellings) {
  const KeySpec& spec = schema_tree().find("duration")->leaf->spec;
  EXPECT_DOUBLE_EQ(std::get<double>(*parse_value(spec, "30s").value), 30.0);
  EXPECT_DOUBLE_EQ(std::get<double>(*parse_value(spec, "500ms").value), 0.5);
  EXPECT_DOUBLE_EQ(std::get<double>(*parse_value(spec, "2.5s").value), 2.5);
  EXPECT_DOUBLE_EQ(std::get<double>(*parse_value(spec, "2").value), 2.0);
  EXPECT_EQ(parse_value(spec, "250us").message, "250us is out of range (accepted: 1ms..3600s)");
  EXPECT_EQ(format_value(spec, 2.5), "2500ms");
  EXPECT_EQ(format_value(spec, 30.0), "30s");
}

TEST(ScenarioSchema, ClosestMatch) {
  EXPECT_EQ(closest_match("latency_timr", {"mhz", "latency_timer", "arbiter"}), "latency_timer");
  EXPECT_EQ(closest_match("zzz", {"mhz", "latency_timer", "arbiter"}), "");
}

TEST(ScenarioEmit, ResolvedYamlLoadsBackIdentically) {
  const Scenario s = load_scenario(
      kReference, {"platform.pci.latency_timer=32", "/sys/block/hda/queue/max_sectors_kb=32",
                   "workload.1.name=cat", "outputs.dir=out/q"});
  const std::string yaml = scenario_to_yaml(s);
  const Scenario again = load_scenario_text(yaml, "resolved.yaml");
  EXPECT_EQ(scenario_to_yaml(again), yaml);
  EXPECT_EQ(again.platform.pci.latency_timer, 32);
  EXPECT_EQ(again.kernel.block.max_sectors_kb, 32);
  EXPECT_EQ(again.workload[1].name, "cat");
  EXPECT_EQ(again.description, s.description);
}

TEST(ScenarioEmit, WritesEveryKeyInCanonicalOrder) {
  const std::string yaml = scenario_to_yaml(load_scenario(kReference));
  size_t last = 0;
  for (const auto& key : scenario_keys()) {
    const std::string leaf = split_key_path(key.spec.path).back() + ":";
    const size_t at = yaml.find(leaf, last);
    ASSERT_NE(at, std::string::npos) << key.spec.path;
    last = at;
  }
  EXPECT_NE(
      yaml.find(
          "  - cyclictest:\n      name: \"cyclictest\"\n      enabled: true\n      priority: 80\n"),
      std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("    /sys/block/hda/queue/max_sectors_kb: 128\n"), std::string::npos);
  EXPECT_NE(yaml.find("    dma: on\n"), std::string::npos);
  EXPECT_NE(yaml.find("duration: 30s\n"), std::string::npos);
}

TEST(ScenarioEmit, MultiLineDescriptionRoundTrips) {
  Scenario s =
      load_scenario_text("schema_version: 1\nname: m\ndescription: |\n  one\n  two\n", "m.yaml");
  EXPECT_EQ(s.description, "one\ntwo");
  EXPECT_EQ(load_scenario_text(scenario_to_yaml(s), "r.yaml").description, "one\ntwo");
}

TEST(ScenarioReference, ListsEveryKeyWithRangeAndDefault) {
  const std::string ref = schema_reference();
  for (const auto& key : scenario_keys()) {
    EXPECT_NE(ref.find(key.spec.path + "  ["), std::string::npos) << key.spec.path;
  }
  EXPECT_NE(
      ref.find("platform.pci.latency_timer  [integer, clocks]  accepted: 0..255  default: 64"),
      std::string::npos);
  EXPECT_NE(ref.find("implemented: 2.6.9-vp"), std::string::npos);
  EXPECT_NE(ref.find("workload[].cyclictest.priority  [integer]  accepted: 1..99  default: 80"),
            std::string::npos);
  EXPECT_NE(ref.find("dual-piii-866-via: "), std::string::npos);
  // Each declaration's source is printed under its doc.
  EXPECT_NE(ref.find("platform.ide.latency_timer  [integer, clocks]  accepted: -1..255  default: "
                     "-1\n    the IDE function's Latency Timer (setpci); -1: "
                     "platform.pci.latency_timer\n    source: PCI 2.2 6.2.4: one Latency Timer "
                     "register per master\n"),
            std::string::npos);
}

TEST(Presets, DualPiii866ViaMatchesTheStructDefaults) {
  // The devices' declared defaults are the reference board: the emitted form of a
  // default-constructed platform equals the preset's.
  Scenario from_defaults;
  from_defaults.name = "x";
  Scenario from_preset = from_defaults;
  presets::dual_piii_866_via(from_preset.platform);
  EXPECT_EQ(scenario_to_yaml(from_preset), scenario_to_yaml(from_defaults));
}

TEST(Presets, RegistryAppliesByName) {
  PlatformConfig p;
  p.pci.latency_timer = 0;
  p.cpu.count = 1;
  apply_preset("dual-piii-866-via", p);
  EXPECT_EQ(p.pci.latency_timer, 64);
  EXPECT_EQ(p.cpu.count, 2);
  EXPECT_EQ(preset_names(), (std::vector<std::string>{
                                "athlon-1000-irongate", "atom-c2758", "dual-piii-866-serverworks",
                                "dual-piii-866-via", "mpc5200-lite5200", "pii-333-permedia2"}));
  apply_preset("pii-333-permedia2", p);
  EXPECT_EQ(p.cpu.count, 1);
  EXPECT_EQ(p.video.card, "permedia2");
  EXPECT_EQ(p.video.fifo_entries, 256);
  EXPECT_THROW(apply_preset("quad-xeon", p), std::invalid_argument);
}

}  // namespace
}  // namespace latsim::platform
