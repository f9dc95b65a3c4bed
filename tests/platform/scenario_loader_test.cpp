// Scenario loading: the reference scenario, --set overrides, and one exact compiler-style
// diagnostic (file:line:column, key, accepted values) per kind of mistake.
#include "platform/scenario_loader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include "workloads/cyclictest.h"
#include "workloads/disk_read.h"
#include "workloads/kernel_build.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace latsim::platform {
namespace {

const std::string kReference = LATSIM_SOURCE_DIR "/scenarios/disk-dma-kernel-build.yaml";
const std::string kData = LATSIM_SOURCE_DIR "/tests/platform/data/";

// Lines 1-2 of every inline case, so the case's own lines start at 3.
const std::string kHead = "schema_version: 1\nname: t\n";

// The ScenarioError text for `yaml` (shown as bad.yaml), or "(loaded)".
std::string errors_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario_text(yaml, "bad.yaml", sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(loaded)";
}

std::string file_errors_of(const std::string& path, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario(path, sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(loaded)";
}

// ---- the reference scenario ------------------------------------------------------

TEST(ScenarioLoader, ReferenceScenarioLoads) {
  const Scenario s = load_scenario(kReference);
  EXPECT_EQ(s.schema_version, 1);
  EXPECT_EQ(s.name, "disk-dma-kernel-build");
  EXPECT_NE(s.description.find("2305 us"), std::string::npos);
  EXPECT_NE(s.description.find("618 us"), std::string::npos);
  EXPECT_EQ(s.source_file, kReference);
  EXPECT_EQ(s.seed, 1u);
  EXPECT_DOUBLE_EQ(s.duration_s, 30.0);

  EXPECT_EQ(s.platform.preset, "dual-piii-866-via");
  EXPECT_EQ(s.platform.cpu.count, 2);
  EXPECT_DOUBLE_EQ(s.platform.cpu.mhz, 866.0);
  EXPECT_DOUBLE_EQ(s.platform.cpu.dram_latency_ns, 174.0);
  EXPECT_DOUBLE_EQ(s.platform.pci.mhz, 33.33);
  EXPECT_EQ(s.platform.pci.latency_timer, 64);
  EXPECT_EQ(s.platform.pci.arbiter, pci::ArbitrationPolicy::Rotate);
  EXPECT_EQ(s.platform.host_bridge.holdoff, chipset::CpuHoldoff::SgEntry);
  EXPECT_EQ(s.platform.host_bridge.holdoff_grants, 3);
  EXPECT_EQ(s.platform.ide.udma_mode, 4);  // the scenario overrides the preset (fitted to O4)
  EXPECT_EQ(s.platform.disk.capacity_sectors, 58168LL * 16 * 63);

  EXPECT_EQ(s.kernel.flavour, "2.6.9-vp");
  EXPECT_EQ(s.kernel.hz, 1000);
  EXPECT_EQ(s.kernel.voluntary_preemption, 1);
  EXPECT_EQ(s.kernel.kernel_preemption, 1);
  EXPECT_EQ(s.kernel.softirq_preemption, 1);
  EXPECT_EQ(s.kernel.hardirq_preemption, 1);
  EXPECT_TRUE(s.kernel.nmi_watchdog);
  EXPECT_EQ(s.kernel.block.max_sectors_kb, 128);
  EXPECT_EQ(s.kernel.block.read_ahead_kb, 128);
  EXPECT_EQ(s.kernel.netdev_max_backlog, 300);
  EXPECT_EQ(s.kernel.trace.threshold_us, 500);
  EXPECT_TRUE(s.kernel.block.hdparm.dma);
  EXPECT_FALSE(s.kernel.block.hdparm.unmaskirq);

  EXPECT_TRUE(s.mechanisms.bus_master_holdoff);
  EXPECT_TRUE(s.mechanisms.pci_latency_timer);
  EXPECT_TRUE(s.kernel.io_delay);
  EXPECT_TRUE(s.kernel.mcount_overhead);
  EXPECT_EQ(s.kernel.mcount_cycles, 60);

  ASSERT_EQ(s.workload.size(), 3u);
  EXPECT_EQ(s.workload[0].kind, "kernel_build");
  EXPECT_EQ(s.workload[0].name, "kernel_build");
  EXPECT_EQ(s.workload[0].as<workloads::KernelBuildParams>().jobs, 2);
  EXPECT_EQ(s.workload[1].kind, "disk_read");
  EXPECT_EQ(s.workload[1].as<workloads::DiskReadParams>().file_mb, 350);
  EXPECT_EQ(s.workload[1].as<workloads::DiskReadParams>().block_kb, 64);
  EXPECT_EQ(s.workload[2].kind, "cyclictest");
  EXPECT_EQ(s.workload[2].as<workloads::CyclictestParams>().priority, 80);
  EXPECT_EQ(s.workload[2].as<workloads::CyclictestParams>().interval_us, 1000);

  EXPECT_TRUE(s.kernel.trace.enabled);
  EXPECT_EQ(s.kernel.trace.max_traces, 50);
  EXPECT_EQ(s.outputs.dir, "");
}

TEST(ScenarioLoader, ScenarioKeysOverrideThePreset) {
  const Scenario s = load_scenario_text(kHead + R"(
platform:
  preset: dual-piii-866-via
  pci: {latency_timer: 32}
  host_bridge: {cpu_holdoff: grants}
)",
                                        "inline.yaml");
  EXPECT_EQ(s.platform.pci.latency_timer, 32);                             // the scenario's
  EXPECT_EQ(s.platform.host_bridge.holdoff, chipset::CpuHoldoff::Grants);  // the scenario's
  EXPECT_DOUBLE_EQ(s.platform.pci.mhz, 33.33);                             // the preset's
  EXPECT_EQ(s.source_file, "inline.yaml");
}

TEST(ScenarioLoader, MinimalScenarioTakesDefaults) {
  const Scenario s = load_scenario_text(kHead, "min.yaml");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.platform.pci.latency_timer, 64);
  EXPECT_DOUBLE_EQ(s.duration_s, 30.0);
  EXPECT_TRUE(s.workload.empty());
}

TEST(ScenarioLoader, DurationsAndSwitchSpellings) {
  auto duration = [](const std::string& text) {
    return load_scenario_text(kHead + "duration: " + text + "\n", "d.yaml").duration_s;
  };
  EXPECT_DOUBLE_EQ(duration("30s"), 30.0);
  EXPECT_DOUBLE_EQ(duration("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(duration("2500us"), 0.0025);
  EXPECT_DOUBLE_EQ(duration("2.5s"), 2.5);
  EXPECT_DOUBLE_EQ(duration("12"), 12.0);
  EXPECT_DOUBLE_EQ(duration("1ms"), 0.001);

  const Scenario s = load_scenario_text(kHead + R"(
kernel:
  voluntary_preemption: off
  kernel_preemption: false
  softirq_preemption: 0
  hardirq_preemption: on
  nmi_watchdog: off
  hdparm: {dma: on, unmaskirq: 1}
)",
                                        "s.yaml");
  EXPECT_EQ(s.kernel.voluntary_preemption, 0);
  EXPECT_EQ(s.kernel.kernel_preemption, 0);
  EXPECT_EQ(s.kernel.softirq_preemption, 0);
  EXPECT_EQ(s.kernel.hardirq_preemption, 1);
  EXPECT_FALSE(s.kernel.nmi_watchdog);
  EXPECT_TRUE(s.kernel.block.hdparm.dma);
  EXPECT_TRUE(s.kernel.block.hdparm.unmaskirq);
}

// hdparm -d0: PIO transfers are modelled, so dma off loads (with -u and -c alongside).
TEST(ScenarioLoad, PioTransfersWithDmaOff) {
  const Scenario s = load_scenario_text(
      kHead + "kernel:\n  hdparm: {dma: off, unmaskirq: on, io_32bit: on}\n", "p.yaml");
  EXPECT_FALSE(s.kernel.block.hdparm.dma);
  EXPECT_TRUE(s.kernel.block.hdparm.unmaskirq);
  EXPECT_TRUE(s.kernel.block.hdparm.io_32bit);
}

// ---- --set overrides -------------------------------------------------------------

TEST(ScenarioSet, DottedPath) {
  const Scenario s = load_scenario(
      kReference, {"platform.pci.latency_timer=32", "kernel.hz=250", "seed=7", "duration=500ms"});
  EXPECT_EQ(s.platform.pci.latency_timer, 32);
  EXPECT_EQ(s.kernel.hz, 250);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_DOUBLE_EQ(s.duration_s, 0.5);
}

TEST(ScenarioSet, KernelPathMeansTunable) {
  const Scenario s =
      load_scenario(kReference, {"/sys/block/hda/queue/max_sectors_kb=32",
                                 "/sys/block/hda/queue/read_ahead_kb=32",
                                 "/proc/sys/net/core/netdev_max_backlog=8",
                                 "kernel.tunables./proc/sys/kernel/preempt_max_latency=700"});
  EXPECT_EQ(s.kernel.block.max_sectors_kb, 32);
  EXPECT_EQ(s.kernel.block.read_ahead_kb, 32);
  EXPECT_EQ(s.kernel.netdev_max_backlog, 8);
  EXPECT_EQ(s.kernel.trace.threshold_us, 700);
}

TEST(ScenarioSet, WorkloadByIndexAndByName) {
  const Scenario s =
      load_scenario(kReference, {"workload.0.jobs=4", "workload.disk_read.block_kb=128",
                                 "workload.2.name=probe", "workload.probe.priority=99"});
  EXPECT_EQ(s.workload[0].as<workloads::KernelBuildParams>().jobs, 4);
  EXPECT_EQ(s.workload[1].as<workloads::DiskReadParams>().block_kb, 128);
  EXPECT_EQ(s.workload[2].name, "probe");
  EXPECT_EQ(s.workload[2].as<workloads::CyclictestParams>().priority, 99);
}

TEST(ScenarioSet, CreatesKeysMissingFromTheFile) {
  const Scenario s =
      load_scenario_text(kHead + "platform:\n  pci:\n", "m.yaml",
                         {"platform.pci.arbiter=fixed", "mechanisms.isa_io_delay=off",
                          "description=quiet: 32/32", "outputs.dir=out/x"});
  EXPECT_EQ(s.platform.pci.arbiter, pci::ArbitrationPolicy::Fixed);
  EXPECT_FALSE(s.kernel.io_delay);
  EXPECT_EQ(s.description, "quiet: 32/32");  // free text need not be YAML
  EXPECT_EQ(s.outputs.dir, "out/x");
}

TEST(ScenarioSet, LaterOverrideWinsAndFixesTheFile) {
  const Scenario s =
      load_scenario_text(kHead + "platform: {pci: {latency_timer: 300}}\n", "f.yaml",
                         {"platform.pci.latency_timer=16", "platform.pci.latency_timer=248"});
  EXPECT_EQ(s.platform.pci.latency_timer, 248);
}

TEST(ScenarioSet, OutOfRangeNamesTheOverride) {
  EXPECT_EQ(file_errors_of(kReference, {"platform.pci.latency_timer=300"}),
            "--set platform.pci.latency_timer=300: error: platform.pci.latency_timer: 300 is out "
            "of range (accepted: 0..255)");
}

TEST(ScenarioSet, UnknownKeySuggestsFullPath) {
  EXPECT_EQ(file_errors_of(kReference, {"platform.pci.latency_timr=32"}),
            "--set platform.pci.latency_timr=32: error: platform.pci.latency_timr: unknown key; "
            "did you mean `platform.pci.latency_timer`? (accepted: mhz, latency_timer, arbiter, "
            "width_bits)");
  EXPECT_EQ(file_errors_of(kReference, {"latency_timer=32"}),
            "--set latency_timer=32: error: latency_timer: unknown key; did you mean "
            "`platform.pci.latency_timer`? (accepted: schema_version, name, description, seed, "
            "duration, platform, kernel, mechanisms, workload, tracing, outputs, sweep)");
}

// A kernel tunable's last name, or a typo of it, points at the path --set takes.
TEST(ScenarioSet, UnknownKeySuggestsTheKernelPath) {
  const std::string top =
      " (accepted: schema_version, name, description, seed, duration, platform, kernel, "
      "mechanisms, workload, tracing, outputs, sweep)";
  EXPECT_EQ(file_errors_of(kReference, {"read_ahead_kb=32"}),
            "--set read_ahead_kb=32: error: read_ahead_kb: unknown key; did you mean "
            "`/sys/block/hda/queue/read_ahead_kb`?" +
                top);
  EXPECT_EQ(file_errors_of(kReference, {"max_sectrs_kb=32"}),
            "--set max_sectrs_kb=32: error: max_sectrs_kb: unknown key; did you mean "
            "`/sys/block/hda/queue/max_sectors_kb`?" +
                top);
  const std::string e = file_errors_of(kReference, {"/sys/block/hda/queue/read_ahed_kb=32"});
  EXPECT_NE(e.find("unknown tunable path; did you mean `/sys/block/hda/queue/read_ahead_kb`?"),
            std::string::npos)
      << e;
}

TEST(ScenarioSet, BadTunableAndWorkloadOverrides) {
  EXPECT_EQ(file_errors_of(kReference, {"/sys/block/hda/queue/max_sectors_kb=256"}),
            "--set /sys/block/hda/queue/max_sectors_kb=256: error: "
            "kernel.tunables./sys/block/hda/queue/max_sectors_kb: 256 is out of range (accepted: "
            "4..128)");
  EXPECT_EQ(file_errors_of(kReference, {"/sys/block/hda/queue/nr_requests=4"}),
            "--set /sys/block/hda/queue/nr_requests=4: error: "
            "kernel.tunables./sys/block/hda/queue/nr_requests: unknown tunable path (accepted: "
            "/sys/block/hda/queue/max_sectors_kb, /sys/block/hda/queue/read_ahead_kb, "
            "/proc/sys/net/core/netdev_max_backlog, /proc/sys/kernel/preempt_max_latency, "
            "/proc/irq/14/ide0/threaded, /proc/irq/11/eth0/threaded, "
            "/proc/irq/10/Ensoniq AudioPCI/threaded)");
  EXPECT_EQ(file_errors_of(kReference, {"workload.cyclictest.priority=0"}),
            "--set workload.cyclictest.priority=0: error: workload.2.priority: 0 is out of range "
            "(accepted: 1..99)");
  EXPECT_EQ(file_errors_of(kReference, {"workload.5.jobs=1"}),
            "--set workload.5.jobs=1: error: workload.5.jobs: no workload item 5 (the list has 3 "
            "items, 0..2)");
  // An index too long for any list is no item, not an overflow (a fuzzer finding).
  EXPECT_EQ(file_errors_of(kReference, {"workload.022222222222222222222222.jobs=1"}),
            "--set workload.022222222222222222222222.jobs=1: error: "
            "workload.022222222222222222222222.jobs: no workload item 022222222222222222222222 "
            "(the list has 3 items, 0..2)");
  EXPECT_EQ(file_errors_of(kReference, {"workload.make.jobs=1"}),
            "--set workload.make.jobs=1: error: workload.make.jobs: no workload item named `make` "
            "(accepted: kernel_build, disk_read, cyclictest)");
  EXPECT_EQ(file_errors_of(kReference, {"workload.0.job=1"}),
            "--set workload.0.job=1: error: workload.0.job: unknown kernel_build parameter; did "
            "you mean `jobs`? (accepted: name, enabled, jobs, source_files, c_kb, header_files, "
            "common_headers, headers_per_unit, header_kb, o_kb, parse_fraction, "
            "commit_interval_s, first_unit, l2_misses_per_ms, command, mount)");
}

TEST(ScenarioSet, MalformedOverrides) {
  EXPECT_EQ(file_errors_of(kReference, {"seed"}), "--set seed: error: expected KEY=VALUE");
  EXPECT_EQ(file_errors_of(kReference, {"platform.pci=3"}),
            "--set platform.pci=3: error: platform.pci: is a section, not a value; set one of its "
            "keys (accepted: mhz, latency_timer, arbiter, width_bits)");
  EXPECT_EQ(file_errors_of(kReference, {"kernel.hz=abc"}),
            "--set kernel.hz=abc: error: kernel.hz: expected an integer, got `abc` (accepted: 100, "
            "250, 1000)");
  EXPECT_EQ(file_errors_of(kReference, {"seed=[1, 2]"}),
            "--set seed=[1, 2]: error: seed: expected a non-negative integer, got a list "
            "(accepted: 0..18446744073709551615)");
}

// ---- malformed files: exact file:line:column ---------------------------------------

TEST(ScenarioErrors, UnknownKeyWithDidYouMean) {
  EXPECT_EQ(errors_of(kHead + R"(platform:
  pci:
    latency_timr: 32
)"),
            "bad.yaml:5:5: error: platform.pci.latency_timr: unknown key; did you mean "
            "`latency_timer`? (accepted: mhz, latency_timer, arbiter, width_bits)");
}

TEST(ScenarioErrors, UnknownKeyFromARealFile) {
  EXPECT_EQ(file_errors_of(kData + "unknown_key.yaml"),
            kData +
                "unknown_key.yaml:5:5: error: platform.pci.latency_timr: unknown key; did you "
                "mean `latency_timer`? (accepted: mhz, latency_timer, arbiter, width_bits)");
}

// tracing.spans is parsed at load time: a malformed span is named at its line.
TEST(ScenarioErrors, MalformedTraceSpanIsReportedAtItsLine) {
  EXPECT_EQ(errors_of(kHead + "tracing:\n  spans: mark_offset_tsc-do_timer,a--b\n"),
            "bad.yaml:4:10: error: tracing.spans: bad span 'a--b': expected FUNCTION or "
            "FUNCTION-FUNCTION, e.g. mark_offset_tsc-do_timer");
}

// A handler as long as the SMI period would keep every CPU in SMM: named at its line.
TEST(ScenarioErrors, SmiHandlerMustBeShorterThanItsPeriod) {
  EXPECT_EQ(errors_of(kHead + "platform:\n  smi: {period_us: 100, duration_us: 100}\n"),
            "bad.yaml:4:38: error: platform.smi.duration_us: 100 is not under period_us 100: "
            "the CPUs would never leave SMM");
  EXPECT_EQ(errors_of(kHead + "platform:\n  smi: {period_us: 100, duration_us: 99}\n"), "(loaded)");
}

// The MPC5200's controller, the decrementer tick and the PIT make one board or the other:
// each mismatch named at the key the scenario gave.
TEST(ScenarioErrors, InterruptHookupIsOneBoardOrTheOther) {
  EXPECT_EQ(errors_of(kHead + "platform:\n  pit: false\n"),
            "bad.yaml:4:8: error: platform.pit: the tick is the PIT's and local APIC's on a PC, "
            "the decrementer's on an e300: platform.pit must equal platform.cpu.local_apic");
  EXPECT_EQ(errors_of(kHead + "platform:\n  mpc52xx_pic: true\n  io_apic: false\n"),
            "bad.yaml:4:16: error: platform.mpc52xx_pic: the MPC5200's PIC feeds an e300 core (no "
            "local APIC) and only it: platform.mpc52xx_pic must be the opposite of "
            "platform.cpu.local_apic");
  EXPECT_EQ(errors_of(kHead + "platform:\n  preset: mpc5200-lite5200\n  cpu: {count: 2}\n"),
            "bad.yaml:5:16: error: platform.cpu.count: platform.cpu.local_apic false leaves no "
            "IPIs: platform.cpu.count must be 1");
  EXPECT_EQ(errors_of(kHead + "platform:\n  preset: mpc5200-lite5200\n"), "(loaded)");
  EXPECT_EQ(errors_of(kHead + "platform:\n  preset: mpc5200-lite5200\n",
                      {"platform.cpu.local_apic=true"}),
            "--set platform.cpu.local_apic=true: error: platform.cpu.local_apic: the MPC5200's "
            "PIC feeds an e300 core (no local APIC) and only it: platform.mpc52xx_pic must be the "
            "opposite of platform.cpu.local_apic\n--set platform.cpu.local_apic=true: error: "
            "platform.cpu.local_apic: the tick is the PIT's and local APIC's on a PC, the "
            "decrementer's on an e300: platform.pit must equal platform.cpu.local_apic");
}

TEST(ScenarioErrors, KeyInTheWrongSection) {
  EXPECT_EQ(
      errors_of(kHead + "kernel:\n  latency_timer: 32\n"),
      "bad.yaml:4:3: error: kernel.latency_timer: unknown key; did you mean "
      "`platform.pci.latency_timer`? (accepted: flavour, version, hz, voluntary_preemption, "
      "kernel_preemption, softirq_preemption, hardirq_preemption, nmi_watchdog, highmem, "
      "periodic_balance, "
      "switch_pick_lines, switch_next_lines, switch_mm_lines, switch_resume_lines, "
      "schedule_code_lines, "
      "slab_reap, slab_caches, slab_reap_lines, "
      "vp_redirect_softirq_wakeup_bug, irq_delivery, shared_irq_disabled, irq_inprogress, "
      "wake_balance, elevator, plugging, page_lru, "
      "unplug_delay_ms, unplug_thresh, "
      "task_hot_underflow_bug, pcm_write_timeout, pci_irq_trigger, timer_ack, code_path_scale, "
      "maxcpus, "
      "tunables, "
      "rootfs, "
      "latencytimes_read_s, reiserfs, fpu, hdparm, aic7xxx, rcu)");
}

TEST(ScenarioErrors, WrongType) {
  EXPECT_EQ(errors_of(kHead + R"(platform:
  pci:
    latency_timer: abc
)"),
            "bad.yaml:5:20: error: platform.pci.latency_timer: expected an integer, got `abc` "
            "(accepted: 0..255)");
  EXPECT_EQ(errors_of(kHead + "platform:\n  cpu:\n    mhz: fast\n"),
            "bad.yaml:5:10: error: platform.cpu.mhz: expected a number, got `fast` (accepted: "
            "100..4000)");
  EXPECT_EQ(
      errors_of(kHead + "tracing:\n  enabled: maybe\n"),
      "bad.yaml:4:12: error: tracing.enabled: expected a boolean (true/false, on/off, yes/no, "
      "1/0), got `maybe` (accepted: true, false)");
  EXPECT_EQ(
      errors_of(kHead + "mechanisms: [bus_master_holdoff]\n"),
      "bad.yaml:3:13: error: mechanisms: expected a mapping of keys, got a list (accepted: "
      "bus_master_holdoff, pci_latency_timer, isa_io_delay, mcount_overhead, cache_coherence, "
      "cache_locking, mcount_cycles)");
}

TEST(ScenarioErrors, OutOfRange) {
  EXPECT_EQ(errors_of(kHead + R"(platform:
  pci:
    latency_timer: 300
)"),
            "bad.yaml:5:20: error: platform.pci.latency_timer: 300 is out of range (accepted: "
            "0..255)");
  EXPECT_EQ(errors_of(kHead + "duration: 0.5ms\n"),
            "bad.yaml:3:11: error: duration: 0.5ms is out of range (accepted: 1ms..3600s)");
  EXPECT_EQ(errors_of(kHead + "platform: {ide: {burst_bytes: 18}}\n"),
            "bad.yaml:3:31: error: platform.ide.burst_bytes: 18 is not a multiple of 4 "
            "(accepted: 4..65536, a multiple of 4)");
}

TEST(ScenarioErrors, BadEnumValue) {
  EXPECT_EQ(errors_of(kHead + R"(platform:
  pci:
    arbiter: rotat
)"),
            "bad.yaml:5:14: error: platform.pci.arbiter: `rotat` is not an accepted value; did you "
            "mean `rotate`? (accepted: rotate, fixed)");
  EXPECT_EQ(errors_of(kHead + "kernel:\n  hz: 300\n"),
            "bad.yaml:4:7: error: kernel.hz: `300` is not an accepted value (accepted: 100, 250, "
            "1000)");
}

TEST(ScenarioErrors, FlavourFixesItsPreemptionSwitches) {
  EXPECT_EQ(errors_of(kHead + "kernel:\n  flavour: 2.4.20-lowlatency\n  kernel_preemption: 1\n"),
            "bad.yaml:5:22: error: kernel.kernel_preemption: is fixed to 0 by kernel.flavour "
            "2.4.20-lowlatency (accepted: 0)");
}

TEST(ScenarioErrors, UnknownTunablePath) {
  EXPECT_EQ(errors_of(kHead + R"(kernel:
  tunables:
    /sys/block/hda/queue/max_sector_kb: 32
)"),
            "bad.yaml:5:5: error: kernel.tunables./sys/block/hda/queue/max_sector_kb: unknown "
            "tunable path; did you mean `/sys/block/hda/queue/max_sectors_kb`? (accepted: "
            "/sys/block/hda/queue/max_sectors_kb, /sys/block/hda/queue/read_ahead_kb, "
            "/proc/sys/net/core/netdev_max_backlog, /proc/sys/kernel/preempt_max_latency, "
            "/proc/irq/14/ide0/threaded, /proc/irq/11/eth0/threaded, "
            "/proc/irq/10/Ensoniq AudioPCI/threaded)");
}

TEST(ScenarioErrors, YamlSyntaxError) {
  EXPECT_EQ(errors_of(kHead + "platform:\n  pci:\n   mhz: 33\n  latency_timer: 3\n x: 1\n"),
            "bad.yaml:7:2: error: YAML syntax error: end of map not found");
  EXPECT_EQ(file_errors_of(kData + "syntax_error.yaml"),
            kData + "syntax_error.yaml:6:14: error: YAML syntax error: end of map flow not found");
}

TEST(ScenarioErrors, MissingRequiredKeys) {
  EXPECT_EQ(errors_of("seed: 3\n"),
            "bad.yaml:1:1: error: schema_version: missing required key\n"
            "bad.yaml:1:1: error: name: missing required key");
  EXPECT_EQ(errors_of("schema_version: 2\nname: Big Name\n"),
            "bad.yaml:1:17: error: schema_version: `2` is not an accepted value (accepted: 1)\n"
            "bad.yaml:2:7: error: name: `Big Name` is not a valid name (accepted: [a-z0-9._-]+)");
}

TEST(ScenarioErrors, UnreadableFile) {
  const std::string path = kData + "no_such_scenario.yaml";
  EXPECT_EQ(file_errors_of(path),
            path + ": error: cannot read scenario file: No such file or directory");
}

TEST(ScenarioErrors, WorkloadMistakes) {
  EXPECT_EQ(errors_of(kHead + R"(workload:
  - kernel_build: {jobs: 0}
  - kernel_bild: {}
  - disk_read: {file_mb: 1, blok_kb: 8}
  - cyclictest
  - kernel_build:
)"),
            "bad.yaml:4:26: error: workload.0.jobs: 0 is out of range (accepted: 1..64)\n"
            "bad.yaml:5:5: error: workload.1: unknown workload kind `kernel_bild`; did you mean "
            "`kernel_build`? (accepted: audio_player, cpu_burner, cyclictest, dbench, disk_copy, "
            "disk_read, disk_write, hackbench, kernel_build, latencytest, net_in, net_out, nfs_ls, "
            "proc_read, x11)\n"
            "bad.yaml:6:29: error: workload.2.blok_kb: unknown disk_read parameter; did you mean "
            "`block_kb`? (accepted: name, enabled, file_mb, block_kb)\n"
            "bad.yaml:7:5: error: workload.3: expected a one-key map `KIND: {PARAMS}`, got "
            "`cyclictest` (accepted: audio_player, cpu_burner, cyclictest, dbench, disk_copy, "
            "disk_read, disk_write, hackbench, kernel_build, latencytest, net_in, net_out, nfs_ls, "
            "proc_read, x11)\n"
            "bad.yaml:8:5: error: workload.4.name: duplicate workload name `kernel_build` (also "
            "workload.0); give each item its own `name`");
}

TEST(ScenarioErrors, AllErrorsReportedTogether) {
  const std::string text = errors_of(kHead + R"(seed: -1
platform:
  cpu: {count: 9}
kernel:
  hz: 1e3
)",
                                     {"mechanisms.mcount_cycles=-5"});
  EXPECT_EQ(text,
            "bad.yaml:3:7: error: seed: expected a non-negative integer, got `-1` (accepted: "
            "0..18446744073709551615)\n"
            "bad.yaml:5:16: error: platform.cpu.count: 9 is out of range (accepted: 1..8)\n"
            "bad.yaml:7:7: error: kernel.hz: expected an integer, got `1e3` (accepted: 100, 250, "
            "1000)\n"
            "--set mechanisms.mcount_cycles=-5: error: mechanisms.mcount_cycles: -5 is out of "
            "range (accepted: 0..10000)");
}

TEST(ScenarioErrors, DiagnosticsAreStructured) {
  try {
    load_scenario_text(kHead + "platform: {pci: {latency_timer: 300}}\n", "bad.yaml");
    FAIL() << "expected a ScenarioError";
  } catch (const ScenarioError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].location, "bad.yaml:3:33");
    EXPECT_EQ(e.diagnostics()[0].key, "platform.pci.latency_timer");
    EXPECT_EQ(e.diagnostics()[0].message, "300 is out of range (accepted: 0..255)");
  }
}

// Vanilla 2.6.9: the VP switches do not exist; kernel_preemption is CONFIG_PREEMPT.
TEST(ScenarioLoader, VanillaFlavourHasNoVoluntaryPreemptSwitches) {
  const Scenario s = load_scenario_text(
      kHead + "kernel:\n  flavour: \"2.6.9\"\n  kernel_preemption: 1\n", "v.yaml");
  EXPECT_EQ(s.kernel.voluntary_preemption, 0);
  EXPECT_EQ(s.kernel.softirq_preemption, 0);
  EXPECT_EQ(s.kernel.hardirq_preemption, 0);
  EXPECT_EQ(s.kernel.kernel_preemption, 1);
  EXPECT_EQ(s.kernel.version, "2.6.9");
  try {
    load_scenario_text(kHead + "kernel:\n  flavour: \"2.6.9\"\n  softirq_preemption: 1\n",
                       "w.yaml");
    FAIL() << "a VP switch was accepted on vanilla 2.6.9";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "w.yaml:5:23: error: kernel.softirq_preemption: is a voluntary-preempt switch"),
              std::string::npos)
        << e.what();
  }
}

// The 2.4 and rt flavours set the switches their mechanisms imply.
TEST(ScenarioLoader, OtherFlavoursFixTheirSwitches) {
  const Scenario ll =
      load_scenario_text(kHead + "kernel:\n  flavour: 2.4.20-lowlatency\n", "l.yaml");
  EXPECT_EQ(ll.kernel.kernel_preemption, 0);
  EXPECT_EQ(ll.kernel.voluntary_preemption, 0);
  EXPECT_EQ(ll.kernel.softirq_preemption, 0);
  EXPECT_EQ(ll.kernel.version, "2.4.20-lowlatency");
  const Scenario pr = load_scenario_text(kHead + "kernel:\n  flavour: 2.4.10-preempt\n", "p.yaml");
  EXPECT_EQ(pr.kernel.kernel_preemption, 1);
  EXPECT_EQ(pr.kernel.hardirq_preemption, 0);
  const Scenario rt = load_scenario_text(kHead + "kernel:\n  flavour: rt\n", "r.yaml");
  EXPECT_EQ(rt.kernel.kernel_preemption, 1);
  EXPECT_EQ(rt.kernel.softirq_preemption, 1);
  EXPECT_EQ(rt.kernel.hardirq_preemption, 1);
  EXPECT_EQ(rt.kernel.voluntary_preemption, 0);
  EXPECT_EQ(rt.kernel.version, "4.1.30-rt34");
}

}  // namespace
}  // namespace latsim::platform

namespace latsim::platform {
namespace {

// The X server draws through a card: on a board without one the scenario is refused,
// with the preset that has one named; the video preset or the key makes it load.
TEST(ScenarioErrors, X11WorkloadNeedsAVideoCard) {
  const std::string x11 = "workload:\n  - x11: {driver: rude}\n";
  EXPECT_EQ(errors_of(kHead + x11),
            "bad.yaml:4:5: error: workload.0: x11 draws through a video card, and "
            "platform.video.card is none (accepted: permedia2, or a preset that has one, such "
            "as pii-333-permedia2)");
  EXPECT_EQ(errors_of(kHead + "platform: {preset: pii-333-permedia2}\n" + x11), "(loaded)");
  EXPECT_EQ(errors_of(kHead + x11, {"platform.video.card=permedia2"}), "(loaded)");
  EXPECT_NE(errors_of(kHead + x11, {"platform.video.card=permedia2", "platform.video.pci=2.2"})
                .find("platform.video.pci: `2.2` is not an accepted value; did you mean `2.0`? "
                      "(accepted: 2.0, 2.1)"),
            std::string::npos);
}

}  // namespace
}  // namespace latsim::platform

namespace latsim::platform {
namespace {

// cyclictest -a: a malformed list or a CPU the machine lacks is a load error at the key.
TEST(ScenarioErrors, CyclictestAffinityIsACpuListOfThisMachine) {
  EXPECT_EQ(errors_of(kHead + "workload:\n  - cyclictest: {affinity: \"0-\"}\n"),
            "bad.yaml:4:28: error: workload.0.affinity: `0-` is not a CPU list (accepted: none, "
            "all, or CPU numbers such as 1, 0,1 or 0-1)");
  EXPECT_EQ(errors_of(kHead + "workload:\n  - cyclictest: {affinity: \"0,2\"}\n"),
            "bad.yaml:4:28: error: workload.0.affinity: CPU 2 does not exist (accepted: CPUs 0-1 "
            "of platform.cpu.count)");
  EXPECT_EQ(errors_of(kHead + "workload:\n  - cyclictest: {affinity: \"1\"}\n"), "(loaded)");
}

}  // namespace
}  // namespace latsim::platform

// ---- bounded input: what a file may be, and how much YAML it may hold ----------------

namespace latsim::platform {
namespace {

namespace fs = std::filesystem;

// A fresh directory of this test's own, removed with it.
struct TempDir {
  fs::path path;
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = fs::temp_directory_path() /
           fmt::format("latsim-{}-{}-{}", info->test_suite_name(), info->name(), ::getpid());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

TEST(ScenarioInput, AFifoIsRefusedWithoutWaitingForAWriter) {
  TempDir dir;
  const std::string fifo = (dir.path / "scenario.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A writer with a valid scenario, so that a loader that opens the FIFO gets one.
  std::thread writer([&] { std::ofstream(fifo) << kHead; });
  const std::string errors = file_errors_of(fifo);
  const int unblock = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // the writer's reader
  writer.join();
  ::close(unblock);
  EXPECT_EQ(errors, fifo + ": error: cannot read scenario file: is a FIFO, not a regular file");
}

TEST(ScenarioInput, DevicesAndDirectoriesAreNotScenarioFiles) {
  EXPECT_EQ(file_errors_of("/dev/null"),
            "/dev/null: error: cannot read scenario file: is a character device, not a regular "
            "file");
  TempDir dir;
  EXPECT_EQ(file_errors_of(dir.path.string()),
            dir.path.string() + ": error: cannot read scenario file: is a directory");
}

TEST(ScenarioInput, AReadErrorIsReportedAsOne) {
  // A regular file whose first read fails (offset 0 of this process's memory).
  EXPECT_EQ(file_errors_of("/proc/self/mem"),
            "/proc/self/mem: error: cannot read scenario file: read error: Input/output error");
}

TEST(ScenarioInput, FilesOverOneMebibyteAreRefused) {
  TempDir dir;
  const fs::path at_limit = dir.path / "at-limit.yaml";
  const std::string comment = "# " + std::string(kMaxInputBytes - kHead.size() - 3, 'x') + "\n";
  write_file(at_limit, kHead + comment);
  ASSERT_EQ(fs::file_size(at_limit), kMaxInputBytes);
  EXPECT_EQ(file_errors_of(at_limit.string()), "(loaded)");
  const fs::path over = dir.path / "over.yaml";
  write_file(over, kHead + comment + "\n");
  EXPECT_EQ(file_errors_of(over.string()),
            over.string() +
                ": error: cannot read scenario file: is 1048577 bytes; the limit is 1048576 "
                "bytes (1 MiB)");
}

TEST(ScenarioInput, ASecondDocumentIsAnError) {
  EXPECT_EQ(errors_of(kHead + "seed: 2\n---\nseed: 3\n"),
            "bad.yaml:4:1: error: a second YAML document (after `---`); a file holds one "
            "document");
  EXPECT_EQ(errors_of("---\n" + kHead + "...\n"), "(loaded)");  // one document, delimited
}

TEST(ScenarioInput, AliasExpansionIsBoundedWhereItIsWritten) {
  // Nine aliases of nine aliases ...: 9^8 nodes to walk, a few hundred bytes to write.
  std::string laughs = "x:\n  l0: &l0 [a, a, a, a, a, a, a, a, a]\n";
  for (int i = 1; i <= 8; ++i) {
    laughs += fmt::format("  l{}: &l{} [", i, i);
    for (int k = 0; k < 9; ++k) laughs += fmt::format("{}*l{}", k ? ", " : "", i - 1);
    laughs += "]\n";
  }
  EXPECT_EQ(errors_of(kHead + laughs),
            "bad.yaml:8:17: error: more than 20000 YAML nodes, each use of an alias counted in "
            "full (the limit)");
  EXPECT_EQ(errors_of(kHead + "platform: &p {pci: *p}\n"),
            "bad.yaml:3:20: error: an alias inside the node it names (a cycle)");
}

TEST(ScenarioInput, ListsAreBoundedAndNamed) {
  std::string list = "workload:\n";
  for (size_t i = 0; i <= kMaxYamlListItems; ++i) list += "  - x\n";
  EXPECT_EQ(errors_of(kHead + list),
            "bad.yaml:10004:5: error: workload: a list of more than 10000 items (the limit)");
  std::string programs = "workload:\n";
  for (int i = 0; i < 65; ++i) programs += fmt::format("  - cyclictest: {{name: c{}}}\n", i);
  EXPECT_EQ(errors_of(kHead + programs),
            "bad.yaml:68:5: error: workload: 65 items; the limit is 64");
}

TEST(ScenarioInput, DeepNestingIsReportedWithItsLine) {
  const std::string deep = "x: " + std::string(100, '[') + std::string(100, ']') + "\n";
  EXPECT_EQ(errors_of(kHead + deep),
            "bad.yaml:3:67: error: nested deeper than 64 levels (the limit)");
  // Past yaml-cpp's own guard too.
  const std::string deeper = "x: " + std::string(3000, '[') + std::string(3000, ']') + "\n";
  EXPECT_EQ(errors_of(kHead + deeper),
            "bad.yaml:3:67: error: nested deeper than 64 levels (the limit)");
}

TEST(ScenarioInput, TextThatReachesOutputsIsPrintableUtf8) {
  EXPECT_EQ(errors_of(kHead + "kernel: {version: \"2.6.9\\e[31m\"}\n"),
            "bad.yaml:3:19: error: kernel.version: contains the control character \\x1b; "
            "expected printable UTF-8 text on one line");
  EXPECT_EQ(errors_of(kHead + "kernel: {version: \"a\\tb\"}\n"),
            "bad.yaml:3:19: error: kernel.version: contains the control character \\t; expected "
            "printable UTF-8 text on one line");
  EXPECT_EQ(errors_of(kHead + "kernel: {version: \"2.6.9\xff\"}\n"),
            "bad.yaml:3:19: error: kernel.version: is not valid UTF-8 (byte \\xff); expected "
            "printable UTF-8 text on one line");
  EXPECT_EQ(errors_of(kHead, {"kernel.version=a\x1b[2Jb"}),
            "--set kernel.version=a\\x1b[2Jb: error: kernel.version: contains the control "
            "character \\x1b; expected printable UTF-8 text on one line");
  EXPECT_EQ(errors_of(kHead, {"outputs.dir=out/\xc3("}),
            "--set outputs.dir=out/\\xc3(: error: outputs.dir: is not valid UTF-8 (byte \\xc3); "
            "expected printable UTF-8 text on one line");
  EXPECT_EQ(errors_of(kHead + "kernel: {version: " + std::string(5000, 'v') + "}\n"),
            "bad.yaml:3:19: error: kernel.version: is 5000 bytes long; the limit is 4096");
  EXPECT_EQ(errors_of("schema_version: 1\nname: " + std::string(256, 'n') + "\n"),
            "bad.yaml:2:7: error: name: is 256 bytes long; the limit is 255 (accepted: "
            "[a-z0-9._-]+)");
  // Prose may span lines; non-ASCII text is fine.
  EXPECT_EQ(errors_of(kHead + "description: |\n  Seed 000,\n  Ingo Molnár: 70 µs\n"), "(loaded)");
  EXPECT_EQ(load_scenario_text(kHead + "description: |\n  a\n  b\n", "x.yaml").description, "a\nb");
}

TEST(ScenarioInput, ErrorsNeverEchoControlBytes) {
  const std::string errors = errors_of(kHead + "kernel: {\"hz\\e]0;pwned\\a\": 100}\n");
  EXPECT_EQ(errors.find('\x1b'), std::string::npos) << errors;
  EXPECT_EQ(errors.find('\a'), std::string::npos) << errors;
  EXPECT_EQ(errors.rfind("bad.yaml:3:10: error: kernel.hz\\x1b]0;pwned\\x07: unknown key", 0), 0u)
      << errors;
}

TEST(ScenarioInput, SweepValuesArePrintableScalars) {
  EXPECT_EQ(errors_of(kHead + "sweep:\n  params:\n    kernel.hz: [100, [1, 2], \"a\\eb\"]\n"),
            "bad.yaml:5:22: error: sweep.params.kernel.hz: expected a value without commas, got "
            "a list\n"
            "bad.yaml:5:30: error: sweep.params.kernel.hz: contains the control character \\x1b");
}

TEST(ScenarioInput, TimelineWindowIsCheckedWhenLoaded) {
  EXPECT_EQ(errors_of(kHead, {"outputs.timeline_window=garbage"}),
            "--set outputs.timeline_window=garbage: error: outputs.timeline_window: bad time "
            "window 'garbage': expected A..B with times such as 12.3s..12.4s, or max:SPAN such "
            "as max:100ms");
  EXPECT_EQ(errors_of(kHead + "outputs: {timeline_window: 'max:0s'}\n"),
            "bad.yaml:3:28: error: outputs.timeline_window: bad time window 'max:0s': empty span");
  EXPECT_EQ(errors_of(kHead + "outputs: {timeline_window: 2s..1e300s}\n"),
            "bad.yaml:3:28: error: outputs.timeline_window: bad time window '2s..1e300s': "
            "expected A..B with times such as 12.3s, 500ms, 250us");
  EXPECT_EQ(errors_of(kHead, {"outputs.timeline_window=1s..2s"}), "(loaded)");
  EXPECT_EQ(errors_of(kHead, {"outputs.timeline_window=max:100ms"}), "(loaded)");
}

}  // namespace
}  // namespace latsim::platform
