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

#include "models/chipset/host_bridge.h"
#include "models/chipset/smi_source.h"
#include "models/cpu/pentium3.h"
#include "models/disk/disk_drive.h"
#include "models/dma/bestcomm.h"
#include "models/ide/ide_controller.h"
#include "models/irq/apic_bus.h"
#include "models/irq/ioapic.h"
#include "models/irq/mpc52xx_pic.h"
#include "models/isa/pci_isa_bridge.h"
#include "models/net/mpc52xx_fec.h"
#include "models/net/rtl8139.h"
#include "models/pci/pci_bus.h"
#include "models/scsi/aic7880.h"
#include "models/sound/es1371.h"
#include "models/timer/i8254.h"
#include "models/usb/uhci.h"
#include "models/video/permedia2.h"
#include "platform/output_config.h"
#include "workloads/registry.h"

namespace latsim::platform {

// The board: each device's knobs, declared by its model beside its code (the keys
// tables the scenario schema mounts under platform.*).
struct PlatformConfig {
  std::string preset = "dual-piii-866-via";
  cpu::CpuParams cpu;
  pci::PciBusParams pci;
  chipset::HostBridgeParams host_bridge;
  isa::PciIsaBridgeParams isa;
  chipset::SmiParams smi;
  ide::IdeControllerParams ide;
  disk::DiskDriveParams disk;
  net::Rtl8139Params nic;
  net::Mpc52xxFecParams fec;     // the MPC5200's FEC: eth0 when fitted
  dma::BestcommParams bestcomm;  // its BestComm engine (XLB clock: cpu.fsb_mhz)
  sound::Es1371Params sound;
  usb::UhciParams usb;
  video::Permedia2Params video;
  scsi::Aic7880Params scsi;  // fitted when platform.disk.adapter is aic7xxx
  irq::IoApicParams ioapic;
  irq::Mpc52xxPicParams mpc52xx_pic;  // the MPC5200's controller instead of the PC's
  timer::I8254Params pit;
  irq::ApicBusParams apic_bus;
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
  std::vector<std::string> params;           // "KEY=VALUES", the syntax of `latsim sweep --param`
  std::vector<std::string> param_locations;  // FILE:LINE:COLUMN of each param's values
  int seeds = 0;                             // 0: not set (one seed)
  std::string metrics;                       // comma-separated metric paths; empty: the default set
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
