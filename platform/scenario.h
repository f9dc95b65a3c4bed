#pragma once
// The typed scenario: what a YAML file (schema_version 1) plus --set overrides
// resolve to after validation. Defaults here are the reference machine's; a
// preset may change them before the scenario's own values are applied.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace latsim::platform {

// How long a PCI bus master may keep the CPU off the host bridge (DESIGN.md).
enum class HoldoffPolicy { None, SgEntry, Grants, Rotate };

struct CpuConfig {
  int count = 2;
  double mhz = 866.0;            // Pentium III 866 (coppermine), seed 000
  double dram_latency_ns = 174;  // lmbench main-memory latency, CALIBRATION.md
  double fsb_mhz = 133.0;        // PC133 front-side bus
};

struct PciConfig {
  double mhz = 33.33;
  int latency_timer = 64;          // pcibios_set_master default when BIOS left < 16
  std::string arbiter = "rotate";  // rotate | fixed
};

struct HostBridgeConfig {
  HoldoffPolicy cpu_holdoff = HoldoffPolicy::SgEntry;
  int holdoff_grants = 3;  // VIA 8363/8371/8361 + 686B: 3 bus-master requests
};

struct IsaConfig {
  double io_cycle_ns = 1000;  // assumption: one 8-bit ISA I/O cycle ~1 us at 8.33 MHz
};

struct IdeConfig {
  int udma_mode = 2;          // udma2 = 33 MB/s
  int burst_bytes = 16;       // PIIX4-class line buffer: 4-dword memory writes
  double prd_fetch_ns = 500;  // assumption: one PRD read from DRAM between entries
};

struct DiskConfig {
  int rpm = 7200;
  double avg_seek_ms = 8.5;          // IBM 120GXP read seek
  double track_to_track_ms = 1.2;    // assumption (120GXP class)
  double outer_mb_s = 44.0;          // zoned media rate, outer zone
  double inner_mb_s = 22.0;          // inner zone
  double command_overhead_ms = 0.3;  // cache miss
  double cache_hit_overhead_ms = 0.1;
  int cache_kb = 2048;                           // on-disk read cache (look-ahead)
  int64_t capacity_sectors = 58168LL * 16 * 63;  // geometry 58168/16/63 (seed 000)
};

struct PlatformConfig {
  std::string preset = "dual-piii-866-via";
  CpuConfig cpu;
  PciConfig pci;
  HostBridgeConfig host_bridge;
  IsaConfig isa;
  IdeConfig ide;
  DiskConfig disk;
};

struct HdparmConfig {
  bool dma = true;
  bool unmaskirq = false;
};

struct KernelConfig {
  std::string flavour = "2.6.9-vp";
  std::string version = "2.6.9-rc1-VP-R1";  // printed in trace headers
  int hz = 1000;
  int voluntary_preemption = 1;
  int kernel_preemption = 1;
  int softirq_preemption = 1;
  int hardirq_preemption = 1;
  bool nmi_watchdog = true;
  // Tunables by their real paths.
  int max_sectors_kb = 128;          // /sys/block/hda/queue/max_sectors_kb
  int read_ahead_kb = 128;           // /sys/block/hda/queue/read_ahead_kb
  int netdev_max_backlog = 300;      // /proc/sys/net/core/netdev_max_backlog
  int preempt_max_latency_us = 500;  // /proc/sys/kernel/preempt_max_latency
  int ide0_threaded = 1;             // /proc/irq/14/ide0/threaded
  HdparmConfig hdparm;
};

// Named mechanism switches and parameters (counterfactuals live here).
struct MechanismConfig {
  bool bus_master_holdoff = true;  // host bridge keeps CPU off while a master transfers
  bool pci_latency_timer = true;   // masters release the bus when their timer expires
  bool isa_io_delay = true;        // outb_p/inb_p write port 0x80 as a delay
  bool mcount_overhead = true;     // the tracer's own cost per mcount entry
  int mcount_cycles = 60;          // assumption: cost of one mcount entry on a PIII
};

struct WorkloadConfig {
  std::string kind;  // kernel_build | disk_read | cyclictest
  std::string name;  // instance name, defaults to kind
  // kernel_build
  int jobs = 2;
  // disk_read
  int file_mb = 350;
  int block_kb = 64;
  // cyclictest
  int priority = 80;
  int interval_us = 1000;
  int histogram_us = 0;  // -h: 0 = no histogram
  int threads = 1;                    // -t
  bool priospread = false;            // --priospread
  int distance_us = 500;              // -d
  int loops = 0;                      // -l: 0 = endless
  std::string affinity = "none";      // -a: none | all | CPU list ("1", "0,1", "0-1")
  std::string timer = "clock_nanosleep";  // clock_nanosleep | posix_timers (-x)
};

struct TracingConfig {
  bool enabled = true;  // /proc/sys/kernel/tracing_enabled
  int max_traces = 50;  // traces/ keeps the largest N
};

// A sweep versioned with the scenario (`latsim sweep` uses it when given no --param).
struct SweepConfig {
  std::vector<std::string> params;  // "KEY=VALUES", the syntax of `latsim sweep --param`
  int seeds = 0;                    // 0: not set (one seed)
  std::string metrics;              // comma-separated metric paths; empty: the default set
};

struct OutputConfig {
  std::string dir;  // empty: out/<name>/
};

struct Scenario {
  int schema_version = 1;
  std::string name;
  std::string description;
  std::string source_file;  // path the scenario was read from
  uint64_t seed = 1;
  double duration_s = 30.0;
  PlatformConfig platform;
  KernelConfig kernel;
  MechanismConfig mechanisms;
  std::vector<WorkloadConfig> workload;
  TracingConfig tracing;
  OutputConfig outputs;
  SweepConfig sweep;
};

}  // namespace latsim::platform
