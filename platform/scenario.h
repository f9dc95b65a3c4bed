#pragma once
// The typed scenario: what a YAML file (schema_version 1) plus --set overrides
// resolve to after validation. Defaults here are the reference machine's; a
// preset may change them before the scenario's own values are applied.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "kernel_sim/kernel_params.h"

#include "platform/output_config.h"
#include "workloads/registry.h"

namespace latsim::platform {

// How long a PCI bus master may keep the CPU off the host bridge (docs/MODEL.md, "Host bridge").
enum class HoldoffPolicy { None, SgEntry, Grants, Rotate, ReqAsserted };

struct CpuConfig {
  int count = 2;
  double mhz = 866.0;            // Pentium III 866 (coppermine), seed 000
  double dram_latency_ns = 174;  // lmbench main-memory latency, CALIBRATION.md
  double fsb_mhz = 133.0;        // PC133 front-side bus
  int l2_kb = 256;               // Coppermine: 256 KiB on-die L2 per CPU

  // mean | sampled: how a touch counts the lines evicted since (l2_residency.h)
  std::string l2_survival = "mean";
};

struct PciConfig {
  double mhz = 33.33;
  int latency_timer = 64;          // pcibios_set_master default when BIOS left < 16
  std::string arbiter = "rotate";  // rotate | fixed
  int width_bits = 32;             // AD bus width: 32, or 64 (REQ64#/ACK64#)
};

struct HostBridgeConfig {
  HoldoffPolicy cpu_holdoff = HoldoffPolicy::SgEntry;
  int holdoff_grants = 3;        // VIA 8363/8371/8361 + 686B: 3 bus-master requests
  int posted_write_entries = 4;  // CPU-to-PCI posted-write buffer, dwords (0: not posted)
  bool io_holdoff = true;        // CPU cycles to PCI are held off as memory requests are
  bool io_waits_req = true;      // req_asserted: CPU cycles to PCI wait for REQ# too (assumption)
};

// SMI# from the south bridge's power management: every CPU spends `duration_us` in the
// BIOS's SMM handler every `period_us` (0: none, the default: no board here is known
// to take SMIs). The phase of the first is drawn from the seed.
struct SmiConfig {
  double period_us = 0;
  double duration_us = 0;
};

struct IsaConfig {
  double io_cycle_ns = 1700;  // one ISA I/O cycle through the bridges; fitted to O5 (VIA preset)
  bool delayed_transactions = false;  // BIOS "PCI Delay Transaction" (PCI 2.1 3.3.3.3)
};

struct IdeConfig {
  int udma_mode = 2;          // udma2 = 33 MB/s
  int burst_bytes = 16;       // PIIX4-class line buffer: 4-dword memory writes
  double prd_fetch_ns = 120;  // fitted (O1): master's gap between entries, PRD prefetched
  bool memory_write_invalidate = false;  // bus-master memory writes as MWI
  int pio_mode = 4;                      // ATA PIO mode 4: 120 ns cycle
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
  bool write_cache = true;                       // hdparm -W1 (drives shipped with it on)
  int write_cache_kb = 2048;         // assumption: the whole 2 MB buffer may hold writes
  double write_overhead_ms = 0.015;  // 120GXP write command overhead
};

struct NicConfig {
  int irq = 11;                   // INTA# steered to this ISA IRQ / IO-APIC pin (assumption)
  double wire_mbit_s = 100.0;     // 100BASE-TX
  int tx_fifo_bytes = 2048;       // RTL8139C transmit FIFO
  int burst_overhead_clocks = 4;  // per PCI burst: arbitration, address, turnaround, idle
};

struct SoundConfig {
  int irq = 10;                   // seed 000: /proc/irq/10/Ensoniq AudioPCI
  int64_t bit_clk_hz = 12288000;  // AC'97 BIT_CLK
  int src_busy_frames = 1;        // SRC RAM request waits this many frame starts
  int dac_fetch_longwords = 8;    // one memory-read burst refills half the DAC FIFO
  int burst_overhead_clocks = 4;  // per PCI burst: arbitration, address, turnaround, idle
};

// The south bridge's UHCI USB controllers (nothing plugged in) and where their INTx#
// is steered: their handlers run on every interrupt of a line they share.
struct UsbConfig {
  int uhci = 2;  // controllers (the 686B has two: functions 2 and 3)
  int irq = 10;  // ISA IRQ / IO-APIC pin
};

// A graphics card with a command FIFO on PCI (docs/MODEL.md, "Video card"); absent unless
// the preset or the scenario names one.
struct VideoConfig {
  std::string card = "none";      // none | permedia2
  int fifo_entries = 256;         // glint_driver.c FIFOSize for Permedia 2
  std::string pci = "2.0";        // 2.0: wait states while full (bus held) | 2.1: Retry
  double register_load_ns = 12;   // core time per register load
  double render_setup_ns = 120;   // rasteriser start-up per Render
  double fill_ns_per_pixel = 12;  // filled pixel
  double copy_ns_per_pixel = 40;  // screen-to-screen copied pixel (source read + write)
};

struct PlatformConfig {
  std::string preset = "dual-piii-866-via";
  CpuConfig cpu;
  PciConfig pci;
  HostBridgeConfig host_bridge;
  IsaConfig isa;
  SmiConfig smi;
  IdeConfig ide;
  DiskConfig disk;
  NicConfig nic;
  SoundConfig sound;
  UsbConfig usb;
  VideoConfig video;
  bool io_apic = true;  // false: IRQs through the 8259A pair only, PIT tick (2.4 UP)
  // Lowest-priority arbitration on the APIC bus among equal TPRs: P6 rotates the
  // arbitration ID after every message (rotate); lowest_id always picks APIC 0.
  std::string apic_lowest_priority = "rotate";
  // How the IO-APIC window (0xfec00000) is reached: pci (a PCI-speed target) or xbus
  // (82093AA-style 8-bit X-bus behind the PCI-ISA bridge: 4 ISA cycles per dword).
  std::string ioapic_bus = "xbus";
};

// Named mechanism switches of the machine (counterfactuals live here); the kernel's
// (isa_io_delay, mcount_overhead, cache_locking, mcount_cycles) are KernelParams'.
struct MechanismConfig {
  bool bus_master_holdoff = true;  // host bridge keeps CPU off while a master transfers
  bool pci_latency_timer = true;   // masters release the bus when their timer expires
  bool cache_coherence = true;     // MESI: shared kernel data another CPU wrote moves over the FSB
};

// One workload item: its kind, instance name and the kind's own params (workloads/).
using WorkloadConfig = workloads::Config;

// A sweep versioned with the scenario (`latsim sweep` uses it when given no --param).
struct SweepConfig {
  std::vector<std::string> params;  // "KEY=VALUES", the syntax of `latsim sweep --param`
  int seeds = 0;                    // 0: not set (one seed)
  std::string metrics;              // comma-separated metric paths; empty: the default set
};

struct Scenario {
  int schema_version = 1;
  std::string name;
  std::string description;
  std::string source_file;  // path the scenario was read from
  uint64_t seed = 1;
  double duration_s = 30.0;
  PlatformConfig platform;
  // kernel.*, and the kernel's mechanisms.* and tracing.* keys (kernel_sim declares them).
  kernel::KernelParams kernel;
  MechanismConfig mechanisms;
  std::vector<WorkloadConfig> workload;
  OutputConfig outputs;
  SweepConfig sweep;
};

}  // namespace latsim::platform
